package whatif_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/internal/whatif"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/report"
	"github.com/kseg/kseg/segment"
)

// Settings inferred from a log explain read only in part say which
// batches they come from.
func TestInferredFromPart(t *testing.T) {
	parts, err := segment.Partitions([]string{filepath.Join("..", "..", "testdata", "segments", "seed", "u05-small-0")})
	if err != nil {
		t.Fatal(err)
	}
	set := []producer.Property{{Key: "linger.ms", Value: "20"}}
	for _, tc := range []struct {
		max  int
		want []explain.Unread
	}{
		{0, nil},
		{10, []explain.Unread{{Topic: "u05-small", Partition: 0, Read: 10, From: 80}}},
	} {
		restore := whatif.SetExplainBound(tc.max)
		res, _, err := whatif.Run(parts, whatif.Options{Set: set, Runs: 5, Seed: 1})
		restore()
		if err != nil {
			t.Fatal(err)
		}
		got := res[0].InferredFromPart
		if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
			t.Errorf("MaxBatches %d: inferred from %+v, want %+v", tc.max, got, tc.want)
		}
		if !res[0].Inferred {
			t.Errorf("MaxBatches %d: settings not inferred", tc.max)
		}
		var text strings.Builder
		if err := report.WhatifText(&text, res); err != nil {
			t.Fatal(err)
		}
		note := "note: inferred from the first 10 data batches of u05-small-0, within explain's bound on batches (offsets from 80 on not read)"
		if strings.Contains(text.String(), note) != (tc.want != nil) {
			t.Errorf("MaxBatches %d: note %q printed %v:\n%s", tc.max, note, tc.want != nil, text.String())
		}
	}
}

// A topic whose log passes the records whatif reads says where the replay
// ended, in the text and in the calibration object.
func TestReadBoundReported(t *testing.T) {
	parts, err := segment.Partitions([]string{filepath.Join("..", "..", "testdata", "segments", "seed", "u05-small-0")})
	if err != nil {
		t.Fatal(err)
	}
	restore := whatif.SetMaxRecords(80 + whatif.SessionCost) // one session, 10 batches of 8 records
	res, _, err := whatif.Run(parts, whatif.Options{Was: []producer.Property{{Key: "linger.ms", Value: "1000"}, {Key: "batch.size", Value: "1024"}},
		Set: []producer.Property{{Key: "linger.ms", Value: "20"}}, Runs: 5, Seed: 1})
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if n := res[0].Topic.Records(); n != 80 {
		t.Errorf("%d records replayed, want 80", n)
	}
	var text, js strings.Builder
	if err := report.WhatifText(&text, res); err != nil {
		t.Fatal(err)
	}
	if err := report.WhatifJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "note: the log holds more than whatif reads (170 records, a producer session counting as 90 more, shared by the partitions given)") ||
		!strings.Contains(text.String(), "not read: partition 0 from offset 80") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(js.String(), `"unread":{"bound":170,"end_ms":`) || !strings.Contains(js.String(), `"partitions":[{"partition":0,"from_offset":80}]}`) {
		t.Errorf("json:\n%s", js.String())
	}
}
