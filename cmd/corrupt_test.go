package cmd_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/internal/realworld"
)

// Corruption tests: real Kafka-written segments with one defect each, run
// through kseg dump in kafka-dump-log form (stdout compared byte
// for byte with what Kafka 4.4.0 printed for the same file, recorded by
// testdata/corrupt/regen.sh), in kseg form, and with --keep-going.

type corruptFile struct {
	name string
	data []byte
}

type corruptCase struct {
	name string
	// files builds the case's directory; the first file is the one dumped.
	files func(t testing.TB) []corruptFile
	// errAt is the byte offset kseg's located error must name in kafka and
	// kseg form; -1 when the file is not an error for kseg (Kafka exits 0).
	errAt int64
	// keepExit is kseg's exit status with --keep-going; keepAfter must
	// appear in its stdout (a batch after the bad region: scanning went on).
	keepExit  int
	keepAfter string
	// errAt < 0: the defect is not an error for anyone; kafka, kseg and
	// --keep-going forms all exit 0 and must say want.
	want string
	// kafkaQuiet: Kafka reports the defect and exits 0 (kafka form does
	// the same), while kseg's own form exits ksegExit with a located error.
	kafkaQuiet bool
	ksegExit   int // 0 means 3
	// locate replaces "<file>: at byte <errAt>:" where no byte applies.
	locate string
	// ksegLocate replaces locate in kseg's forms, which name no Java
	// exception.
	ksegLocate string
}

const (
	bbLog  = "segments/BiggerBrain__kafka/data/lsx1-0/00000000000000000000.log" // 12 none batches of 97 bytes, then gzip at 1164 and 1281 (117 each); 1398 bytes
	pdaDir = "segments/Pda-Final-Project__backend/data/kafka/order-topic-0"
	seg0   = "00000000000000000000.log"
	v1Log  = "segments/xpxwo100__bullShit/tmp/kafka-logs/topic1-0/00000000000000000000.log"
)

func realFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realworld.Dir(t), rel))
	if err != nil {
		t.Skipf("realworld file: %v", err)
	}
	return b
}

func repoFile(t testing.TB, rel string) []byte {
	t.Helper()
	wd, _ := os.Getwd()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(wd), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixCRC recomputes the CRC of the v2 batch at pos, so the defect under
// test is the only one.
func fixCRC(b []byte, pos int) {
	size := int(int32(binary.BigEndian.Uint32(b[pos+8:]))) + batch.LogOverhead
	binary.BigEndian.PutUint32(b[pos+17:], batch.CRC32C(b[pos+21:pos+size]))
}

func bb(t testing.TB, mutate func(b []byte) []byte) []corruptFile {
	b := bytes.Clone(realFile(t, bbLog))
	return []corruptFile{{seg0, mutate(b)}}
}

func codecFixture(t testing.TB, codec string, mutate func(b []byte) []byte) []corruptFile {
	b := bytes.Clone(repoFile(t, "testdata/segments/codecs/codec-"+codec+"-0/"+seg0))
	return []corruptFile{{seg0, mutate(b)}}
}

var corruptCases = []corruptCase{
	{name: "crc-flip", errAt: -1, want: "position: 97 CreateTime: 1721034028798 size: 97 magic: 2 compresscodec: none crc: 1031871625 isvalid: false",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { b[97+20] ^= 1; return b })
		}},
	{name: "truncated-mid-header", errAt: -1, want: "Found 40 invalid bytes at the end of " + seg0,
		files: func(t testing.TB) []corruptFile { return bb(t, func(b []byte) []byte { return b[:1164+40] }) }},
	{name: "truncated-mid-records", errAt: -1, want: "Found 90 invalid bytes at the end of " + seg0,
		files: func(t testing.TB) []corruptFile { return bb(t, func(b []byte) []byte { return b[:1164+90] }) }},
	// Kafka calls the 1301 bytes after the bad length "invalid bytes at the
	// end" and exits 0; 1204 of them are intact batches, so kseg's form
	// fails there (it used to exit 0 too: a corrupt log passed as healthy).
	{name: "huge-length", errAt: 97, kafkaQuiet: true, keepExit: 1, keepAfter: "baseOffset: 13 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { binary.BigEndian.PutUint32(b[97+8:], 0x7fffff00); return b })
		}},
	{name: "zero-filled-tail", errAt: 1398 + 8, keepExit: 1, keepAfter: "baseOffset: 13 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { return append(b, make([]byte, 4096)...) })
		}},
	{name: "negative-length", errAt: 97 + 8, keepExit: 1, keepAfter: "baseOffset: 2 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { binary.BigEndian.PutUint32(b[97+8:], 0xffffffff); return b })
		}},
	{name: "count-larger-than-bytes", errAt: 97 + 97, keepExit: 1, keepAfter: "baseOffset: 2 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { binary.BigEndian.PutUint32(b[97+57:], 5); fixCRC(b, 97); return b })
		}},
	{name: "bad-varint", errAt: 97 + 61, keepExit: 1, keepAfter: "baseOffset: 2 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { copy(b[97+61:], []byte{0xff, 0xff, 0xff, 0xff, 0xff}); fixCRC(b, 97); return b })
		}},
	{name: "unknown-codec", errAt: 97 + 21, keepExit: 1, keepAfter: "baseOffset: 2 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte { b[97+22] = b[97+22]&^7 | 5; fixCRC(b, 97); return b })
		}},
	{name: "corrupt-gzip-payload", errAt: 1164 + 61, keepExit: 1, keepAfter: "baseOffset: 13 ",
		files: func(t testing.TB) []corruptFile {
			return bb(t, func(b []byte) []byte {
				for i := 1164 + 61 + 12; i < 1164+61+24; i++ {
					b[i] ^= 0x5a
				}
				return b
			})
		}},
	{name: "corrupt-lz4-payload", errAt: 61, keepExit: 1, keepAfter: "position: 692 ",
		files: func(t testing.TB) []corruptFile {
			return codecFixture(t, "lz4", func(b []byte) []byte { b[61] ^= 0xff; fixCRC(b, 0); return b })
		}},
	{name: "corrupt-snappy-payload", errAt: 61, keepExit: 1, keepAfter: "position: 696 ",
		files: func(t testing.TB) []corruptFile {
			return codecFixture(t, "snappy", func(b []byte) []byte { copy(b[61+16:], []byte{0x7f, 0xff, 0xff, 0xff}); fixCRC(b, 0); return b })
		}},
	{name: "corrupt-zstd-payload", errAt: 61, keepExit: 1, keepAfter: "position: 531 ",
		files: func(t testing.TB) []corruptFile {
			return codecFixture(t, "zstd", func(b []byte) []byte { b[61] ^= 0xff; fixCRC(b, 0); return b })
		}},
	{name: "index-past-log", errAt: 16, keepExit: 3,
		files: func(t testing.TB) []corruptFile {
			var idx []byte
			for _, e := range [][2]uint32{{0, 0}, {5, 485}, {12, 5000}} {
				idx = binary.BigEndian.AppendUint32(idx, e[0])
				idx = binary.BigEndian.AppendUint32(idx, e[1])
			}
			return []corruptFile{{"00000000000000000000.index", idx}, {seg0, realFile(t, bbLog)}}
		}},
	{name: "index-missing-log", locate: "00000000000000000000.index: java.nio.file.NoSuchFileException: ", ksegLocate: "00000000000000000000.index: no such file: ", keepExit: 3,
		files: func(t testing.TB) []corruptFile {
			return []corruptFile{{"00000000000000000000.index", make([]byte, 16)}}
		}},
	// Legacy (magic 1, Kafka 0.10.1) log: five 43-byte messages. Resync
	// only recognises v2 batches, so --keep-going cannot continue here.
	{name: "legacy-value-past-message", errAt: 43 + 30, keepExit: 1,
		files: func(t testing.TB) []corruptFile {
			b := bytes.Clone(realFile(t, v1Log))
			binary.BigEndian.PutUint32(b[43+30:], 1000)
			return []corruptFile{{seg0, b}}
		}},
	{name: "legacy-unknown-codec", errAt: 43 + 21, keepExit: 1,
		files: func(t testing.TB) []corruptFile {
			b := bytes.Clone(realFile(t, v1Log))
			b[43+17] = 5
			return []corruptFile{{seg0, b}}
		}},
	{name: "snapshot-bad-crc", errAt: 2, kafkaQuiet: true, ksegExit: 1, keepExit: 1,
		files: func(t testing.TB) []corruptFile {
			b := bytes.Clone(realFile(t, pdaDir+"/00000000000000000002.snapshot"))
			b[40] ^= 0x10
			return []corruptFile{{"00000000000000000002.snapshot", b}}
		}},
}

// TestCorruptWriteFixtures writes every case's files under
// $KSEG_CORRUPT_DIR/<case>/ for testdata/corrupt/regen.sh.
func TestCorruptWriteFixtures(t *testing.T) {
	out := os.Getenv("KSEG_CORRUPT_DIR")
	if out == "" {
		t.Skip("set KSEG_CORRUPT_DIR to write the corrupt fixtures (testdata/corrupt/regen.sh does)")
	}
	for _, c := range corruptCases {
		dir := filepath.Join(out, c.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range c.files(t) {
			if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

type runResult struct {
	stdout, stderr []byte
	exit           int
}

// runKseg runs kseg dump in process, in the current directory.
func runKseg(t *testing.T, args ...string) runResult {
	t.Helper()
	so, se, code := execute(t, append([]string{"dump"}, args...)...)
	return runResult{stdout: so, stderr: se, exit: code}
}

func TestCorruptFiles(t *testing.T) {
	golden := filepath.Join(repoRoot(t), "testdata", "corrupt")
	for _, c := range corruptCases {
		t.Run(c.name, func(t *testing.T) {
			files := c.files(t)
			dir := t.TempDir()
			type stamp struct {
				data []byte
				mod  time.Time
			}
			before := map[string]stamp{}
			for _, f := range files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, f.data, 0o444); err != nil {
					t.Fatal(err)
				}
				old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
				os.Chtimes(p, old, old)
				st, _ := os.Stat(p)
				before[f.name] = stamp{f.data, st.ModTime()}
			}
			name := files[0].name
			t.Chdir(dir) // kseg is given the file's bare name, as in the goldens
			deep := []string{"--deep-iteration", "--print-data-log"}

			// kafka-dump-log form: Kafka's stdout byte for byte, its exit status.
			kafka := runKseg(t, append([]string{"--files", name}, deep...)...)
			wantOut, err := os.ReadFile(filepath.Join(golden, c.name+".stdout"))
			if err != nil {
				t.Fatalf("golden missing (run testdata/corrupt/regen.sh): %v", err)
			}
			wantExit := readExit(t, filepath.Join(golden, c.name+".exit"))
			if !bytes.Equal(kafka.stdout, wantOut) {
				t.Errorf("kafka form stdout differs from Kafka 4.4.0's: %s", firstDiff(kafka.stdout, wantOut))
			}
			if kafka.exit != wantExit {
				t.Errorf("kafka form exit %d, Kafka exited %d; stderr: %s", kafka.exit, wantExit, kafka.stderr)
			}

			kseg := runKseg(t, append([]string{name}, deep...)...)
			keep := runKseg(t, append([]string{name, "--keep-going"}, deep...)...)
			if c.errAt < 0 {
				for form, r := range map[string]runResult{"kafka": kafka, "kseg": kseg} {
					if r.exit != 0 {
						t.Errorf("%s form exit %d, want 0; stderr: %s", form, r.exit, r.stderr)
					}
					if !bytes.Contains(r.stdout, []byte(c.want)) {
						t.Errorf("%s form stdout lacks %q", form, c.want)
					}
				}
				// --keep-going: the same, unless intact batches follow the
				// bad entry; then it reports the region and goes on to them.
				if keep.exit != c.keepExit {
					t.Errorf("--keep-going exit %d, want %d; stderr: %s", keep.exit, c.keepExit, keep.stderr)
				}
				if c.keepAfter == "" && !bytes.Contains(keep.stdout, []byte(c.want)) {
					t.Errorf("--keep-going stdout lacks %q", c.want)
				}
				if c.keepAfter != "" && (!bytes.Contains(keep.stdout, []byte(c.keepAfter)) || !bytes.Contains(keep.stderr, []byte("corrupt region in "+name+": bytes 97..194 skipped"))) {
					t.Errorf("--keep-going did not report the region and go on to %q: %s", c.keepAfter, keep.stderr)
				}
			} else {
				loc := name + ": at byte " + strconv.FormatInt(c.errAt, 10) + ":"
				if c.locate != "" {
					loc = c.locate
				}
				forms := map[string]runResult{"kafka": kafka, "kseg": kseg}
				if c.kafkaQuiet {
					delete(forms, "kafka")
					if bytes.Contains(kafka.stderr, []byte("kseg:")) {
						t.Errorf("kafka form added kseg's error where Kafka only reports: %q", kafka.stderr)
					}
				}
				for form, r := range forms {
					loc := loc
					if form == "kseg" && c.ksegLocate != "" {
						loc = c.ksegLocate
					}
					if bytes.Count(r.stderr, []byte(loc)) != 1 || bytes.Count(r.stderr, []byte("kseg: error: ")) > 1 {
						t.Errorf("%s form: want one error line containing %q, got %q", form, loc, r.stderr)
					}
				}
				wantKseg := c.ksegExit
				if wantKseg == 0 {
					wantKseg = 3
				}
				if kseg.exit != wantKseg {
					t.Errorf("kseg form exit %d, want %d", kseg.exit, wantKseg)
				}
				if c.kafkaQuiet {
					// Kafka's closing "Found N invalid bytes" is kseg's error.
					if i := bytes.LastIndex(wantOut, []byte("Found ")); i >= 0 && bytes.Contains(wantOut[i:], []byte(" invalid bytes at the end of ")) {
						wantOut = wantOut[:i]
					}
				}
				if !bytes.HasPrefix(kseg.stdout, wantOut) {
					t.Errorf("kseg form stdout is not Kafka's up to the crash: %s", firstDiff(kseg.stdout[:min(len(kseg.stdout), len(wantOut))], wantOut))
				}
				if keep.exit != c.keepExit {
					t.Errorf("--keep-going exit %d, want %d; stderr: %s", keep.exit, c.keepExit, keep.stderr)
				}
				if c.keepExit == 1 && c.keepAfter != "" {
					if !bytes.Contains(keep.stderr, []byte("corrupt region in "+name+": bytes ")) {
						t.Errorf("--keep-going did not report the bad region: %q", keep.stderr)
					}
					if !bytes.Contains(keep.stdout, []byte(c.keepAfter)) {
						t.Errorf("--keep-going did not continue to %q:\n%s", c.keepAfter, keep.stdout)
					}
				}
			}
			// Java's exception names are kafka-dump-log's words: kseg's own
			// forms say what went wrong plainly.
			for form, r := range map[string]runResult{"kseg": kseg, "--keep-going": keep} {
				if bytes.Contains(r.stderr, []byte("java.")) {
					t.Errorf("%s form names a Java exception: %q", form, r.stderr)
				}
			}
			for n, s := range before {
				p := filepath.Join(dir, n)
				got, _ := os.ReadFile(p)
				st, err := os.Stat(p)
				if err != nil || !bytes.Equal(got, s.data) || !st.ModTime().Equal(s.mod) {
					t.Errorf("%s changed by kseg", n)
				}
			}
			if testing.Verbose() {
				t.Logf("kafka form exit %d stderr %q\nkseg form exit %d stderr %q\nkeep-going exit %d stderr %q",
					kafka.exit, kafka.stderr, kseg.exit, kseg.stderr, keep.exit, keep.stderr)
			}
		})
	}
}

func readExit(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden missing (run testdata/corrupt/regen.sh): %v", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}
