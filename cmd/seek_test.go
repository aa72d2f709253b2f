package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/internal/realworld"
)

// The property of --from/--to and the filters: what kseg prints with them
// is what it prints without them, filtered afterwards. Checked on every
// fixture partition and real-world partition, for offsets and times at
// and around batch boundaries, inside batches (straddling the range),
// in compaction gaps, before the start and past the end, alone and with
// each filter.

// seekLine is one batch or record line of dump --format json.
type seekLine struct {
	obj  map[string]any
	can  string // canon(obj)
	kind string
	file string
	pos  int64 // the batch's position (a record's batch_position)
	off  int64 // a record's offset
	ts   int64 // a record's timestamp
}

// seekBatch is a batch line with its records, as the full dump printed it.
type seekBatch struct {
	line        seekLine
	first, last int64
	maxTs       int64
	pid         int64
	epoch       int64
	txn, ctl    bool
	codec       string
	recs        []seekLine
}

func num(m map[string]any, k string) int64 {
	switch v := m[k].(type) {
	case json.Number:
		n, _ := v.Int64()
		return n
	case nil:
		return math.MinInt64
	}
	return math.MinInt64
}

func parseSeekLines(t *testing.T, out string) []seekLine {
	t.Helper()
	var lines []seekLine
	cur := "" // the file the last "file" object opened (JSON schema 2)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("bad JSON line %q: %v", l, err)
		}
		if m["type"] == "file" {
			cur = fmt.Sprint(m["file"])
			continue
		}
		file := cur
		if f, ok := m["file"]; ok {
			file = fmt.Sprint(f)
		}
		sl := seekLine{obj: m, kind: fmt.Sprint(m["type"]), file: file, can: canon(l)}
		if !strings.HasSuffix(sl.file, ".log") {
			continue // KRaft snapshots are not part of the log
		}
		switch sl.kind {
		case "batch":
			sl.pos = num(m, "position")
		case "record":
			sl.pos, sl.off, sl.ts = num(m, "batch_position"), num(m, "offset"), num(m, "timestamp")
		default:
			continue
		}
		lines = append(lines, sl)
	}
	return lines
}

func seekBatches(lines []seekLine) []*seekBatch {
	var out []*seekBatch
	for _, l := range lines {
		if l.kind == "batch" {
			m := l.obj
			b := &seekBatch{line: l, first: num(m, "base_offset"), last: num(m, "last_offset"), pid: num(m, "producer_id"),
				epoch: num(m, "producer_epoch"), txn: m["is_transactional"] == true, ctl: m["is_control"] == true,
				codec: fmt.Sprint(m["codec"]), maxTs: num(m, "max_timestamp")}
			if b.first == math.MinInt64 { // legacy: offset is the last; the first comes from its records
				b.first, b.last, b.maxTs, b.pid, b.epoch = num(m, "offset"), num(m, "offset"), num(m, "timestamp"), -1, -1
			}
			out = append(out, b)
			continue
		}
		b := out[len(out)-1]
		b.recs = append(b.recs, l)
		b.first = min(b.first, l.off)
	}
	return out
}

// seekCase is one query: its flags and the filter applied afterwards.
type seekCase struct {
	args     []string
	from, to int64 // resolved offsets
	fromTs   int64 // math.MinInt64: from is an offset
	toTs     int64
	keep     func(*seekBatch) bool
	key      func(string) bool // nil: no record filter
}

// expected is the full dump filtered by c.
func (c seekCase) expected(bs []*seekBatch) []string {
	from, to := c.from, c.to
	if c.fromTs != math.MinInt64 {
		from = timeOffset(bs, c.fromTs, math.MaxInt64)
	}
	if c.toTs != math.MinInt64 {
		to = timeOffset(bs, c.toTs, math.MaxInt64)
	}
	var out []string
	if from >= to {
		return nil // an empty range selects no batch
	}
	for _, b := range bs {
		if b.last < from || b.first >= to || (c.keep != nil && !c.keep(b)) {
			continue
		}
		var recs []string
		for _, r := range b.recs {
			if r.off < from || r.off >= to {
				continue
			}
			if c.key != nil {
				k, ok := r.obj["key"].(string)
				if !ok || !c.key(k) {
					continue
				}
			}
			recs = append(recs, r.can)
		}
		if c.key != nil && (len(recs) == 0 || b.ctl) {
			continue
		}
		out = append(out, b.line.can)
		out = append(out, recs...)
	}
	return out
}

// timeOffset is the first record's offset, in log order, of the first
// batch whose largest timestamp is at or after ms that holds one at or
// after ms (none: def).
func timeOffset(bs []*seekBatch, ms, def int64) int64 {
	for _, b := range bs {
		if b.maxTs < ms {
			continue
		}
		for _, r := range b.recs {
			if r.ts >= ms {
				return r.off
			}
		}
	}
	return def
}

// shownFields are the fields only a ranged or filtered dump adds.
var shownFields = regexp.MustCompile(`,"shown_(?:from|to)":(?:-?\d+|null)|,"shown_by_key":true`)

// canon is a line without the fields a ranged dump adds: the same batch
// or record prints the same fields in the same order otherwise.
func canon(line string) string { return shownFields.ReplaceAllString(line, "") }

// dumpLines are the canonical batch and record lines of a dump's output.
func dumpLines(out string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"type":"batch"`) || strings.Contains(l, `"type":"record"`) {
			got = append(got, canon(l))
		}
	}
	return got
}

// seekCases picks queries over the batches bs: offsets at, inside,
// between and around batches, times at and around their timestamps, and
// each filter on values the partition has.
func seekCases(bs []*seekBatch, rng *rand.Rand) []seekCase {
	none := int64(math.MinInt64)
	mk := func(args []string, from, to int64) seekCase {
		return seekCase{args: args, from: from, to: to, fromTs: none, toTs: none}
	}
	var offs []int64
	pick := func(b *seekBatch) {
		offs = append(offs, b.first, b.first+1, b.last, b.last+1, max(b.first-1, 0))
		if b.last > b.first+1 {
			offs = append(offs, b.first+(b.last-b.first)/2)
		}
	}
	for _, i := range []int{0, len(bs) - 1, len(bs) / 2, rng.Intn(len(bs)), rng.Intn(len(bs))} {
		pick(bs[i])
	}
	for i := 1; i < len(bs); i++ { // a compaction gap, when there is one
		if bs[i].first > bs[i-1].last+1 {
			offs = append(offs, bs[i-1].last+1, bs[i].first-1)
			break
		}
	}
	var cases []seekCase
	unb := int64(math.MaxInt64)
	for i, o := range offs {
		switch i % 3 {
		case 0:
			cases = append(cases, mk([]string{"--from", strconv.FormatInt(o, 10)}, o, unb))
		case 1:
			cases = append(cases, mk([]string{"--to", strconv.FormatInt(o, 10)}, math.MinInt64, o))
		default:
			o2 := o + int64(rng.Intn(40))
			cases = append(cases, mk([]string{"--from", strconv.FormatInt(o, 10), "--to", strconv.FormatInt(o2, 10)}, o, o2))
		}
	}
	cases = append(cases, mk([]string{"--from", "earliest", "--to", "latest"}, math.MinInt64, unb),
		mk([]string{"--from", "latest"}, unb, unb), mk([]string{"--to", "-2"}, math.MinInt64, math.MinInt64))
	// Times: at, just before and just after record timestamps.
	var tss []int64
	for k := 0; k < 4; k++ {
		b := bs[rng.Intn(len(bs))]
		if len(b.recs) > 0 {
			r := b.recs[rng.Intn(len(b.recs))]
			tss = append(tss, r.ts, r.ts-1, r.ts+1)
		}
	}
	for i, ts := range tss {
		if ts < 0 {
			continue
		}
		c := mk([]string{"--from", "@" + strconv.FormatInt(ts, 10)}, 0, unb)
		c.fromTs = ts
		if i%2 == 1 {
			c.args = append(c.args, "--to", "@"+strconv.FormatInt(ts+int64(rng.Intn(5000)), 10))
			c.toTs = ts + 0 // resolved below
			c.toTs, _ = strconv.ParseInt(strings.TrimPrefix(c.args[3], "@"), 10, 64)
		}
		cases = append(cases, c)
	}
	// Filters, alone and with a range.
	b := bs[rng.Intn(len(bs))]
	pid, epoch, codec := b.pid, b.epoch, b.codec
	filters := []seekCase{
		{args: []string{"--producer-id", strconv.FormatInt(pid, 10)}, keep: func(x *seekBatch) bool { return x.pid == pid }},
		{args: []string{"--producer-id", strconv.FormatInt(pid, 10), "--producer-epoch", strconv.FormatInt(epoch, 10)}, keep: func(x *seekBatch) bool { return x.pid == pid && x.epoch == epoch }},
		{args: []string{"--transactional"}, keep: func(x *seekBatch) bool { return x.txn }},
		{args: []string{"--control=false"}, keep: func(x *seekBatch) bool { return !x.ctl }},
		{args: []string{"--control"}, keep: func(x *seekBatch) bool { return x.ctl }},
		{args: []string{"--codec", codec}, keep: func(x *seekBatch) bool { return x.codec == codec }},
	}
	if len(b.recs) > 0 {
		// A printable key is printed as it is stored (others are decoded).
		if k, ok := b.recs[rng.Intn(len(b.recs))].obj["key"].(string); ok && !b.ctl && printableKey.MatchString(k) {
			filters = append(filters, seekCase{args: []string{"--key", k}, key: func(s string) bool { return s == k }})
			if len(k) > 0 {
				re := "^" + regexp.QuoteMeta(k[:1])
				rx := regexp.MustCompile(re)
				filters = append(filters, seekCase{args: []string{"--key-regex", re}, key: rx.MatchString})
			}
		}
	}
	for _, f := range filters {
		f.from, f.to, f.fromTs, f.toTs = math.MinInt64, unb, none, none
		cases = append(cases, f)
		o := offs[rng.Intn(len(offs))]
		g := f
		g.args = append(append([]string(nil), f.args...), "--from", strconv.FormatInt(o, 10), "--to", strconv.FormatInt(o+50, 10))
		g.from, g.to = o, o+50
		cases = append(cases, g)
	}
	return cases
}

var printableKey = regexp.MustCompile(`^[ -~]*$`)

// seekPartitions are the partition directories under roots.
func seekPartitions(t *testing.T, roots ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") && !seen[filepath.Dir(p)] {
				seen[filepath.Dir(p)] = true
				out = append(out, filepath.Dir(p))
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// checkSeekProperty checks up to perPartition queries of every partition
// of dirs (all of them with KSEG_SEEK_ALL=1: about 40 per partition).
func checkSeekProperty(t *testing.T, dirs []string, perPartition int) {
	rng := rand.New(rand.NewSource(30))
	if os.Getenv("KSEG_SEEK_ALL") != "" {
		perPartition = math.MaxInt
	}
	checked := 0
	for _, dir := range dirs {
		base := []string{"dump", "--format", "json", "--print-data-log", dir}
		full, _, code := runKseg(t, base...)
		if code != 0 {
			continue // a corrupt or unreadable fixture: the bad-input tests cover it
		}
		if len(full) > 4<<20 && perPartition < math.MaxInt {
			t.Logf("%s: %d bytes of JSON, checked with KSEG_SEEK_ALL=1 only", dir, len(full))
			continue
		}
		bs := seekBatches(parseSeekLines(t, full))
		if len(bs) == 0 {
			continue
		}
		checked++
		began := time.Now()
		big := 0
		cases := seekCases(bs, rng)
		rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
		cases = cases[:min(len(cases), perPartition)]
		for _, c := range cases {
			want := c.expected(bs)
			if len(want) > 5000 {
				// A large answer costs a large dump: a few of them
				// per partition check the filters at that size.
				if big++; big > 1 {
					continue
				}
			}
			args := append(append([]string(nil), base...), c.args...)
			out, errs, code := runKseg(t, args...)
			if code != 0 {
				t.Errorf("kseg %s: exit %d\n%s", strings.Join(args, " "), code, errs)
				continue
			}
			got := dumpLines(out)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("kseg %s: %d lines, want %d (the full dump filtered afterwards)\n%s", strings.Join(args, " "), len(got), len(want), firstLineDiff(got, want))
				continue
			}
			// count reads the same batches through the same window.
			cout, errs, code := runKseg(t, append([]string{"count", "--json", dir}, c.args...)...)
			if code != 0 {
				t.Errorf("kseg count %s: exit %d\n%s", strings.Join(c.args, " "), code, errs)
				continue
			}
			var cs struct{ Batches int }
			json.Unmarshal([]byte(strings.SplitN(cout, "\n", 2)[0]), &cs)
			nb := 0
			for _, w := range want {
				if strings.Contains(w, `"type":"batch"`) {
					nb++
				}
			}
			if cs.Batches != nb {
				t.Errorf("kseg count %s %s: %d batches, want %d", dir, strings.Join(c.args, " "), cs.Batches, nb)
			}
		}
		t.Logf("%s: %d batches, %d queries, %v", dir, len(bs), len(cases), time.Since(began))
	}
	if checked == 0 {
		t.Fatal("no partition was checked")
	}
	t.Logf("%d partitions checked", checked)
}

func firstLineDiff(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("line %d:\n got  %.300s\n want %.300s", i, g, w)
		}
	}
	return ""
}

func TestSeekEqualsFilteredScan(t *testing.T) {
	checkSeekProperty(t, seekPartitions(t, "../testdata/segments"), 10)
}

func TestSeekEqualsFilteredScanRealWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	checkSeekProperty(t, seekPartitions(t, filepath.Join(realworld.Dir(t), "segments")), 5)
}

// TestSeekEqualsFilteredScanLTS: remote segments (LocalTieredStorage)
// seek through the .index/.timeindex beside them.
func TestSeekEqualsFilteredScanLTS(t *testing.T) {
	checkSeekProperty(t, []string{"lts://../testdata/segments/tiered/remote"}, 40)
}

// TestSeekAuditEdges: a window's edges are not the log's: audit reports
// no offset gap and no compaction for where the range starts (segment
// 275 of the fixture starts at 275; the range at 300).
func TestSeekAuditEdges(t *testing.T) {
	out, errs, code := runKseg(t, "audit", "--json", "../testdata/segments/segments/segments-0", "--from", "300", "--to", "340")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, `"offset-gap"`) || strings.Contains(out, `"compacted":true`) {
		t.Errorf("the range's start reported as a gap or compaction:\n%s", out)
	}
	if !strings.Contains(out, `"batches":`) {
		t.Errorf("no summary:\n%s", out)
	}
}

// TestSeekBadIndexNotes: a corrupt .index costs a scan and a note on
// stderr, never a different answer.
func TestSeekBadIndexNotes(t *testing.T) {
	src := "../testdata/segments/segments/segments-0"
	dir := filepath.Join(t.TempDir(), "segments-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "00000000000000000275.index" {
			for i := 4; i+8 <= len(b); i += 8 {
				b[i+3] ^= 0x5a // every position off by a few bytes
			}
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--format", "json", "--deep-iteration", "--from", "330", "--to", "360"}
	want, _, code := runKseg(t, append([]string{"dump", src}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	got, errs, code := runKseg(t, append([]string{"dump", dir}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Join(dumpLines(got), "\n") != strings.Join(dumpLines(strings.ReplaceAll(want, src, dir)), "\n") {
		t.Errorf("a corrupt index changed the answer:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(errs, "kseg: note: ") || !strings.Contains(errs, "00000000000000000275.index") {
		t.Errorf("no note about the corrupt index: %q", errs)
	}
}
