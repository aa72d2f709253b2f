package source

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the current GOGC setting.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestWireGC: an open cluster raises GOGC and sets a soft memory limit
// unless the environment sets them, and the set's Close restores both.
func TestWireGC(t *testing.T) {
	cases := []struct {
		name, gogc, memlimit string
		wantGC               int
		wantLimit            int64
	}{
		{"defaults", "", "", wireGCPercent, wireMemLimit},
		{"GOGC set", "150", "", 150, wireMemLimit},
		{"both set", "150", "1GiB", 150, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOGC", c.gogc)
			t.Setenv("GOMEMLIMIT", c.memlimit)
			defer debug.SetGCPercent(debug.SetGCPercent(150))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
			before, beforeLimit := gcPercent(), debug.SetMemoryLimit(-1)
			s := New(Options{})
			s.gc = wireGC()
			if got := gcPercent(); got != c.wantGC {
				t.Errorf("GOGC %d while open, want %d", got, c.wantGC)
			}
			want := c.wantLimit
			if want < 0 {
				want = beforeLimit
			}
			if got := debug.SetMemoryLimit(-1); got != want {
				t.Errorf("memory limit %d while open, want %d", got, want)
			}
			s.Close()
			if gcPercent() != before || debug.SetMemoryLimit(-1) != beforeLimit {
				t.Errorf("Close left GOGC %d, limit %d; want %d, %d", gcPercent(), debug.SetMemoryLimit(-1), before, beforeLimit)
			}
		})
	}
}
