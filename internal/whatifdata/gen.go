package whatifdata

import (
	"fmt"
	"math"
	"strings"
)

// rng is splitmix64: small, fixed, the same on every Go version, so a seed gives the same
// schedule and values forever.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a number in (0, 1].
func (r *rng) float() float64 { return float64(r.next()>>11+1) / (1 << 53) }

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// Schedule returns the group's arrival times, in nanoseconds since the first send:
//   - fixed: record i at i × IntervalUs;
//   - poisson: exponential gaps of mean IntervalUs from the seeded generator, the first at 0;
//   - burst: Burst records at once (the thread sends them as fast as it can), bursts GapMs apart
//     (start to start).
func Schedule(g Group) ([]int64, error) {
	a := g.Arrivals
	if g.Records <= 0 {
		return nil, fmt.Errorf("group %s: records must be positive", g.Name)
	}
	out := make([]int64, g.Records)
	switch a.Process {
	case "fixed":
		if a.IntervalUs <= 0 {
			return nil, fmt.Errorf("group %s: fixed arrivals need interval_us", g.Name)
		}
		for i := range out {
			out[i] = int64(math.Round(float64(i) * a.IntervalUs * 1e3))
		}
	case "poisson":
		if a.IntervalUs <= 0 {
			return nil, fmt.Errorf("group %s: poisson arrivals need interval_us (the mean gap)", g.Name)
		}
		r := rng(a.Seed)
		t := 0.0
		for i := range out {
			if i > 0 {
				t += -math.Log(r.float()) * a.IntervalUs * 1e3
			}
			out[i] = int64(math.Round(t))
		}
	case "burst":
		if a.Burst <= 0 || a.GapMs <= 0 {
			return nil, fmt.Errorf("group %s: burst arrivals need burst and gap_ms", g.Name)
		}
		for i := range out {
			out[i] = int64(math.Round(float64(i/a.Burst) * a.GapMs * 1e6))
		}
	default:
		return nil, fmt.Errorf("group %s: unknown arrival process %q", g.Name, a.Process)
	}
	return out, nil
}

// FormatSchedule writes a schedule one offset a line, as ProducerTrace reads it.
func FormatSchedule(at []int64) string {
	var b strings.Builder
	for _, t := range at {
		fmt.Fprintf(&b, "%d\n", t)
	}
	return b.String()
}

var (
	valTypes    = []string{"page_view", "page_view", "page_view", "click", "add_to_cart", "search", "login", "checkout"}
	valCountry  = []string{"US", "US", "DE", "GB", "FR", "IN", "BR", "JP", "NL", "CA"}
	valSections = []string{"home", "category/garden", "category/laptops", "product", "cart", "search", "account", "help"}
	valWords    = strings.Fields("the user opened page after search sort filter product recommended hit miss cart " +
		"session mobile desktop retry slow fast checkout coupon review rating shipping address payment " +
		"declined accepted item list grid banner promo campaign email referral organic")
)

// ValueLines returns n text values, one a line, of min..max bytes each (uniform), JSON-like
// application events (ids, times, users, pages, free words): a batch of them compresses about
// as application logs do, not as repeated bytes.
func ValueLines(n, lo, hi int, seed uint64) []string {
	r := rng(seed)
	out := make([]string, n)
	for i := range out {
		want := lo + r.intn(hi-lo+1)
		var b strings.Builder
		fmt.Fprintf(&b, `{"id":"%016x","ts":"2026-11-01T00:%02d:%02d.%03dZ","type":"%s","user":%d,"country":"%s","page":"/%s/%d","msg":"`,
			r.next(), i/60%60, i%60, r.intn(1000), valTypes[r.intn(len(valTypes))], 10000+r.intn(9000),
			valCountry[r.intn(len(valCountry))], valSections[r.intn(len(valSections))], r.intn(5000))
		for b.Len() < want-2 {
			b.WriteString(valWords[r.intn(len(valWords))])
			b.WriteByte(' ')
		}
		s := b.String()
		if len(s) > want-2 {
			s = s[:want-2]
		}
		out[i] = s + `"}`
	}
	return out
}
