package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for Progress.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestProgress(total int64) (*Progress, *bytes.Buffer, *fakeClock) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p := NewProgress(&buf, true, "scan", total)
	p.start, p.now = clk.t, clk.now
	return p, &buf, clk
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name         string
		total        int64
		bytes, nb    int64
		after        time.Duration
		wantParts    []string
		wantNotParts []string
	}{
		{"rates and ETA", 4 << 20, 1 << 20, 100, 2 * time.Second,
			[]string{"scan: 1.0 MiB", "100 batches", "512.0 KiB/s", "50 batches/s", "25%", "ETA 6s"}, nil},
		{"unknown total has no ETA", 0, 2048, 3, time.Second,
			[]string{"2.0 KiB", "3 batches/s"}, []string{"ETA", "%"}},
		{"done has no ETA", 10, 10, 1, time.Second, []string{"100%"}, []string{"ETA"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _, clk := newTestProgress(tc.total)
			clk.t = clk.t.Add(tc.after)
			p.Add(tc.bytes, tc.nb)
			line := p.line(clk.t)
			for _, w := range tc.wantParts {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			for _, w := range tc.wantNotParts {
				if strings.Contains(line, w) {
					t.Errorf("line %q has %q", line, w)
				}
			}
		})
	}
}

// Redraws are throttled to one per Interval, each starts with \r, and Done
// blanks the line.
func TestProgressThrottle(t *testing.T) {
	p, buf, clk := newTestProgress(0)
	for i := 0; i < 100; i++ { // 100 adds over 1s: 10ms apart
		clk.t = clk.t.Add(10 * time.Millisecond)
		p.Add(1, 1)
	}
	draws := strings.Count(buf.String(), "\r")
	if want := int(time.Second / p.Interval); draws != want {
		t.Errorf("%d redraws in 1s, want %d (interval %v)", draws, want, p.Interval)
	}
	p.Done()
	out := buf.String()
	last := out[strings.LastIndexByte(out[:len(out)-1], '\r'):]
	if strings.TrimSpace(strings.Trim(last, "\r")) != "" || !strings.HasSuffix(out, "\r") {
		t.Errorf("Done did not blank the line: %q", last)
	}
}

func TestProgressNil(t *testing.T) {
	p := NewProgress(&bytes.Buffer{}, false, "x", 0)
	if p != nil {
		t.Fatal("NewProgress(show=false) is not nil")
	}
	p.Add(1, 1) // must not panic
	p.Done()
}

// /dev/null is a character device, not a terminal: no progress for
// `kseg dump big/ > /dev/null` run from a pipe.
func TestIsTerminalDevNull(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("/dev/null reported as a terminal")
	}
}
