package batch

import (
	"errors"
	"testing"
)

func TestParseHeaderInto(t *testing.T) {
	b := NewBuilder(CodecNone)
	b.Append(1000, []byte("k"), []byte("v"), nil)
	raw, err := b.Build(nil, Header{BaseOffset: 42, ProducerID: 7, ProducerEpoch: 1, BaseSequence: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseHeader(raw)
	if err != nil || want.BaseOffset != 42 || want.ProducerID != 7 || want.RecordCount != 1 {
		t.Fatalf("ParseHeader: %+v, %v", want, err)
	}
	h := Header{BaseOffset: -5}
	if err := ParseHeaderInto(&h, raw); err != nil || h != want {
		t.Fatalf("ParseHeaderInto: %+v, %v; want %+v", h, err, want)
	}
	short := Header{BaseOffset: -5}
	if err := ParseHeaderInto(&short, raw[:HeaderSize-1]); !errors.Is(err, ErrTruncated) || short != (Header{BaseOffset: -5}) {
		t.Fatalf("60 bytes: %v, header %+v (want ErrTruncated, left alone)", err, short)
	}
}
