package main

import (
	"maps"
	"os"

	"github.com/kseg/kseg/internal/whatifdata"
)

// The value file every group sends (testdata/whatif/values.txt): record i gets line i mod 500.
var values = whatifdata.Values{File: "values.txt", Lines: 500, MinBytes: 100, MaxBytes: 300, Seed: 25}

// base are the properties every setting lists (each setting changes one or two of them).
func props(linger, batch int, codec, acks string) map[string]string {
	return map[string]string{
		"linger.ms":        itoa(linger),
		"batch.size":       itoa(batch),
		"compression.type": codec,
		"acks":             acks,
	}
}

// set is a setting of a group.
func set(name string, p map[string]string) whatifdata.Setting {
	return whatifdata.Setting{Name: name, Props: p}
}

// with returns a copy of p with the given key/value pairs changed.
func with(p map[string]string, kv ...string) map[string]string {
	q := maps.Clone(p)
	for i := 0; i+1 < len(kv); i += 2 {
		q[kv[i]] = kv[i+1]
	}
	return q
}

// groups are the set KSEG_WHATIF_SET names: the committed one (testdata/whatif) by default,
// "long" (longGroups), "heldout" (heldoutGroups), "heldout2" (heldout2Groups) or "heldout3"
// (heldout3Groups).
func groups() []whatifdata.Group {
	switch os.Getenv("KSEG_WHATIF_SET") {
	case "long":
		return longGroups()
	case "heldout":
		return heldoutGroups()
	case "heldout2":
		return heldout2Groups()
	case "heldout3":
		return heldout3Groups()
	}
	return shortGroups()
}

// heldoutGroups are long runs (about 5 s each) of arrivals and settings no other set has, made
// after the model was frozen and scored once: testdata/whatif-heldout
// (oracle/regen/whatif-data.sh --set heldout --out testdata/whatif-heldout). Nothing in the model
// or its calibration was chosen by looking at them.
func heldoutGroups() []whatifdata.Group {
	b := props(5, 16384, "none", "all")
	f := with(props(2, 16384, "none", "all"), "max.in.flight.requests.per.connection", "5")
	p := props(20, 16384, "lz4", "all")
	return []whatifdata.Group{
		{
			Name: "ho-burst-p4", Arrivals: whatifdata.Arrivals{Process: "burst", Burst: 200, GapMs: 250, Seed: 41},
			Records: 4000, Partitions: 4,
			Settings: []whatifdata.Setting{set("base", b), set("linger50", with(b, "linger.ms", "50")),
				set("gzip", with(b, "compression.type", "gzip"))},
		},
		{
			Name: "ho-fixed-400us-p2-keyed", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 400, Seed: 43},
			Records: 12000, Partitions: 2, Keyed: true, Keys: 16,
			Settings: []whatifdata.Setting{set("base", f), set("linger10", with(f, "linger.ms", "10")),
				set("inflight1", with(f, "max.in.flight.requests.per.connection", "1"))},
		},
		{
			Name: "ho-poisson-250us-p6", Arrivals: whatifdata.Arrivals{Process: "poisson", IntervalUs: 250, Seed: 47},
			Records: 20000, Partitions: 6,
			Settings: []whatifdata.Setting{set("base", p), set("batch64k", with(p, "batch.size", "65536")),
				set("linger1", with(p, "linger.ms", "1"))},
		},
	}
}

// heldout2Groups are a second held-out set: the first had been read while the model changed
// (docs/calibration.md, "A second held-out set"). Long runs (about 5 s each) of arrival
// processes, codecs and settings no other set has (snappy, a 200 µs rate over 5 partitions,
// bursts of 100 every 40 ms), made after the two-order fit and scored once:
// testdata/whatif-heldout2 (oracle/regen/whatif-data.sh --set heldout2 --out
// testdata/whatif-heldout2). Nothing in the model or its calibration was chosen by looking at
// them.
func heldout2Groups() []whatifdata.Group {
	k := props(5, 16384, "none", "all")
	z := props(10, 16384, "zstd", "all")
	b := props(1, 16384, "none", "all")
	return []whatifdata.Group{
		{
			Name: "ho2-poisson-700us-p3-keyed", Arrivals: whatifdata.Arrivals{Process: "poisson", IntervalUs: 700, Seed: 53},
			Records: 8000, Partitions: 3, Keyed: true, Keys: 32,
			Settings: []whatifdata.Setting{set("base", k), set("linger25", with(k, "linger.ms", "25")),
				set("snappy", with(k, "compression.type", "snappy"))},
		},
		{
			Name: "ho2-fixed-200us-p5", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 200, Seed: 59},
			Records: 25000, Partitions: 5,
			Settings: []whatifdata.Setting{set("base", z), set("batch32k", with(z, "batch.size", "32768")),
				set("linger0", with(z, "linger.ms", "0"))},
		},
		{
			Name: "ho2-burst-p2-keyed", Arrivals: whatifdata.Arrivals{Process: "burst", Burst: 100, GapMs: 40, Seed: 61},
			Records: 12000, Partitions: 2, Keyed: true, Keys: 8,
			Settings: []whatifdata.Setting{set("base", b), set("linger20", with(b, "linger.ms", "20")),
				set("acks1", with(b, "acks", "1"))},
		},
	}
}

// heldout3Groups are a third held-out set: the second had been read while the model changed
// (docs/calibration.md, "A third held-out set"). Runs of 3–5 s of what no other set has: 8 keyed
// partitions, gzip at linger.ms 100, lz4 over unkeyed partitions at a 150 µs rate with
// batch.size 65536 and linger.ms 0, bursts of 300 over 5 unkeyed partitions at linger.ms 2 and
// 15. Made with the model as it stood at main 8da0b64 and scored once:
// testdata/whatif-heldout3 (oracle/regen/whatif-data.sh --set heldout3 --out
// testdata/whatif-heldout3). Nothing in the model or its calibration was chosen by looking at
// them.
func heldout3Groups() []whatifdata.Group {
	k := props(10, 16384, "gzip", "all")
	u := props(5, 16384, "lz4", "all")
	b := props(2, 16384, "none", "all")
	return []whatifdata.Group{
		{
			Name: "ho3-poisson-400us-p8-keyed", Arrivals: whatifdata.Arrivals{Process: "poisson", IntervalUs: 400, Seed: 67},
			Records: 10000, Partitions: 8, Keyed: true, Keys: 64,
			Settings: []whatifdata.Setting{set("base", k), set("linger100", with(k, "linger.ms", "100")),
				set("none", with(k, "compression.type", "none"))},
		},
		{
			Name: "ho3-fixed-150us-p3", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 150, Seed: 71},
			Records: 20000, Partitions: 3,
			Settings: []whatifdata.Setting{set("base", u), set("batch64k", with(u, "batch.size", "65536")),
				set("linger0", with(u, "linger.ms", "0"))},
		},
		{
			Name: "ho3-burst-p5", Arrivals: whatifdata.Arrivals{Process: "burst", Burst: 300, GapMs: 100, Seed: 73},
			Records: 15000, Partitions: 5,
			Settings: []whatifdata.Setting{set("base", b), set("linger15", with(b, "linger.ms", "15")),
				set("batch32k", with(b, "batch.size", "32768"))},
		},
	}
}

// longGroups run 5–6 s each, where a cold JVM's first few hundred milliseconds are a small part
// of the run: testdata/whatif-long (oracle/regen/whatif-data.sh --set long --out
// testdata/whatif-long).
func longGroups() []whatifdata.Group {
	k := props(5, 16384, "none", "all")
	u := props(10, 16384, "none", "all")
	return []whatifdata.Group{
		{
			Name: "long-fixed-1ms-p4-keyed", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 1000, Seed: 31},
			Records: 6000, Partitions: 4, Keyed: true, Keys: 64,
			Settings: []whatifdata.Setting{set("base", k), set("linger20", with(k, "linger.ms", "20")),
				set("lz4", with(k, "compression.type", "lz4"))},
		},
		{
			Name: "long-poisson-500us-p3", Arrivals: whatifdata.Arrivals{Process: "poisson", IntervalUs: 500, Seed: 37},
			Records: 10000, Partitions: 3,
			Settings: []whatifdata.Setting{set("base", u), set("linger0", with(u, "linger.ms", "0")),
				set("zstd", with(u, "compression.type", "zstd"))},
		},
	}
}

// shortGroups: a fixed arrival schedule each, run under 3 settings; the first is the group's base
// and each other changes one thing from it. Sizes keep a run to about 0.6–1.2 s of sending and the
// recorded logs small.
func shortGroups() []whatifdata.Group {
	g1 := props(5, 16384, "none", "all")
	g2 := props(10, 16384, "none", "all")
	g3 := props(20, 16384, "zstd", "all")
	g4 := props(5, 16384, "none", "all")
	g5 := props(10, 16384, "gzip", "all")
	g6 := props(5, 16384, "none", "all")
	return []whatifdata.Group{
		{
			Name: "fixed-100us-p1", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 100, Seed: 1},
			Records: 6000, Partitions: 1,
			Settings: []whatifdata.Setting{set("base", g1), set("linger0", with(g1, "linger.ms", "0")),
				set("linger20", with(g1, "linger.ms", "20"))},
		},
		{
			Name: "fixed-500us-p4-keyed", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 500, Seed: 2},
			Records: 2000, Partitions: 4, Keyed: true, Keys: 64,
			Settings: []whatifdata.Setting{set("base", g2), set("lz4", with(g2, "compression.type", "lz4")),
				set("acks1", with(g2, "acks", "1"))},
		},
		{
			Name: "fixed-2ms-p2", Arrivals: whatifdata.Arrivals{Process: "fixed", IntervalUs: 2000, Seed: 3},
			Records: 600, Partitions: 2,
			Settings: []whatifdata.Setting{set("base", g3), set("linger100", with(g3, "linger.ms", "100")),
				set("none", with(g3, "compression.type", "none"))},
		},
		{
			Name: "poisson-300us-p8", Arrivals: whatifdata.Arrivals{Process: "poisson", IntervalUs: 300, Seed: 11},
			Records: 3500, Partitions: 8,
			Settings: []whatifdata.Setting{set("base", g4), set("linger20", with(g4, "linger.ms", "20")),
				set("batch32k", with(g4, "batch.size", "32768"))},
		},
		{
			Name: "poisson-1ms-p3-keyed", Arrivals: whatifdata.Arrivals{Process: "poisson", IntervalUs: 1000, Seed: 23},
			Records: 1200, Partitions: 3, Keyed: true, Keys: 24,
			Settings: []whatifdata.Setting{set("base", g5), set("linger50", with(g5, "linger.ms", "50")),
				set("batch64k", with(g5, "batch.size", "65536"))},
		},
		{
			Name: "burst-p6", Arrivals: whatifdata.Arrivals{Process: "burst", Burst: 250, GapMs: 120, Seed: 4},
			Records: 1500, Partitions: 6,
			Settings: []whatifdata.Setting{set("base", g6), set("linger0", with(g6, "linger.ms", "0")),
				set("snappy", with(g6, "compression.type", "snappy"))},
		},
	}
}
