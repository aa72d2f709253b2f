package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/producer"
)

const whatifLog = "../testdata/explain-oracle/e-s3-b4096-l5-i200"

// kseg whatif's text: the original settings as given, the new ones, the
// fitted sender and the self-check, a row per partition and the topic's.
func TestWhatifText(t *testing.T) {
	stdout, stderr, code := runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--was", "batch.size=4096", "--set", "linger.ms=20", "--runs", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"topic e-s3-b4096-l5-i200: 600 records, 3 partitions (0,1,2 given), 1 producer session",
		"original settings (given): batch.size=4096 linger.ms=5 compression.type=none",
		"new settings: linger.ms=20",
		"sender fitted to the log: lag ",
		"self-check, the replay under the original settings: ",
		"for the log's 30 (",
		"re-spread by the sticky partitioner",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	rows := 0
	for _, l := range strings.Split(stdout, "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && (f[0] == "0" || f[0] == "1" || f[0] == "2" || f[0] == "topic") && strings.HasPrefix(f[4], "[") {
			rows++
		}
	}
	if rows != 4 {
		t.Errorf("%d partition and topic rows, want 4:\n%s", rows, stdout)
	}
}

// A replay that misses the log's own batch count says its medians are not
// to be trusted: here the original settings given are not the log's
// (written at linger.ms=5, batch.size=4096: at 1024 the replay has 2.5
// times its batches). At the log's own settings the replay reproduces its
// 30 batches at 30, 40, 50 and 200 runs; at 20 its four plausible senders
// take 5 speed strata each, and the median comes out at 32.
func TestWhatifSelfCheckWarning(t *testing.T) {
	const warning = "warning: the replay misses the log's own batch count"
	stdout, stderr, code := runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--was", "batch.size=1024", "--set", "linger.ms=20", "--runs", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, warning) {
		t.Errorf("wrong original settings, no warning:\n%s", stdout)
	}
	stdout, _, _ = runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--was", "batch.size=4096", "--set", "linger.ms=20", "--runs", "40")
	if strings.Contains(stdout, warning) {
		t.Errorf("the log's own settings, yet a warning:\n%s", stdout)
	}
}

// A codec change says what the replay does with the codecs' first use;
// the same codec says nothing of it.
func TestWhatifCodecFirstUseText(t *testing.T) {
	stdout, stderr, code := runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--was", "batch.size=4096", "--set", "compression.type=lz4", "--runs", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "gives each producer session's first send lz4's load (43 ms)"; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "out of the log's arrivals") {
		t.Errorf("a log without a codec has no load to take out:\n%s", stdout)
	}
	stdout, _, _ = runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--was", "batch.size=4096", "--set", "linger.ms=20", "--runs", "10")
	if strings.Contains(stdout, "first use") {
		t.Errorf("no codec change, yet:\n%s", stdout)
	}
}

// Without --was the original settings are explain's, printed with their
// confidence and marked inferred in the JSON.
func TestWhatifInferred(t *testing.T) {
	stdout, stderr, code := runKseg(t, "whatif", whatifLog, "--set", "linger.ms=20", "--runs", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "original settings (inferred by explain, no --was):") || !strings.Contains(stdout, "batch.size=4096  [") {
		t.Errorf("no inferred settings:\n%s", stdout)
	}
	stdout, _, code = runKseg(t, "whatif", "--json", whatifLog, "--set", "linger.ms=20", "--runs", "10")
	if code != 0 || !strings.Contains(stdout, `"inferred":true`) {
		t.Errorf("exit %d, JSON not marked inferred:\n%s", code, stdout)
	}
}

type quant struct{ Min, P5, P50, P95, Max *int }

type whatifLine struct {
	Type      string             `json:"type"`
	Topic     string             `json:"topic"`
	Partition *int               `json:"partition"`
	Settings  map[string]any     `json:"settings"`
	Inferred  *bool              `json:"inferred"`
	Sender    map[string]float64 `json:"sender"`
	Error     *struct {
		Batches         *float64 `json:"batches"`
		RecordsPerBatch *float64 `json:"records_per_batch"`
	} `json:"replay_error"`
	Log *struct {
		Batches         *int64   `json:"batches"`
		Records         *int64   `json:"records"`
		RecordsPerBatch *float64 `json:"records_per_batch"`
	} `json:"log"`
	Replay *struct {
		Batches *quant `json:"batches"`
	} `json:"replay"`
	Predicted *struct {
		Batches         *quant             `json:"batches"`
		RecordsPerBatch map[string]float64 `json:"records_per_batch"`
		RequestsP50     *int               `json:"requests_p50"`
	} `json:"predicted"`
}

// kseg whatif --json: calibration, a whatif object per partition, then
// whatif_topic, with the field names and nesting.
func TestWhatifJSON(t *testing.T) {
	stdout, stderr, code := runKseg(t, "whatif", "--json", whatifLog, "--was", "linger.ms=5", "--was", "batch.size=4096", "--set", "linger.ms=20", "--runs", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var lines []whatifLine
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var x whatifLine
		dec := json.NewDecoder(strings.NewReader(l))
		if err := dec.Decode(&x); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		lines = append(lines, x)
	}
	if len(lines) != 5 || lines[0].Type != "calibration" || lines[1].Type != "whatif" || lines[3].Type != "whatif" || lines[4].Type != "whatif_topic" {
		t.Fatalf("want calibration, 3 whatif, whatif_topic:\n%s", stdout)
	}
	c := lines[0]
	if c.Topic != "e-s3-b4096-l5-i200" || c.Settings["linger.ms"] != 5.0 || c.Settings["batch.size"] != 4096.0 || c.Inferred == nil || *c.Inferred ||
		c.Error == nil || c.Error.Batches == nil || c.Error.RecordsPerBatch == nil {
		t.Errorf("calibration: %+v", c)
	}
	for _, k := range []string{"lag_ms", "close_ms", "rtt_ms"} {
		if _, ok := c.Sender[k]; !ok {
			t.Errorf("sender lacks %s: %v", k, c.Sender)
		}
	}
	full := func(q *quant) bool {
		return q != nil && q.Min != nil && q.P5 != nil && q.P50 != nil && q.P95 != nil && q.Max != nil && *q.Min <= *q.P5 && *q.P5 <= *q.P50 && *q.P50 <= *q.P95 && *q.P95 <= *q.Max
	}
	var sum int64
	for i, l := range lines[1:4] {
		if l.Partition == nil || *l.Partition != i || l.Log == nil || l.Log.Batches == nil || l.Log.Records == nil || l.Log.RecordsPerBatch == nil ||
			l.Replay == nil || !full(l.Replay.Batches) || l.Predicted == nil || !full(l.Predicted.Batches) || l.Predicted.RequestsP50 == nil || len(l.Predicted.RecordsPerBatch) != 3 {
			t.Errorf("whatif line %d: %+v", i, l)
			continue
		}
		sum += *l.Log.Batches
	}
	tl := lines[4]
	if tl.Log == nil || tl.Log.Batches == nil || *tl.Log.Batches != sum || tl.Replay == nil || !full(tl.Replay.Batches) || tl.Predicted == nil || !full(tl.Predicted.Batches) {
		t.Errorf("whatif_topic: %+v (partitions sum to %d)", tl, sum)
	}
}

// writeLog writes one partition directory topic-0 under dir with a
// batch per element of batches: each inner slice the record timestamps,
// with the timestamp type.
func writeLog(t *testing.T, dir string, tsType batch.TimestampType, batches [][]int64) string {
	t.Helper()
	pd := filepath.Join(dir, "ts-0")
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	var out []byte
	var off int64
	for _, ts := range batches {
		b := batch.NewBuilder(batch.CodecNone)
		for _, x := range ts {
			b.Append(x, nil, []byte("value"), nil)
		}
		h := batch.Header{BaseOffset: off, ProducerID: 7, BaseSequence: int32(off)}
		if tsType == batch.LogAppendTime {
			h.Attributes |= 1 << 3
			h.MaxTimestamp = ts[len(ts)-1]
		}
		var err error
		out, err = b.Build(out, h, nil)
		if err != nil {
			t.Fatal(err)
		}
		off += int64(len(ts))
	}
	if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return pd
}

// Timestamps that are not send() times are refused (exit 3) with the
// evidence named; --synthetic replays a fitted workload instead and says so.
func TestWhatifRefusals(t *testing.T) {
	seq := func(from, n, step int64) []int64 {
		var out []int64
		for i := range n {
			out = append(out, from+i*step)
		}
		return out
	}
	var backwards, instant [][]int64
	for i := range int64(20) {
		backwards = append(backwards, seq(1_700_000_000_000-i*5000, 10, 1))
		instant = append(instant, seq(1_700_000_000_000, 10, 0))
	}
	tests := []struct {
		name    string
		tsType  batch.TimestampType
		batches [][]int64
		want    string
	}{
		{"log append time", batch.LogAppendTime, [][]int64{seq(1_700_000_000_000, 10, 1)}, "LogAppendTime"},
		{"explicit timestamps", batch.CreateTime, backwards, "explicit timestamps that do not follow the offsets"},
		{"one instant", batch.CreateTime, instant, "every record of 20 batches (of 20) has one timestamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pd := writeLog(t, t.TempDir(), tc.tsType, tc.batches)
			_, stderr, code := runKseg(t, "whatif", pd, "--was", "linger.ms=5", "--set", "linger.ms=20", "--runs", "5")
			if code != ExitBadInput || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "--synthetic") {
				t.Errorf("exit %d, stderr %q: want exit 3 naming %q", code, stderr, tc.want)
			}
			stdout, stderr, code := runKseg(t, "whatif", pd, "--was", "linger.ms=5", "--set", "linger.ms=20", "--runs", "5", "--synthetic")
			if code != 0 || !strings.Contains(stdout, "--synthetic: replaying a workload fitted to the log") || !strings.Contains(stdout, tc.want) {
				t.Errorf("--synthetic: exit %d %s\n%s", code, stderr, stdout)
			}
		})
	}
}

// Settings: a bad value is a usage error naming its key; keys the model
// does not use are listed once on stderr; a new setting is required.
func TestWhatifSettings(t *testing.T) {
	_, stderr, code := runKseg(t, "whatif", whatifLog, "--set", "linger.ms=soon")
	if code != ExitUsage || !strings.Contains(stderr, "linger.ms") {
		t.Errorf("bad value: exit %d, %q", code, stderr)
	}
	_, stderr, code = runKseg(t, "whatif", whatifLog, "--was", "batch.size=-4", "--set", "linger.ms=1")
	if code != ExitUsage || !strings.Contains(stderr, "batch.size") {
		t.Errorf("bad --was value: exit %d, %q", code, stderr)
	}
	_, stderr, code = runKseg(t, "whatif", whatifLog)
	if code != ExitUsage || !strings.Contains(stderr, "--set") {
		t.Errorf("no new setting: exit %d, %q", code, stderr)
	}
	_, stderr, code = runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--was-config", "x", "--set", "linger.ms=1")
	if code != ExitUsage {
		t.Errorf("--was with --was-config: exit %d, %q", code, stderr)
	}
	cfg := filepath.Join(t.TempDir(), "new.properties")
	os.WriteFile(cfg, []byte("# new\nlinger.ms=20\nbootstrap.servers=localhost:9092\nkey.serializer=x\n"), 0o644)
	stdout, stderr, code := runKseg(t, "whatif", whatifLog, "--was", "linger.ms=5", "--config", cfg, "--set", "retries=3", "--runs", "5")
	if code != 0 || strings.Count(stderr, "ignored") != 1 || !strings.Contains(stderr, "bootstrap.servers, key.serializer, retries") {
		t.Errorf("ignored keys: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "new settings: linger.ms=20") {
		t.Errorf("--config not applied:\n%s", stdout)
	}
}

// --save-timing writes the fitted sender as a profile kseg produce takes
// (its provenance says what it was fitted to), and replaces a file only
// with --force.
func TestWhatifSaveTiming(t *testing.T) {
	log := filepath.Join(modRoot(t), "testdata", "explain-oracle", "e-none-l5-i200")
	prof := filepath.Join(t.TempDir(), "fitted.json")
	args := []string{"whatif", log, "--was", "linger.ms=5", "--set", "linger.ms=20", "--runs", "10", "--save-timing", prof}
	if _, stderr, code := runKseg(t, args...); code != 0 || !strings.Contains(stderr, "timing profile") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, err := producer.ReadProfile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Provenance.Data, "e-none-l5-i200") || p.Timing.WakeLatency <= 0 || p.RTT <= 0 {
		t.Errorf("profile %+v", p)
	}
	if _, stderr, code := runKseg(t, "produce", "--timing", prof, "--records", "100", "--dry-run"); code != 0 {
		t.Errorf("produce --timing the fitted profile: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runKseg(t, args...); code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("an existing profile without --force: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runKseg(t, append(args, "--force")...); code != 0 {
		t.Errorf("with --force: exit %d: %s", code, stderr)
	}
}
