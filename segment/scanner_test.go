package segment

import "io"

// testScanner gives the tests of framing direct access to a Stream's
// scanner: what the entry is, where the scan stands, tiny read blocks. It
// frames as Kafka does (LenientTail): a quiet stop is the scanner's verdict,
// whatever follows it (TestTrailingBatchesAreAnError covers the stream's).
type testScanner struct{ *Stream }

func NewScanner(r io.ReaderAt, size int64, name string) testScanner {
	return testScanner{NewStream(Source{Name: name, R: r, Size: size}, Options{LenientTail: true})}
}

func (t testScanner) Entry() *frame          { return t.sc.entry }
func (t testScanner) Bytes() ([]byte, error) { return t.sc.bytes() }
func (t testScanner) Pos() int64             { return t.sc.pos }
func (t testScanner) End() int64             { return t.sc.end }
func (t testScanner) SetBlockSize(n int)     { t.sc.block = n }
func (t testScanner) Resync(from int64) (int64, bool) {
	t.err = nil
	return t.resync(from)
}
