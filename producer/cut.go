package producer

// Cut reasons: why a batch stopped taking records, as the model knows it
// when the sender drains the batch. kseg explain infers the same reasons
// from a log; the model's are its ground truth.
const (
	CutSize        = "size"         // a record did not fit (or the estimate reached the write limit)
	CutLargeRecord = "large-record" // as size, in a batch sized for one record above batch.size
	CutSync        = "sync"         // the application waited for this batch's ack (send().get())
	CutLinger      = "linger"       // linger.ms expired before the next record came
	CutFlush       = "flush"        // the producer was closed (everything becomes sendable)
	CutMemory      = "memory"       // a send() was blocked on buffer.memory
	CutDrain       = "drain"        // taken because another partition on the broker was ready
)

// cutReason says why pb stopped taking records; called as the sender drains
// it, before it is closed. The checks follow RecordAccumulator.ready's
// "sendable" in order: full, expired, exhausted/closed, else the node was
// ready for another partition.
func (s *sim) cutReason(pb *pbatch) string {
	switch {
	case pb.isFull() && pb.writeLimit > s.B:
		return CutLargeRecord
	case pb.isFull():
		return CutSize
	case pb.syncWait:
		return CutSync
	case s.now/1e6-pb.createdMs >= s.cfg.LingerMs:
		return CutLinger
	case s.closed:
		return CutFlush
	case s.state == appWaitMem:
		return CutMemory
	}
	return CutDrain
}

// BatchCut is one written batch and the model's reason for its cut.
type BatchCut struct {
	Partition  int
	BaseOffset int64 // first offset in the partition (runs without injected faults)
	Records    int
	Bytes      int
	Cut        string
}
