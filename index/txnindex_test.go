package index

import (
	"errors"
	"testing"
)

func TestTxnIndexAppendixC(t *testing.T) {
	b := unhex(t, "0000 00000000000003e8 000000000000000a 000000000000000f 000000000000000c")
	x := NewTxnIndex(reader(b), int64(len(b)), 0, "/d/00000000000000000000.txnindex")
	it := x.Iter()
	if !it.Next() {
		t.Fatal(it.Err())
	}
	want := AbortedTxn{ProducerID: 1000, FirstOffset: 10, LastOffset: 15, LastStableOffset: 12}
	if it.Entry() != want {
		t.Fatalf("got %+v", it.Entry())
	}
	if it.Next() || it.Err() != nil {
		t.Fatal("want exactly one entry")
	}
	if got := want.String(); got != "AbortedTxn(version=0, producerId=1000, firstOffset=10, lastOffset=15, lastStableOffset=12)" {
		t.Fatalf("String() = %q", got)
	}
	if string(want.AppendTo(nil)) != string(b) {
		t.Fatal("AppendTo mismatch")
	}
}

func TestTxnIndexVersionQuirk(t *testing.T) {
	const p = "/d/00000000000000000000.txnindex"
	entry := func(v0, v1 byte) []byte {
		b := AbortedTxn{ProducerID: 7, FirstOffset: 1, LastOffset: 2, LastStableOffset: 3}.AppendTo(nil)
		b[0], b[1] = v0, v1
		return b
	}
	tests := []struct {
		name    string
		data    []byte
		n       int
		version int8
		err     string
	}{
		{"second byte ignored", entry(0, 1), 1, 0, ""},
		{"negative first byte passes", entry(0xff, 0), 1, -1, ""},
		{"first byte 1 rejected", append(entry(0, 0), entry(1, 0)...), 1, 0,
			"Unexpected aborted transaction version 1 in transaction index " + p + ", current version is 0"},
		{"partial tail ignored", append(entry(0, 0), make([]byte, 33)...), 1, 0, ""},
		{"only partial", make([]byte, 33), 0, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := NewTxnIndex(reader(tc.data), int64(len(tc.data)), 0, p)
			it := x.Iter()
			n := 0
			for it.Next() {
				if it.Entry().Version() != tc.version {
					t.Fatalf("Version() = %d, want %d", it.Entry().Version(), tc.version)
				}
				n++
			}
			if n != tc.n {
				t.Fatalf("got %d entries, want %d", n, tc.n)
			}
			if tc.err == "" {
				if it.Err() != nil {
					t.Fatal(it.Err())
				}
				return
			}
			wantIs(t, it.Err(), ErrUnknownVersion)
			if got := kafkaMsg(t, it.Err()); got != tc.err {
				t.Fatalf("got %q", got)
			}
			var ie *Error
			if !errors.As(it.Err(), &ie) || ie.Offset != 34 {
				t.Fatalf("want offset 34, got %#v", it.Err())
			}
		})
	}
}

func TestTxnIndexSanityCheck(t *testing.T) {
	const p = "/d/00000000000000000010.txnindex"
	ok := AbortedTxn{ProducerID: 1, FirstOffset: 10, LastOffset: 12, LastStableOffset: 12}.AppendTo(nil)
	bad := AbortedTxn{ProducerID: 2, FirstOffset: 3, LastOffset: 9, LastStableOffset: 9}.AppendTo(nil)
	x := NewTxnIndex(reader(ok), int64(len(ok)), 10, p)
	if err := x.SanityCheck(p); err != nil {
		t.Fatal(err)
	}
	b := append(ok, bad...)
	x = NewTxnIndex(reader(b), int64(len(b)), 10, p)
	err := x.SanityCheck(p)
	wantIs(t, err, ErrCorruptIndex)
	want := "Last offset of aborted transaction AbortedTxn(version=0, producerId=2, firstOffset=3, lastOffset=9, lastStableOffset=9) in index " + p + " is less than start offset 10"
	if got := kafkaMsg(t, err); got != want {
		t.Fatalf("got %q", got)
	}
}
