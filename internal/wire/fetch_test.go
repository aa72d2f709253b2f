package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// fakeLog is a partition's log as a broker serves it to Fetch.
type fakeLog struct {
	data    []byte
	entries []fakeEntry
	// cutFirst: cut even the first batch at the size asked for (brokers
	// before KIP-74 did; today's return the first batch whole).
	cutFirst bool
	calls    int
	sizes    []int32
	fail     func(call int) error
}

type fakeEntry struct {
	pos, end    int64
	first, last int64
}

func newFakeLog(t *testing.T, files ...string) *fakeLog {
	t.Helper()
	l := &fakeLog{}
	for _, f := range files {
		name, copies, _ := strings.Cut(f, "*")
		b, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err) // committed fixtures
		}
		if copies == "" {
			l.data = append(l.data, b...)
			continue
		}
		// One legacy message repeated at offsets 0, 1, ... (its CRC does
		// not cover the offset).
		for i := range 5 {
			e := bytes.Clone(b)
			binary.BigEndian.PutUint64(e, uint64(i))
			l.data = append(l.data, e...)
		}
	}
	st := segment.NewStream(segment.BytesSource("fake", l.data), segment.Options{})
	for st.Next() {
		b := st.Batch()
		in, err := b.Info()
		if err != nil {
			t.Fatal(err)
		}
		l.entries = append(l.entries, fakeEntry{pos: b.Pos, end: b.Pos + b.Size, first: in.BaseOffset, last: in.LastOffset})
	}
	if st.Err() != nil || len(l.entries) < 2 {
		t.Fatalf("fixture: %v, %d entries", st.Err(), len(l.entries))
	}
	return l
}

func (l *fakeLog) fetch(_ context.Context, offset int64, size int32) (*kmsg.FetchResponseTopicPartition, error) {
	l.calls++
	l.sizes = append(l.sizes, size)
	if l.fail != nil {
		if err := l.fail(l.calls); err != nil {
			return nil, err
		}
	}
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.HighWatermark = l.entries[len(l.entries)-1].last + 1
	for _, e := range l.entries {
		if e.last < offset {
			continue
		}
		end := e.pos + int64(size)
		if !l.cutFirst {
			end = max(end, e.end)
		}
		rp.RecordBatches = l.data[e.pos:min(end, int64(len(l.data)))]
		break
	}
	return &rp, nil
}

func readAll(t *testing.T, l *fakeLog, from, to int64, size int32) ([]byte, *reader, error) {
	t.Helper()
	f := &fetcher{p: partReader{name: "kafka://fake/t-0/x.log", topic: "t", from: from, to: to},
		cfg: Config{FetchBytes: size, Prefetch: 2, Retries: 3}, size: size, do: l.fetch,
		refresh: func(context.Context) error { return nil }}
	r := startReader(f)
	defer r.Close()
	st := segment.NewStream(segment.Source{Name: "wire", R: r, Size: -1}, segment.Options{BlockSize: 4096})
	var out []byte
	for st.Next() {
		b, err := st.Batch().Bytes()
		if err != nil {
			return out, r, err
		}
		out = append(out, b...)
	}
	return out, r, st.Err()
}

// Every fetch size gives back the log byte for byte: torn batches at the
// end of a response are fetched again, batches larger than the size are
// fetched with a larger one, v2 and legacy entries alike.
func TestReaderServesTheLog(t *testing.T) {
	for _, files := range [][]string{
		{"testdata/segments/seed/u05-small-0/00000000000000000000.log"},
		{"testdata/segments/codecs/codec-gzip-0/00000000000000000000.log"},
		{"testdata/legacy/v1gzip-ok-0/00000000000000000009.log"},
		{"testdata/legacy/v0-0/00000000000000000000.log*5"},
		{"testdata/legacy/v1-0/00000000000000000000.log*5"},
	} {
		for _, cut := range []bool{false, true} {
			for _, size := range []int32{1, 61, 300, 4096, 1 << 20} {
				l := newFakeLog(t, files...)
				l.cutFirst = cut
				hw := l.entries[len(l.entries)-1].last + 1
				got, r, err := readAll(t, l, 0, hw, size)
				if err != nil {
					t.Fatalf("%s size %d cut %v: %v", files[0], size, cut, err)
				}
				if !bytes.Equal(got, l.data) {
					t.Fatalf("%s size %d cut %v: %d bytes back, want %d", files[0], size, cut, len(got), len(l.data))
				}
				// The bound: what the reader holds is at most one read
				// (the 4 KiB block or the largest batch) plus one response
				// (of the largest size asked for: it grows while full).
				var largest, asked int64
				for _, e := range l.entries {
					largest = max(largest, e.end-e.pos)
				}
				for _, s := range l.sizes {
					asked = max(asked, int64(s))
				}
				if asked > max(int64(size), adaptiveFetchBytes) && asked > 2*largest {
					t.Fatalf("%s size %d: asked for %d bytes, past the adaptive limit and twice the largest batch (%d)", files[0], size, asked, largest)
				}
				if bound := max(4096, largest) + max(asked, largest); r.peak > bound {
					t.Fatalf("%s size %d: held %d bytes, bound %d", files[0], size, r.peak, bound)
				}
				if cut && size < 61 && !containsGrowth(l.sizes) {
					t.Fatalf("size %d with cut first batches never asked for more: %v", size, l.sizes)
				}
			}
		}
	}
}

// The fetch size grows while responses come back full, up to
// adaptiveFetchBytes (or --fetch-bytes when larger), and a size grown past
// it for one large batch goes back to --fetch-bytes.
func TestNextFetchSize(t *testing.T) {
	f := &fetcher{cfg: Config{FetchBytes: 1 << 20}}
	for _, c := range []struct {
		size int32
		got  int
		want int32
	}{
		{1 << 20, 1 << 20, 2 << 20},
		{1 << 20, 800 << 10, 2 << 20},
		{1 << 20, 700 << 10, 1 << 20},
		{2 << 20, 2 << 20, 4 << 20},
		{4 << 20, 4 << 20, 4 << 20},
		{64 << 20, 60 << 20, 1 << 20},
	} {
		if got := f.nextSize(c.size, c.got); got != c.want {
			t.Errorf("size %d, %d bytes back: next %d, want %d", c.size, c.got, got, c.want)
		}
	}
	big := &fetcher{cfg: Config{FetchBytes: 8 << 20}}
	if got := big.nextSize(8<<20, 8<<20); got != 8<<20 {
		t.Errorf("--fetch-bytes 8 MiB grew to %d", got)
	}
}

func containsGrowth(sizes []int32) bool {
	for i := 1; i < len(sizes); i++ {
		if sizes[i] > sizes[i-1] {
			return true
		}
	}
	return false
}

// [from, to): the batch holding from is the first, the batch holding to-1
// the last.
func TestReaderRange(t *testing.T) {
	l := newFakeLog(t, "testdata/segments/seed/u05-small-0/00000000000000000000.log")
	e := l.entries
	from, to := e[3].first+2, e[7].first+1 // inside batch 3, first offset of batch 7 included
	got, _, err := readAll(t, l, from, to, 500)
	if err != nil {
		t.Fatal(err)
	}
	if want := l.data[e[3].pos:e[7].end]; !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, want %d (batches 3..7)", len(got), len(want))
	}
	got, _, err = readAll(t, l, e[2].first, e[2].first, 500)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty range: %d bytes, %v", len(got), err)
	}
}

// A leader change is retried; an error that persists ends the stream with
// the partition and offset named, never a quiet short read.
func TestReaderErrors(t *testing.T) {
	l := newFakeLog(t, "testdata/segments/seed/u05-small-0/00000000000000000000.log")
	l.fail = func(call int) error {
		if call == 2 {
			return kerr.NotLeaderForPartition
		}
		return nil
	}
	hw := l.entries[len(l.entries)-1].last + 1
	got, _, err := readAll(t, l, 0, hw, 2000)
	if err != nil || !bytes.Equal(got, l.data) {
		t.Fatalf("after one leader change: %d bytes, %v", len(got), err)
	}

	l = newFakeLog(t, "testdata/segments/seed/u05-small-0/00000000000000000000.log")
	l.fail = func(call int) error {
		if call >= 3 {
			return kerr.NotLeaderForPartition
		}
		return nil
	}
	got, _, err = readAll(t, l, 0, hw, 2000)
	if err == nil || !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), "t-0 at offset") {
		t.Fatalf("persistent leader errors: %d bytes, err %v", len(got), err)
	}
	if len(got) == 0 || len(got) >= len(l.data) {
		t.Fatalf("%d bytes before the error", len(got))
	}

	l = newFakeLog(t, "testdata/segments/seed/u05-small-0/00000000000000000000.log")
	l.fail = func(call int) error { return kerr.TopicAuthorizationFailed }
	_, _, err = readAll(t, l, 0, hw, 2000)
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("authorization: %v", err)
	}
}

// A broker whose response breaks the framing (a size field below 14) is
// an error, not a quiet end.
func TestReaderBadFraming(t *testing.T) {
	l := newFakeLog(t, "testdata/segments/seed/u05-small-0/00000000000000000000.log")
	l.data = bytes.Clone(l.data)
	binary.BigEndian.PutUint32(l.data[l.entries[1].pos+8:], 3)
	hw := l.entries[len(l.entries)-1].last + 1
	_, _, err := readAll(t, l, 0, hw, 1<<20)
	if err == nil {
		t.Fatal("no error")
	}
	var rs *segment.RecordSizeError
	if !errors.As(err, &rs) {
		t.Fatalf("%v: want the framing error", err)
	}
	_ = batch.MagicV2
}

// A broker that went down and stays down (every fetch refused, the leader
// still named) fails the partition within Config.Timeout, not after every
// retry's backoff (29 s with 12 retries before the retries were bounded by
// the timeout).
func TestDeadBrokerFailsWithinTimeout(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	f := &fetcher{p: partReader{name: "kafka://fake/t-0/x.log", topic: "t", from: 0, to: 10},
		cfg:  Config{FetchBytes: 1024, Prefetch: 2, Retries: 12, Timeout: 500 * time.Millisecond},
		size: 1024,
		do: func(context.Context, int64, int32) (*kmsg.FetchResponseTopicPartition, error) {
			return nil, refused
		},
		refresh: func(context.Context) error { return nil }}
	start := time.Now()
	_, err := f.fetch(context.Background(), 0)
	took := time.Since(start)
	if err == nil || !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), "500ms") {
		t.Errorf("err %v", err)
	}
	if took > 2*time.Second {
		t.Errorf("failed after %s with a 500ms timeout", took)
	}
}

// A size field that runs past the end of the response while whole
// batches follow it is a corrupt log, not a torn tail: the partition
// fails with the stream's TrailingError (once the bad entry heads a
// response), rather than the fetch size growing for a batch that is not
// there. A response's own torn tail is not checked (it is fetched again).
func TestReaderCorruptLength(t *testing.T) {
	l := newFakeLog(t, "testdata/segments/seed/u05-small-0/00000000000000000000.log")
	l.data = bytes.Clone(l.data)
	binary.BigEndian.PutUint32(l.data[l.entries[1].pos+8:], 50<<20)
	hw := l.entries[len(l.entries)-1].last + 1
	_, _, err := readAll(t, l, 0, hw, 1<<20)
	if !errors.Is(err, segment.ErrTrailingBatches) {
		t.Fatalf("%v: want the trailing-batches error", err)
	}
	for _, s := range l.sizes {
		if s != 1<<20 {
			t.Fatalf("fetch sizes %v: grew for a corrupt length", l.sizes)
		}
	}
}
