package audit

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// RunPartitions audits ps with workers goroutines (<= 0: GOMAXPROCS), one
// partition at a time each, as Run would one after another. The results
// are in the order of ps. On failure it returns the error of the first
// failing partition in that order; partitions after it that were not yet
// started are not audited.
func RunPartitions(ps []*Partition, workers int, opts Options) ([]*Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(ps), 1))
	out := make([]*Result, len(ps))
	errs := make([]error, len(ps))
	if workers == 1 {
		for i, p := range ps {
			if out[i], errs[i] = Run(p, opts); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return out, nil
	}
	// Workers take the next partition from a shared counter (a channel
	// woke a parked goroutine per partition, which on many small
	// partitions cost more than auditing them); after a failure no
	// partition is started.
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(ps) {
					return
				}
				if out[i], errs[i] = Run(ps[i], opts); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
