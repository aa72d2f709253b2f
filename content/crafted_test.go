package content

import (
	"bufio"
	"os"
	"testing"

	"github.com/kseg/kseg/batch"
)

// craftedRecord is a hand-built __consumer_offsets record whose
// --offsets-decoder rendering by real Kafka is kept as a golden line.
type craftedRecord struct {
	name     string
	key, val []byte
}

// writeCrafted writes the records as one v2 batch to the path in env, for
// kafka-dump-log to render when the golden is regenerated.
func writeCrafted(t *testing.T, env string, recs []craftedRecord) {
	path := os.Getenv(env)
	if path == "" {
		t.Skip(env + " not set")
	}
	b := batch.NewBuilder(batch.CodecNone)
	for _, c := range recs {
		b.Append(1700000000000, c.key, c.val, nil)
	}
	out, err := b.Build(nil, batch.Header{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkCrafted compares the offsets parser with Kafka's golden, one line
// ("key: K payload: P") per record.
func checkCrafted(t *testing.T, golden string, recs []craftedRecord) {
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	p := NewOffsetsParser()
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(recs) {
			t.Fatalf("golden has more lines than the %d cases", len(recs))
		}
		c := recs[i]
		res, err := p.Parse(int64(i), c.key, c.val)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := "key: " + res.Key
		if res.HasPayload {
			got += " payload: " + res.Payload
		}
		if want := sc.Text(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(recs) {
		t.Errorf("golden has %d lines for %d cases", i, len(recs))
	}
}
