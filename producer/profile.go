package producer

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kseg/kseg/batch"
)

// A Profile is a calibrated timing: every Timing constant, the produce
// round trip and the codecs' costs, with where they come from. The
// default is embedded (profiles/default.json); kseg produce --timing FILE
// reads another, --show-timing prints the one in use, and a calibration
// writes one with WriteProfile (docs/calibration.md).
type Profile struct {
	Name       string
	Provenance Provenance
	Timing     Timing
	// RTT is the produce request round trip the profile was fitted with
	// (Config.RTT when no --rtt is given).
	RTT time.Duration
	// CodecSizeFactor is Config.CodecSizeFactor: Java's compressed size
	// over kseg's (0: the measured default of each codec).
	CodecSizeFactor float64
}

// Provenance says where a profile's constants come from: which Kafka and
// JDK, on which machine and when, fitted on which data, and how well the
// fit does on cases it did not see.
type Provenance struct {
	Kafka   string `json:"kafka"`
	JDK     string `json:"jdk"`
	Machine string `json:"machine"`
	Date    string `json:"date"`
	// Data is the real runs the constants were fitted or measured on.
	Data string `json:"data"`
	// Method is how they were fitted.
	Method string `json:"method"`
	// Fit is the score on the fitted data, HeldOut on data the fit did
	// not see (another day's runs, and k-fold by case).
	Fit     string   `json:"fit"`
	HeldOut string   `json:"held_out"`
	Notes   []string `json:"notes,omitempty"`
}

// CodecCosts are a codec's costs, used where the Timing setting of the
// same name is negative: the application thread's extra cost per KiB
// written through the compressor, per batch created (the compression
// stream) and for the first send() with the codec (loading it), and the
// sender's cost per KiB at close (the compressor itself).
type CodecCosts struct {
	SendPerKB  time.Duration
	BatchCost  time.Duration
	Load       time.Duration
	ClosePerKB time.Duration
}

// IdealProfileName is the name --timing takes for the instantaneous model.
const IdealProfileName = "ideal"

//go:embed profiles/default.json
var defaultProfileJSON []byte

var defaultProfile = sync.OnceValue(func() Profile {
	p, err := parseProfile(defaultProfileJSON)
	if err != nil {
		panic("producer: embedded profiles/default.json: " + err.Error())
	}
	return p
})

// DefaultProfile is the embedded calibrated profile.
func DefaultProfile() Profile { return defaultProfile() }

// IdealProfile is the instantaneous model: every send() and sender step
// takes no time; the round trip is the default profile's.
func IdealProfile() Profile {
	return Profile{Name: IdealProfileName, RTT: DefaultProfile().RTT,
		Provenance: Provenance{Method: "none: every send() and every sender step takes no time (exact for size-cut bursts)"}}
}

// timingParam is one Timing constant by its profile key.
type timingParam struct {
	key string
	ptr func(*Timing) any // *time.Duration, *float64 or *int
	// codec marks a duration whose negative value takes the codec's cost
	// (written "codec" in a profile).
	codec bool
	doc   string
}

// timingParams lists every Timing constant by the key a profile and
// --timing-set use for it (a test checks that none is missing).
var timingParams = []timingParam{
	{"send-cost", func(t *Timing) any { return &t.SendCost }, false, "application thread: fixed cost of one send()"},
	{"send-cost-per-kb", func(t *Timing) any { return &t.SendCostPerKB }, false, "application thread: send() cost per KiB of record"},
	{"send-cost-key", func(t *Timing) any { return &t.SendCostKey }, false, "application thread: extra send() cost of a keyed record"},
	{"send-cost-header", func(t *Timing) any { return &t.SendCostHeader }, false, "application thread: extra send() cost per header"},
	{"send-cost-codec-per-kb", func(t *Timing) any { return &t.SendCostCodecPerKB }, true, "application thread: extra send() cost per KiB when compressing"},
	{"batch-cost", func(t *Timing) any { return &t.BatchCost }, true, "application thread: extra time of a send() that creates a batch, compression stream included"},
	{"first-send-cost", func(t *Timing) any { return &t.FirstSend }, false, "application thread: extra time of the first send() of a cold JVM"},
	{"codec-load", func(t *Timing) any { return &t.CodecLoad }, true, "application thread: extra time of the first send() with a codec, which loads it"},
	{"first-send-jitter", func(t *Timing) any { return &t.FirstSendJitter }, false, "log-normal sigma of the first send()'s extra time, once per run"},
	{"warmup-sends", func(t *Timing) any { return &t.WarmupSends }, false, "application thread: send i costs (1 + warmup-factor*exp(-i/warmup-sends)) times the warm cost"},
	{"warmup-factor", func(t *Timing) any { return &t.WarmupFactor }, false, "application thread: how much slower the first sends are"},
	{"batch-warmup", func(t *Timing) any { return &t.BatchWarmup }, false, "application thread: share of the warm-up that batch-cost takes (0: none, 1: as send())"},
	{"wake-latency", func(t *Timing) any { return &t.WakeLatency }, false, "sender thread: from wakeup(), a response or a poll timeout to running, while the application thread is busy"},
	{"idle-wake-latency", func(t *Timing) any { return &t.IdleWakeLatency }, false, "sender thread: the same while the application thread is idle (by its duty cycle in between)"},
	{"idle-sender-factor", func(t *Timing) any { return &t.IdleSenderFactor }, false, "sender thread: factor on its loop and close costs while the application thread is idle (0 or 1: none)"},
	{"idle-rtt-factor", func(t *Timing) any { return &t.IdleRTTFactor }, false, "factor on the produce round trip while the application thread is idle (0 or 1: none)"},
	{"loop-cost", func(t *Timing) any { return &t.LoopCost }, false, "sender thread: one runOnce (ready, request, network write)"},
	{"close-cost", func(t *Timing) any { return &t.CloseCost }, false, "sender thread: closing one batch (header, CRC)"},
	{"close-cost-per-kb", func(t *Timing) any { return &t.ClosePerKB }, true, "sender thread: close cost per KiB of uncompressed records, compression included"},
	{"measured-drain-close", func(t *Timing) any { return &t.MeasuredDrainClose }, false, "sender thread: 1 adds to each close the Java producer's close of a batch of its size and codec, as measured (0: none)"},
	{"batch-send-cost", func(t *Timing) any { return &t.BatchSendCost }, false, "sender thread: work per drained batch after the drain, before its request goes (0: all of it in close-cost, inside the drain)"},
	{"cold-close", func(t *Timing) any { return &t.ColdClose }, false, "sender thread: extra time of its first close, decaying by cold-close-decay (cold JVM)"},
	{"cold-close-compressed", func(t *Timing) any { return &t.ColdCloseCompressed }, false, "sender thread: more extra time of the first closes with a codec"},
	{"cold-close-decay", func(t *Timing) any { return &t.ColdCloseDecay }, false, "sender thread: how many closes the cold cost lasts (close k costs exp(-k/decay) of cold-close)"},
	{"cold-rtt", func(t *Timing) any { return &t.ColdRTT }, false, "extra round trip of a request per partition in it the broker appends to for the first time"},
	{"first-rtt", func(t *Timing) any { return &t.FirstRTT }, false, "extra round trip of the run's first produce request"},
	{"cold-jitter", func(t *Timing) any { return &t.ColdJitter }, false, "log-normal sigma of one factor per run on cold-close, cold-rtt and first-rtt"},
	{"jitter", func(t *Timing) any { return &t.Jitter }, false, "log-normal sigma of every send() cost"},
	{"sender-jitter", func(t *Timing) any { return &t.SenderJitter }, false, "log-normal sigma of the sender's wake-ups, loops and closes (0: jitter)"},
	{"run-jitter", func(t *Timing) any { return &t.RunJitter }, false, "log-normal sigma of the application thread's speed over a whole run"},
	{"sender-run-jitter", func(t *Timing) any { return &t.SenderRunJitter }, false, "log-normal sigma of the sender thread's (and the round trip's) speed over a whole run"},
	{"idle-sender-jitter", func(t *Timing) any { return &t.IdleSenderJitter }, false, "sender-jitter while the application thread is idle (0: the same)"},
	{"idle-sender-run-jitter", func(t *Timing) any { return &t.IdleSenderRunJitter }, false, "sender-run-jitter while the application thread is idle (0: the same)"},
	{"sender-step-max", func(t *Timing) any { return &t.SenderStepMax }, false, "sender thread: longest one wake-up, loop or close may take, jitter included (0: no bound)"},
	{"rtt-jitter", func(t *Timing) any { return &t.RTTJitter }, false, "log-normal sigma of each request's round trip"},
	{"pause-every", func(t *Timing) any { return &t.PauseEvery }, false, "application thread stalls once every N sends on average (0: never)"},
	{"idle-pause-every", func(t *Timing) any { return &t.IdlePauseEvery }, false, "pause-every while the application thread is idle, sleeping until its next send (0: the same)"},
	{"pause-mean", func(t *Timing) any { return &t.PauseMean }, false, "mean length of an application-thread stall (exponential)"},
	{"request-pause", func(t *Timing) any { return &t.RequestPause }, false, "application thread: mean time it loses the CPU when a produce request goes out, the broker handling it on the same cores (exponential; 0: none)"},
	{"poll-granularity", func(t *Timing) any { return &t.PollGranularity }, false, "sender thread: granularity of its poll timeout (1ms: Java's whole milliseconds, a linger expiry met up to 1 ms late; 0: exact)"},
	{"rtt-speed-floor", func(t *Timing) any { return &t.RTTSpeedFloor }, false, "least factor a fast run's sender speed puts on the round trip (1: a fast sender does not make the broker faster; 0: none)"},
	{"broker-serial-share", func(t *Timing) any { return &t.BrokerSerialShare }, false, "share of a request's round trip its broker spends on it alone: a broker's responses come at least this share of a round trip apart (Kafka handles one request of a connection at a time; 0: requests in flight overlap freely)"},
}

// laterTimingKeys were added after profiles were first saved: a profile
// without one still loads, with the constant's zero, which means what
// the model did before it.
var laterTimingKeys = map[string]bool{"broker-serial-share": true, "measured-drain-close": true}

// codecParams are the keys of a codec's costs: "<codec>.<key>" in
// --timing-set, "codecs": {"<codec>": {"<key>": ...}} in a profile.
var codecParams = []struct {
	key string
	ptr func(*CodecCosts) *time.Duration
}{
	{"send-cost-per-kb", func(c *CodecCosts) *time.Duration { return &c.SendPerKB }},
	{"batch-cost", func(c *CodecCosts) *time.Duration { return &c.BatchCost }},
	{"codec-load", func(c *CodecCosts) *time.Duration { return &c.Load }},
	{"close-cost-per-kb", func(c *CodecCosts) *time.Duration { return &c.ClosePerKB }},
}

// TimingKeys are the keys of a profile's constants, as --timing-set takes
// them: every Timing constant, "rtt", "codec-size-factor" and
// "<codec>.<cost>" for each codec's costs.
func TimingKeys() []string {
	var out []string
	for _, p := range timingParams {
		out = append(out, p.key)
	}
	out = append(out, "rtt", "codec-size-factor")
	for c := range batch.CodecZstd + 1 {
		for _, cp := range codecParams {
			out = append(out, c.String()+"."+cp.key)
		}
	}
	return out
}

// TimingDoc is the description of a Timing constant's key ("" if none).
func TimingDoc(key string) string {
	for _, p := range timingParams {
		if p.key == key {
			return p.doc
		}
	}
	return ""
}

// Set sets one constant of the profile from "key=value": a Timing key, rtt,
// codec-size-factor or <codec>.<cost> (TimingKeys); durations as Go writes
// them (150us, 6.1ms), the codec-default ones also "codec".
func (p *Profile) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" {
		return configErr("--timing-set %q: want KEY=VALUE (kseg produce --show-timing lists the keys)", kv)
	}
	if err := p.set(k, v); err != nil {
		return configErr("--timing-set %s: %v", kv, err)
	}
	return nil
}

func (p *Profile) set(k, v string) error {
	switch k {
	case "rtt":
		return setDuration(&p.RTT, v, false)
	case "codec-size-factor":
		return setFloat(&p.CodecSizeFactor, v)
	}
	if name, cost, ok := strings.Cut(k, "."); ok {
		codec, err := batch.ParseCodec(name)
		if err != nil {
			return fmt.Errorf("no codec %q", name)
		}
		for _, cp := range codecParams {
			if cp.key == cost {
				return setDuration(cp.ptr(&p.Timing.Codecs[codec]), v, false)
			}
		}
		return fmt.Errorf("no codec cost %q", cost)
	}
	for _, tp := range timingParams {
		if tp.key != k {
			continue
		}
		switch ptr := tp.ptr(&p.Timing).(type) {
		case *time.Duration:
			return setDuration(ptr, v, tp.codec)
		case *float64:
			return setFloat(ptr, v)
		case *int:
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%q: want a whole number, 0 or more", v)
			}
			*ptr = n
			return nil
		}
	}
	return fmt.Errorf("no timing constant %q", k)
}

func setDuration(d *time.Duration, v string, codec bool) error {
	if codec && v == "codec" {
		*d = -1
		return nil
	}
	x, err := time.ParseDuration(v)
	if err != nil || x < 0 {
		if codec {
			return fmt.Errorf("%q: want a duration (150us, 6.1ms), 0 or more, or \"codec\"", v)
		}
		return fmt.Errorf("%q: want a duration (150us, 6.1ms), 0 or more", v)
	}
	*d = x
	return nil
}

func setFloat(f *float64, v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Errorf("%q: want a number, 0 or more", v)
	}
	*f = x
	return nil
}

// get is a constant's value as a profile writes it.
func (p *Profile) get(tp timingParam) any {
	switch ptr := tp.ptr(&p.Timing).(type) {
	case *time.Duration:
		if tp.codec && *ptr < 0 {
			return "codec"
		}
		return ptr.String()
	case *float64:
		return *ptr
	case *int:
		return *ptr
	}
	return nil
}

// profileFile is a profile as JSON. Timing holds every constant (a
// missing one is an error, so that a profile says what it means).
type profileFile struct {
	Name            string                                `json:"name"`
	Provenance      Provenance                            `json:"provenance"`
	RTT             string                                `json:"rtt"`
	CodecSizeFactor float64                               `json:"codec-size-factor"`
	Timing          map[string]json.RawMessage            `json:"timing"`
	Codecs          map[string]map[string]json.RawMessage `json:"codecs"`
}

// maxProfileSize bounds a profile file read whole.
const maxProfileSize = 1 << 20

// ReadProfile reads a profile file (as WriteProfile writes it); path
// "ideal" is the instantaneous model.
func ReadProfile(path string) (Profile, error) {
	if path == IdealProfileName {
		return IdealProfile(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Profile{}, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxProfileSize+1))
	if err != nil {
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(raw) > maxProfileSize {
		return Profile{}, fmt.Errorf("%s: a timing profile is at most %d bytes", path, maxProfileSize)
	}
	p, err := parseProfile(raw)
	if err != nil {
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func parseProfile(raw []byte) (Profile, error) {
	var pf profileFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return Profile{}, fmt.Errorf("byte %d: %w", se.Offset, err)
		}
		return Profile{}, err
	}
	p := Profile{Name: pf.Name, Provenance: pf.Provenance}
	if err := setDuration(&p.RTT, pf.RTT, false); err != nil {
		return p, fmt.Errorf("rtt: %v", err)
	}
	if err := setFloat(&p.CodecSizeFactor, strconv.FormatFloat(pf.CodecSizeFactor, 'g', -1, 64)); err != nil {
		return p, fmt.Errorf("codec-size-factor: %v", err)
	}
	value := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return string(raw)
	}
	for _, tp := range timingParams {
		raw, ok := pf.Timing[tp.key]
		if !ok && laterTimingKeys[tp.key] {
			continue // a profile saved before the key existed: its zero keeps that meaning
		}
		if !ok {
			return p, fmt.Errorf("timing: %q missing (every constant is given)", tp.key)
		}
		if err := p.set(tp.key, value(raw)); err != nil {
			return p, fmt.Errorf("timing: %s: %v", tp.key, err)
		}
		delete(pf.Timing, tp.key)
	}
	for k := range pf.Timing {
		return p, fmt.Errorf("timing: unknown constant %q", k)
	}
	for name, costs := range pf.Codecs {
		codec, err := batch.ParseCodec(name)
		if err != nil {
			return p, fmt.Errorf("codecs: no codec %q", name)
		}
		for k, raw := range costs {
			if err := p.set(name+"."+k, value(raw)); err != nil {
				return p, fmt.Errorf("codecs: %s: %s: %v", codec, k, err)
			}
		}
	}
	if !p.Timing.valid() {
		return p, fmt.Errorf("timing: a constant out of range")
	}
	return p, nil
}

// WriteProfile writes p to path as JSON (0644, replacing the file).
func WriteProfile(path string, p Profile) error {
	var b bytes.Buffer
	if err := p.Encode(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Encode writes p as JSON, the constants in a fixed order, one a line.
func (p Profile) Encode(w io.Writer) error {
	var b bytes.Buffer
	line := func(indent, key string, v any, last bool) {
		kj, _ := json.Marshal(key)
		vj, _ := json.Marshal(v)
		b.WriteString(indent)
		b.Write(kj)
		b.WriteString(": ")
		b.Write(vj)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("{\n")
	line("  ", "name", p.Name, false)
	prov, err := json.MarshalIndent(p.Provenance, "  ", "  ")
	if err != nil {
		return err
	}
	b.WriteString(`  "provenance": `)
	b.Write(prov)
	b.WriteString(",\n")
	line("  ", "rtt", p.RTT.String(), false)
	line("  ", "codec-size-factor", p.CodecSizeFactor, false)
	b.WriteString("  \"timing\": {\n")
	for i, tp := range timingParams {
		line("    ", tp.key, p.get(tp), i == len(timingParams)-1)
	}
	b.WriteString("  },\n  \"codecs\": {\n")
	codecs := []batch.Codec{batch.CodecNone, batch.CodecGzip, batch.CodecSnappy, batch.CodecLZ4, batch.CodecZstd}
	for i, c := range codecs {
		fmt.Fprintf(&b, "    %q: {", c.String())
		for j, cp := range codecParams {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %q", cp.key, cp.ptr(&p.Timing.Codecs[c]).String())
		}
		b.WriteString("}")
		if i < len(codecs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  }\n}\n")
	_, err = w.Write(b.Bytes())
	return err
}

// Differences lists the constants of p that differ from q's, as
// key=value (p's), in TimingKeys order: what --timing-set changed.
func (p Profile) Differences(q Profile) []string {
	var out []string
	for _, tp := range timingParams {
		if a, b := p.get(tp), q.get(tp); a != b {
			out = append(out, fmt.Sprintf("%s=%v", tp.key, a))
		}
	}
	if p.RTT != q.RTT {
		out = append(out, "rtt="+p.RTT.String())
	}
	if p.CodecSizeFactor != q.CodecSizeFactor {
		out = append(out, "codec-size-factor="+strconv.FormatFloat(p.CodecSizeFactor, 'g', -1, 64))
	}
	for c := range batch.CodecZstd + 1 {
		for _, cp := range codecParams {
			if a, b := *cp.ptr(&p.Timing.Codecs[c]), *cp.ptr(&q.Timing.Codecs[c]); a != b {
				out = append(out, fmt.Sprintf("%s.%s=%v", c, cp.key, a))
			}
		}
	}
	return slices.Clip(out)
}
