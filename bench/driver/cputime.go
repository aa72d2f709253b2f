package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the process's CPU time, all threads
// (CLOCK_PROCESS_CPUTIME_ID). On a shared machine wall time mostly
// measures the other tenants; CPU seconds measure the code, and count
// the work of every goroutine (read-ahead, GC) too.
func processCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// clock measures both.
type clock struct {
	wall time.Time
	cpu  time.Duration
}

func startClock() clock { return clock{time.Now(), processCPU()} }

// stop returns wall and CPU seconds since start.
func (c clock) stop() (wall, cpu float64) {
	return time.Since(c.wall).Seconds(), (processCPU() - c.cpu).Seconds()
}
