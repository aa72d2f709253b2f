package explain

import (
	"testing"
	"time"

	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// A log the producer model wrote with a sender that lags (a loaded
// machine): its batches stay open past linger.ms by the lag. explain's
// linger.ms comes from the same model run backwards, so its interval
// holds the true linger.ms, the sender it fits there lags about as much
// as the one that wrote the log, and it names the fitted senders. An
// ideal sender's replay (explain's cuts) would put linger.ms near the
// batches' span, linger.ms plus the lag.
func TestExplainLingerFromModel(t *testing.T) {
	cases := []struct {
		name     string
		lingerMs int64
		lag      time.Duration
	}{
		{"prompt sender", 10, 200 * time.Microsecond},
		{"lagging sender", 10, 6 * time.Millisecond},
		{"lagging sender, longer linger", 20, 4 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := producer.DefaultConfig()
			cfg.Topic = "lag"
			cfg.Records, cfg.ValueSize = 3000, 100
			cfg.SendInterval = 200 * time.Microsecond
			cfg.LingerMs = c.lingerMs
			producer.Sender{Lag: c.lag, Close: 100 * time.Microsecond, RTT: 2 * time.Millisecond,
				Jitter: 0.2, RTTJitter: 0.2}.Apply(&cfg)
			res, err := Run(writeModelLog(t, cfg))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Producers) != 1 {
				t.Fatalf("%d producers, want 1", len(res.Producers))
			}
			p := res.Producers[0]
			iv := p.Settings.LingerMs
			if iv == nil {
				t.Fatalf("linger.ms: no interval (notes %q)", p.Settings.Notes)
			}
			if c.lingerMs < iv.Min || c.lingerMs > iv.Max {
				t.Errorf("linger.ms [%d, %d] misses %d (%s)", iv.Min, iv.Max, c.lingerMs, iv.Evidence)
			}
			if len(p.Settings.Senders) == 0 || p.model == nil {
				t.Fatal("no fitted sender: linger.ms was not inferred with the producer model")
			}
			var at *producer.LingerFit
			for i := range p.model.Fits {
				if f := &p.model.Fits[i]; f.LingerMs == c.lingerMs {
					at = f
				}
			}
			if at == nil || !at.Reproduces {
				t.Fatalf("the model at the true linger.ms=%d does not reproduce the log (%+v)", c.lingerMs, at)
			}
			if lag := at.Fit.Sender.Lag; lag < c.lag/3 || lag > 3*c.lag+time.Millisecond {
				t.Errorf("the sender fitted at linger.ms=%d lags %v, the log's %v", c.lingerMs, lag, c.lag)
			}
			t.Logf("linger.ms [%d, %d] likely %d; fitted at %d: %+v; senders %+v", iv.Min, iv.Max, iv.Likely, c.lingerMs, at.Fit.Sender, p.Settings.Senders)
		})
	}
}

// writeModelLog writes the reference producer's log of cfg into a
// temporary directory and returns its partitions.
func writeModelLog(t testing.TB, cfg producer.Config) []segment.Partition {
	t.Helper()
	dir := t.TempDir()
	if _, err := producer.Write(cfg, dir); err != nil {
		t.Fatal(err)
	}
	parts, err := segment.Partitions([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return parts
}
