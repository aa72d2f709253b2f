package producer

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kseg/kseg/batch"
)

// Every Timing constant has a profile key: a field added to Timing without
// one could be neither written, read nor set.
func TestTimingParamsCoverTiming(t *testing.T) {
	var tm Timing
	base := reflect.ValueOf(&tm).Elem()
	covered := map[uintptr]string{}
	for _, p := range timingParams {
		addr := reflect.ValueOf(p.ptr(&tm)).Pointer()
		if prev, dup := covered[addr]; dup {
			t.Errorf("%s and %s set the same field", prev, p.key)
		}
		covered[addr] = p.key
	}
	for i := range base.NumField() {
		f := base.Type().Field(i)
		if f.Name == "Codecs" {
			continue
		}
		if _, ok := covered[base.Field(i).Addr().Pointer()]; !ok {
			t.Errorf("Timing.%s has no profile key in timingParams", f.Name)
		}
	}
	var cc CodecCosts
	if n := reflect.TypeOf(cc).NumField(); n != len(codecParams) {
		t.Errorf("CodecCosts has %d fields, codecParams %d keys", n, len(codecParams))
	}
}

// The embedded default states its provenance and holds the constants the
// model was calibrated with (docs/calibration.md): moving them into a
// profile changed none.
func TestDefaultProfile(t *testing.T) {
	p := DefaultProfile()
	pv := p.Provenance
	for name, s := range map[string]string{"kafka": pv.Kafka, "jdk": pv.JDK, "machine": pv.Machine, "date": pv.Date, "data": pv.Data, "method": pv.Method, "fit": pv.Fit, "held_out": pv.HeldOut} {
		if strings.TrimSpace(s) == "" {
			t.Errorf("default profile: provenance %s is empty", name)
		}
	}
	if p.RTT != 9*time.Millisecond || p.CodecSizeFactor != 0 {
		t.Errorf("rtt %v, codec-size-factor %v", p.RTT, p.CodecSizeFactor)
	}
	tm := p.Timing
	for _, c := range []struct {
		key       string
		got, want any
	}{
		{"send-cost", tm.SendCost, 4 * time.Microsecond},
		{"batch-cost", tm.BatchCost, time.Duration(-1)},
		{"warmup-sends", tm.WarmupSends, 900},
		{"wake-latency", tm.WakeLatency, 6141 * time.Microsecond},
		{"cold-close", tm.ColdClose, 20798 * time.Microsecond},
		{"sender-jitter", tm.SenderJitter, 1.359},
		{"idle-pause-every", tm.IdlePauseEvery, 95.3},
		{"request-pause", tm.RequestPause, 500 * time.Microsecond},
		{"poll-granularity", tm.PollGranularity, time.Millisecond},
		{"zstd.batch-cost", tm.Codecs[batch.CodecZstd].BatchCost, 170 * time.Microsecond},
		{"snappy.codec-load", tm.Codecs[batch.CodecSnappy].Load, 50 * time.Millisecond},
		{"lz4.close-cost-per-kb", tm.Codecs[batch.CodecLZ4].ClosePerKB, 25 * time.Microsecond},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.key, c.got, c.want)
		}
	}
	if DefaultConfig().Timing != tm {
		t.Error("DefaultConfig's timing is not the default profile's")
	}
}

// WriteProfile then ReadProfile gives the same profile back.
func TestProfileRoundTrip(t *testing.T) {
	p := DefaultProfile()
	for _, kv := range []string{"wake-latency=2.5ms", "batch-cost=200us", "zstd.codec-load=60ms", "rtt=4ms", "codec-size-factor=1.02", "warmup-sends=700", "jitter=0.5"} {
		if err := p.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	p.Name = "fitted"
	path := filepath.Join(t.TempDir(), "p.json")
	if err := WriteProfile(path, p); err != nil {
		t.Fatal(err)
	}
	got, err := ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Errorf("read back %+v\nwrote %+v", got, p)
	}
	want := []string{"batch-cost=200µs", "jitter=0.5", "warmup-sends=700", "wake-latency=2.5ms", "rtt=4ms", "codec-size-factor=1.02", "zstd.codec-load=60ms"}
	if d := got.Differences(DefaultProfile()); !reflect.DeepEqual(sortedCopy(d), sortedCopy(want)) {
		t.Errorf("Differences = %v, want %v", d, want)
	}
	// The embedded file is what Encode writes: it can be regenerated.
	var b bytes.Buffer
	if err := DefaultProfile().Encode(&b); err != nil {
		t.Fatal(err)
	}
	if again, err := parseProfile(b.Bytes()); err != nil || !reflect.DeepEqual(again, DefaultProfile()) {
		t.Errorf("default profile does not survive Encode: %v", err)
	}
}

// A profile saved before broker-serial-share or measured-drain-close
// existed loads, with the model as it was then (a broker overlapping
// requests, no measured close in the drain); a profile missing a
// constant that was always there is refused.
func TestProfileWithoutLaterKey(t *testing.T) {
	var b bytes.Buffer
	if err := DefaultProfile().Encode(&b); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"broker-serial-share", "measured-drain-close"} {
		old := strings.Replace(b.String(), ",\n    \""+key+"\": 0", "", 1)
		if old == b.String() {
			t.Fatalf("the encoded profile has no %s line", key)
		}
		p, err := parseProfile([]byte(old))
		if err != nil {
			t.Fatalf("a profile without %s: %v", key, err)
		}
		if p.Timing.BrokerSerialShare != 0 || p.Timing.MeasuredDrainClose != 0 {
			t.Errorf("without %s: broker-serial-share %v, measured-drain-close %d, want 0", key, p.Timing.BrokerSerialShare, p.Timing.MeasuredDrainClose)
		}
	}
	if _, err := parseProfile([]byte(strings.Replace(b.String(), "\"rtt-jitter\": 0.1812,", "", 1))); err == nil || !strings.Contains(err.Error(), "rtt-jitter") {
		t.Errorf("a profile without rtt-jitter: %v, want an error naming it", err)
	}
	if _, err := parseProfile([]byte(strings.Replace(b.String(), "\"measured-drain-close\": 0", "\"measured-drain-close\": 2", 1))); err == nil {
		t.Error("measured-drain-close 2 loads, want an error")
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func TestProfileSetErrors(t *testing.T) {
	for _, tc := range []struct{ kv, want string }{
		{"wake-latency", "want KEY=VALUE"},
		{"no-such=1", `no timing constant "no-such"`},
		{"wake-latency=fast", "want a duration"},
		{"wake-latency=-1ms", "want a duration"},
		{"jitter=-0.1", "want a number"},
		{"jitter=NaN", "want a number"},
		{"warmup-sends=1.5", "want a whole number"},
		{"brotli.batch-cost=1ms", `no codec "brotli"`},
		{"zstd.speed=1ms", `no codec cost "speed"`},
		{"send-cost=codec", "want a duration"},
	} {
		p := DefaultProfile()
		err := p.Set(tc.kv)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--timing-set") {
			t.Errorf("Set(%q) = %v, want an error with %q", tc.kv, err, tc.want)
		}
	}
	p := DefaultProfile()
	if err := p.Set("batch-cost=codec"); err != nil || p.Timing.BatchCost != -1 {
		t.Errorf("batch-cost=codec: %v, %v", err, p.Timing.BatchCost)
	}
}

func TestReadProfileErrors(t *testing.T) {
	dir := t.TempDir()
	var good bytes.Buffer
	if err := DefaultProfile().Encode(&good); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"syntax", `{"name": "x",, }`, "byte 14"},
		{"missing", strings.Replace(good.String(), `"jitter": 1.05,`, "", 1), `"jitter" missing`},
		{"unknown", strings.Replace(good.String(), `"jitter": 1.05,`, `"jitter": 1.05, "speed": 2,`, 1), `unknown constant "speed"`},
		{"unknown top", strings.Replace(good.String(), `"name"`, `"extra": 1, "name"`, 1), `unknown field "extra"`},
		{"bad value", strings.Replace(good.String(), `"jitter": 1.05,`, `"jitter": -1,`, 1), "jitter"},
		{"range", strings.Replace(good.String(), `"idle-rtt-factor": 1,`, `"idle-rtt-factor": 2,`, 1), "out of range"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadProfile(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming %s with %q", tc.name, err, path, tc.want)
		}
	}
	if p, err := ReadProfile("ideal"); err != nil || !p.Timing.ideal() {
		t.Errorf("ideal: %v %+v", err, p.Timing)
	}
}
