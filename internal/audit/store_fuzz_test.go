package audit

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// spillSeeds are findings as the audit spills them: repeated strings
// (encoded as "same as before"), batch details, negative numbers.
func spillSeeds() []Finding {
	return []Finding{
		{Code: "sequence-gap", Severity: 2, Partition: "t-0", ProducerID: 7, ProducerEpoch: 1, File: "t-0/0.log", Position: 61,
			FirstOffset: 10, LastOffset: 19, RelatedOffset: -1, BaseSequence: 5, LastSequence: 14, Count: 1, Message: "gap of 3",
			Batches: []BatchDetail{{File: "t-0/0.log", Position: 0, FirstOffset: 0, LastOffset: 9, BaseSequence: 0, LastSequence: 9, Count: 10, Message: "before"}}},
		{Code: "sequence-gap", Severity: 2, Partition: "t-0", ProducerID: 7, File: "t-0/0.log", Position: 200, Message: "gap of 1"},
		{Code: "epoch-change", Severity: 1, Partition: "t-1", ProducerID: -1, ProducerEpoch: -1, File: "t-1/0.log", LastFile: "t-1/5.log", LastPosition: 9},
	}
}

// FuzzSpillDecode decodes arbitrary bytes as a spill file: every record
// either decodes or ends in an error, never a panic or an allocation sized
// by a damaged count. The seeds are real encodings, which must read back
// as they were written.
func FuzzSpillDecode(f *testing.F) {
	var e encoder
	var all []byte
	for i, fd := range spillSeeds() {
		all = e.finding(all, &fd, i%2 == 0, i%3 == 0)
	}
	f.Add(all)
	f.Add(all[:len(all)/2])
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x03})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := decoder{r: bufio.NewReader(bytes.NewReader(data))}
		for range 64 {
			var fd Finding
			_, _, err := d.finding(&fd, nil)
			if err != nil {
				if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errSpill) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
		}
	})
}

// TestSpillRoundTrip: what the encoder writes, the decoder reads back.
func TestSpillRoundTrip(t *testing.T) {
	var e encoder
	var b []byte
	seeds := spillSeeds()
	for i := range seeds {
		b = e.finding(b, &seeds[i], i%2 == 0, i%3 == 0)
	}
	d := decoder{r: bufio.NewReader(bytes.NewReader(b))}
	for i, want := range seeds {
		var got Finding
		explained, overlap, err := d.finding(&got, nil)
		if err != nil {
			t.Fatalf("finding %d: %v", i, err)
		}
		if explained != (i%2 == 0) || overlap != (i%3 == 0) || !reflect.DeepEqual(got, want) {
			t.Fatalf("finding %d: got %+v (%v %v), want %+v", i, got, explained, overlap, want)
		}
	}
	var extra Finding
	if _, _, err := d.finding(&extra, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("after the last finding: %v, want io.ErrUnexpectedEOF", err)
	}
}
