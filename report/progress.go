package report

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Progress draws a one-line scan progress indicator ("\r"-rewritten) on a
// terminal: bytes and batches per second, and an ETA when the total size is
// known. Add is safe for concurrent use and cheap; the line is redrawn at
// most every Interval. A nil *Progress does nothing, so callers can hold
// one unconditionally.
type Progress struct {
	w        io.Writer
	total    int64 // bytes expected; 0 when unknown
	label    string
	start    time.Time
	now      func() time.Time
	Interval time.Duration

	bytes, batches atomic.Int64
	mu             sync.Mutex
	last           time.Time
	drawn          int // width of the last line, to blank it
}

// NewProgress returns a Progress writing to w, or nil when show is false.
// total is the number of bytes the scan will read (0: unknown).
func NewProgress(w io.Writer, show bool, label string, total int64) *Progress {
	if !show {
		return nil
	}
	return &Progress{w: w, total: total, label: label, start: time.Now(), now: time.Now, Interval: 200 * time.Millisecond}
}

// Add records bytes and batches read and redraws when due.
func (p *Progress) Add(bytes, batches int64) {
	if p == nil {
		return
	}
	p.bytes.Add(bytes)
	p.batches.Add(batches)
	now := p.now()
	if !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	if now.Sub(p.last) < p.Interval {
		return
	}
	p.last = now
	p.draw(now)
}

func (p *Progress) draw(now time.Time) {
	line := p.line(now)
	pad := p.drawn - len(line)
	p.drawn = len(line)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
}

// line is the text of the progress line at time now.
func (p *Progress) line(now time.Time) string {
	el := now.Sub(p.start).Seconds()
	b, n := p.bytes.Load(), p.batches.Load()
	var bps, nps float64
	if el > 0 {
		bps, nps = float64(b)/el, float64(n)/el
	}
	s := fmt.Sprintf("%s: %s, %d batches, %s/s, %.0f batches/s", p.label, humanBytes(float64(b)), n, humanBytes(bps), nps)
	if p.total > 0 {
		pct := 100 * float64(b) / float64(p.total)
		s += fmt.Sprintf(", %.0f%%", min(pct, 100))
		if bps > 0 && b < p.total {
			eta := time.Duration(float64(p.total-b) / bps * float64(time.Second)).Round(time.Second)
			s += ", ETA " + eta.String()
		}
	}
	return s
}

// Done clears the progress line.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.drawn, "")
		p.drawn = 0
	}
}

func humanBytes(v float64) string {
	const unit = 1024
	if v < unit {
		return fmt.Sprintf("%.0f B", v)
	}
	units := "KMGTPE"
	i := 0
	for v >= unit*unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v/unit, units[i])
}

// ShowProgress tells whether to draw progress: only when stderr is a
// terminal and not quiet, and, for a command whose output is the scan
// itself (needStdoutNotTTY), when stdout is not a terminal.
func ShowProgress(stdout, stderr io.Writer, quiet, needStdoutNotTTY bool) bool {
	if quiet {
		return false
	}
	ef, ok := stderr.(*os.File)
	if !ok || !isTerminal(ef) {
		return false
	}
	if needStdoutNotTTY {
		of, ok := stdout.(*os.File)
		if ok && isTerminal(of) {
			return false
		}
	}
	return true
}
