package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/producer"
)

// A capped advice says so and compares with the batches of the records the
// model replayed; an uncapped one reads as before.
func TestExplainAdviceCapped(t *testing.T) {
	res := &explain.Result{Producers: []*explain.Producer{{Topic: "t", ProducerID: 7}}}
	a := &explain.Advice{Dominant: explain.CutSize, Share: 1, LogBatches: 1352, BaseCount: 1350, BaseMin: 1340, BaseMax: 1360,
		Change: "batch.size=65536", NewCount: 400, NewMin: 390, NewMax: 410, Base: producer.Config{Records: 199990}}
	var buf bytes.Buffer
	if err := ExplainAdvice(&buf, res, []*explain.Advice{a}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "(the log has 1352)") {
		t.Errorf("uncapped: %s", buf.String())
	}
	a.Capped, a.LogRecords = true, 10000000
	buf.Reset()
	if err := ExplainAdvice(&buf, res, []*explain.Advice{a}); err != nil {
		t.Fatal(err)
	}
	if want := "(capped at the log's first 199990 records of 10000000, which the log holds in 1352 batches)"; !strings.Contains(buf.String(), want) {
		t.Errorf("capped: %s\nwant %q", buf.String(), want)
	}
}
