package producer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/kseg/kseg/batch"
)

const never = int64(math.MaxInt64)

// ErrRecordTooLarge is KafkaProducer's RecordTooLargeException: a record's
// upper-bound batch size exceeds max.request.size or buffer.memory.
var ErrRecordTooLarge = errors.New("record too large")

// ErrBufferExhausted is the BufferExhaustedException / TimeoutException of
// a send() blocked on buffer.memory for longer than max.block.ms.
var ErrBufferExhausted = errors.New("buffer memory exhausted")

type appState int

const (
	appReady   appState = iota // next send due at appAt
	appWaitAck                 // sync send waiting for its batch
	appWaitMem                 // blocked in BufferPool.allocate
	appDone
)

type response struct {
	at      int64
	node    int
	batches []*pbatch
}

// DrainedBatch describes one batch as the sender drained it (for tests and
// the inject bookkeeping).
type DrainedBatch struct {
	Partition  int
	Records    int
	Bytes      int
	DrainedMs  int64
	CreatedMs  int64
	BaseSeq    int32
	EstimateAt float32
	Created    int64 // creation order of the batch over the run
	Stick      int64 // sticky-partition period the batch was created in (-1 keyed)
	// Cut is why the batch stopped taking records (a Cut* constant).
	Cut string
}

// testDrainHook, when set by a test, sees every drained batch.
var testDrainHook func(DrainedBatch)

// sim is the virtual-clock model: application thread, accumulator, sender,
// network and the broker writer.
type sim struct {
	cfg *Config
	B   int

	now int64 // ns since the Unix epoch

	deqs      []deque
	hasDeque  []bool
	nDeques   int
	leader    []int
	nodeParts [][]int
	drainIdx  []int
	inflight  []int
	resp      []response
	respH     int

	usedMem int64
	closed  bool
	pidAt   int64
	nextSeq []int32
	est     estimator
	sticky  stickyPartitioner

	// application thread
	next     int64
	appTs    int64 // ns: when record next's timestamp was taken
	appAt    int64 // ns: when its append runs
	state    appState
	waitSize int64 // buffer size the blocked append needs
	blockAt  int64
	heldBuf  int64 // a buffer allocated by an append that restarted

	senderAt int64

	keyBuf  []byte
	value   []byte
	headers []batch.RecordHeader

	sink     func(part int, b []byte, brokerMs int64) error
	onDrain  func(DrainedBatch)
	comp     batch.Compressor
	out      []byte
	builders []*batch.Builder
	queue    []int
	created  int64
}

func newSim(cfg *Config, sink func(int, []byte, int64) error) *sim {
	n := cfg.Partitions
	s := &sim{
		cfg:       cfg,
		B:         cfg.effectiveBatchSize(),
		deqs:      make([]deque, n),
		hasDeque:  make([]bool, n),
		leader:    make([]int, n),
		nodeParts: make([][]int, cfg.Brokers),
		drainIdx:  make([]int, cfg.Brokers),
		inflight:  make([]int, cfg.Brokers),
		nextSeq:   make([]int32, n),
		est:       estimator{e: 1.0},
		senderAt:  never,
		sink:      sink,
		queue:     make([]int, n),
		onDrain:   testDrainHook,
	}
	for p := 0; p < n; p++ {
		s.leader[p] = p % cfg.Brokers
		s.nodeParts[s.leader[p]] = append(s.nodeParts[s.leader[p]], p)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b7365672d726566)) // "kseg-ref"
	s.sticky = stickyPartitioner{n: n, batchSize: s.B, part: -1, rnd: rng.Uint32}
	start := cfg.StartTime * 1e6
	s.appTs = start
	s.appAt = start + int64(cfg.FirstSendDelay)
	s.pidAt = start + int64(cfg.PIDDelay)
	if cfg.ValueSize >= 0 {
		s.value = make([]byte, cfg.ValueSize)
		for i := range s.value {
			s.value[i] = 'v'
		}
	}
	for j := 0; j < cfg.Headers; j++ {
		s.headers = append(s.headers, batch.RecordHeader{Key: []byte("h" + strconv.Itoa(j)), Value: []byte("x")})
	}
	return s
}

func (s *sim) keyFor(i int64) []byte {
	if s.cfg.KeyCount == 0 {
		return nil
	}
	s.keyBuf = append(s.keyBuf[:0], s.cfg.KeyPrefix...)
	s.keyBuf = strconv.AppendInt(s.keyBuf, i%int64(s.cfg.KeyCount), 10)
	return s.keyBuf
}

func (s *sim) wake() {
	if s.now < s.senderAt {
		s.senderAt = s.now
	}
}

// run drives the model to completion.
func (s *sim) run() error {
	if s.cfg.Records == 0 {
		s.state = appDone
		s.closed = true
	}
	for {
		t := never
		if s.state == appReady {
			t = s.appAt
		}
		t = min(t, s.senderAt)
		if s.respH < len(s.resp) {
			t = min(t, s.resp[s.respH].at)
		}
		if t == never {
			break
		}
		s.now = t
		// Tie rule: responses, then application sends, then the sender.
		for s.respH < len(s.resp) && s.resp[s.respH].at <= t {
			r := s.resp[s.respH]
			s.resp[s.respH] = response{}
			s.respH++
			s.complete(r.node, r.batches)
		}
		if s.respH == len(s.resp) {
			s.resp, s.respH = s.resp[:0], 0
		}
		for s.state == appReady && s.appAt <= t {
			if err := s.send(); err != nil {
				return err
			}
		}
		if s.state == appWaitMem && s.now-s.blockAt > s.cfg.MaxBlockMs*1e6 {
			return fmt.Errorf("%w: send() blocked for more than max.block.ms=%d", ErrBufferExhausted, s.cfg.MaxBlockMs)
		}
		if s.senderAt <= t {
			if err := s.runSender(); err != nil {
				return err
			}
		}
	}
	for p := range s.deqs {
		if s.deqs[p].len() > 0 {
			return fmt.Errorf("internal: partition %d still holds %d batches at the end", p, s.deqs[p].len())
		}
	}
	return nil
}

// send is KafkaProducer.doSend for record s.next at time s.now.
func (s *sim) send() error {
	i := s.next
	key := s.keyFor(i)
	ub := batch.EstimateSizeUpperBound(key, s.value, s.headers)
	if ub > s.cfg.MaxRequestSize {
		return fmt.Errorf("%w: record %d is %d bytes (upper bound), max.request.size is %d", ErrRecordTooLarge, i, ub, s.cfg.MaxRequestSize)
	}
	if int64(ub) > s.cfg.BufferMemory {
		return fmt.Errorf("%w: record %d is %d bytes (upper bound), buffer.memory is %d", ErrRecordTooLarge, i, ub, s.cfg.BufferMemory)
	}
	part := -1
	if key != nil {
		part = PartitionForKey(key, s.cfg.Partitions)
	}
	tsMs := s.appTs / 1e6
	if s.cfg.TimestampStepMs >= 0 {
		tsMs = s.cfg.StartTime + i*s.cfg.TimestampStepMs
	}
	pb, full, created, ok := s.append(part, tsMs, key, ub)
	if !ok {
		if s.state != appWaitMem {
			s.state = appWaitMem
			s.blockAt = s.now
		}
		return nil
	}
	if full || created {
		s.wake()
	}
	s.next++
	if s.cfg.Sync {
		pb.syncWait = true
		s.state = appWaitAck
		return nil
	}
	s.scheduleNext(s.now)
	return nil
}

func (s *sim) scheduleNext(from int64) {
	if s.next >= s.cfg.Records {
		s.state = appDone
		s.closed = true // KafkaProducer.close(): everything becomes sendable
		s.wake()
		return
	}
	s.state = appReady
	s.appTs = from + int64(s.cfg.SendInterval)
	s.appAt = s.appTs
}

// append is RecordAccumulator.append for one record (single application
// thread, so the partitioner races of Java cannot happen, but its restart
// paths can). ok is false when the buffer pool cannot serve the new batch.
func (s *sim) append(part int, ts int64, key []byte, ub int) (pb *pbatch, full, created, ok bool) {
	for {
		sticky := part < 0
		p := part
		if sticky {
			p = s.sticky.current()
		}
		if !s.hasDeque[p] {
			s.hasDeque[p] = true
			s.nDeques++
		}
		d := &s.deqs[p]
		if sticky && d.allFull() && s.sticky.update(0, true) {
			continue
		}
		if last := d.last(); last != nil {
			before := last.estimatedBytes()
			if last.hasRoomFor(ts, key, s.value, s.headers) {
				last.b.Append(ts, key, s.value, s.headers)
				if sticky {
					s.sticky.update(last.estimatedBytes()-before, d.allFull())
				}
				return last, d.len() > 1 || last.isFull(), false, true
			}
			last.closed = true
		}
		size := int64(max(s.B, ub))
		if s.heldBuf == 0 {
			if s.usedMem+size > s.cfg.BufferMemory {
				s.waitSize = size
				return nil, false, false, false
			}
			s.usedMem += size
			s.heldBuf = size
		}
		if sticky && d.allFull() && s.sticky.update(0, true) {
			continue // keep the buffer for the new partition
		}
		nb := &pbatch{
			part:       p,
			b:          s.builder(),
			createdMs:  s.now / 1e6,
			writeLimit: int(size),
			ratio:      s.est.e,
			bufSize:    size,
			created:    s.created,
			stick:      -1,
		}
		if sticky {
			nb.stick = s.sticky.switches
		}
		s.created++
		nb.b.Append(ts, key, s.value, s.headers)
		d.push(nb)
		s.heldBuf = 0
		if sticky {
			s.sticky.update(nb.estimatedBytes(), d.allFull())
		}
		return nb, d.len() > 1 || nb.isFull(), true, true
	}
}

func (s *sim) builder() *batch.Builder {
	if n := len(s.builders); n > 0 {
		b := s.builders[n-1]
		s.builders = s.builders[:n-1]
		b.Reset(s.cfg.Compression)
		return b
	}
	return batch.NewBuilder(s.cfg.Compression)
}

// complete handles a produce response: buffers go back to the pool, a
// synchronous send returns, and the sender wakes.
func (s *sim) complete(node int, batches []*pbatch) {
	s.inflight[node]--
	for _, pb := range batches {
		s.usedMem -= pb.bufSize
		if pb.syncWait && s.state == appWaitAck {
			s.scheduleNext(s.now)
		}
		s.builders = append(s.builders, pb.b)
		pb.b = nil
	}
	if s.state == appWaitMem && s.usedMem+s.waitSize <= s.cfg.BufferMemory {
		s.state = appReady
		s.appAt = s.now // the blocked send resumes; its timestamp was taken before
	}
	s.wake()
}

// ready is RecordAccumulator.ready: which nodes have a sendable head batch,
// and when to look again. It also feeds the adaptive partitioner.
func (s *sim) ready() (nodes []bool, nextCheck int64) {
	nowMs := s.now / 1e6
	exhausted := s.state == appWaitMem
	nodes = make([]bool, s.cfg.Brokers)
	nextCheck = never
	if s.cfg.AdaptivePartitions && s.cfg.KeyCount == 0 && s.nDeques == s.cfg.Partitions {
		for p := range s.deqs {
			s.queue[p] = s.deqs[p].len()
		}
		s.sticky.updateLoadStats(s.queue)
	} else {
		s.sticky.updateLoadStats(nil)
	}
	for p := range s.deqs {
		d := &s.deqs[p]
		head := d.first()
		if head == nil {
			continue
		}
		full := d.len() > 1 || head.isFull()
		waited := max(0, nowMs-head.createdMs)
		expired := waited >= s.cfg.LingerMs
		if full || expired || exhausted || s.closed {
			nodes[s.leader[p]] = true
		} else {
			nextCheck = min(nextCheck, (head.createdMs+s.cfg.LingerMs)*1e6)
		}
	}
	return nodes, nextCheck
}

// runSender is Sender.runOnce, repeated with pollTimeout 0 while anything
// was sent, then sleeping until the next linger expiry (responses and
// wakeups interrupt the sleep).
func (s *sim) runSender() error {
	s.senderAt = never
	if s.cfg.Idempotence && s.now < s.pidAt {
		s.senderAt = s.pidAt // the InitProducerId response wakes the sender
		return nil
	}
	for {
		nodes, next := s.ready()
		sent := false
		for n, ok := range nodes {
			if !ok || s.inflight[n] >= s.cfg.MaxInFlight {
				continue
			}
			drained, err := s.drain(n)
			if err != nil {
				return err
			}
			if len(drained) > 0 {
				s.request(n, drained)
				sent = true
			}
		}
		if !sent {
			s.senderAt = next
			return nil
		}
	}
}

// drain is RecordAccumulator.drainBatchesForOneNode: at most one batch per
// partition, cyclic from the node's drain index, up to max.request.size.
func (s *sim) drain(node int) ([]*pbatch, error) {
	parts := s.nodeParts[node]
	if len(parts) == 0 {
		return nil, nil
	}
	start := s.drainIdx[node] % len(parts)
	i := start
	size := 0
	var out []*pbatch
	for {
		p := parts[i]
		s.drainIdx[node] = i
		i = (i + 1) % len(parts)
		if d := &s.deqs[p]; d.len() > 0 {
			first := d.first()
			if size+first.estimatedBytes() > s.cfg.MaxRequestSize && len(out) > 0 {
				break
			}
			d.pop()
			n, err := s.close(first)
			if err != nil {
				return out, err
			}
			size += n
			out = append(out, first)
		}
		if i == start {
			break
		}
	}
	return out, nil
}

// close assigns the producer state, builds the batch (ProducerBatch.close),
// updates the compression estimate and hands the bytes to the broker.
func (s *sim) close(pb *pbatch) (int, error) {
	cut := s.cutReason(pb)
	pb.closed = true
	h := batch.Header{
		PartitionLeaderEpoch: batch.NoLeaderEpoch,
		ProducerID:           batch.NoProducerID,
		ProducerEpoch:        batch.NoProducerEpoch,
		BaseSequence:         batch.NoSequence,
	}
	if s.cfg.Idempotence {
		h.ProducerID = s.cfg.ProducerID
		h.ProducerEpoch = s.cfg.ProducerEpoch
		h.BaseSequence = s.nextSeq[pb.part]
		s.nextSeq[pb.part] = batch.IncrementSequence(s.nextSeq[pb.part], int32(pb.b.NumRecords()))
	}
	var err error
	s.out, err = pb.b.Build(s.out[:0], h, &s.comp)
	if err != nil {
		return 0, err
	}
	n := len(s.out)
	if s.cfg.Compression != batch.CodecNone {
		s.est.update(float32(n-batch.HeaderSize) / float32(pb.b.UncompressedBytes()))
	}
	if s.onDrain != nil {
		s.onDrain(DrainedBatch{Partition: pb.part, Records: pb.b.NumRecords(), Bytes: n,
			DrainedMs: s.now / 1e6, CreatedMs: pb.createdMs, BaseSeq: h.BaseSequence, EstimateAt: pb.ratio, Created: pb.created, Stick: pb.stick, Cut: cut})
	}
	// Requests arrive in send order, so the broker's append can run now
	// with the arrival time as its clock.
	brokerMs := (s.now + int64(s.cfg.RTT)/2) / 1e6
	if err := s.sink(pb.part, s.out, brokerMs); err != nil {
		return 0, err
	}
	return n, nil
}

// request puts a produce request in flight; acks=0 completes at once.
func (s *sim) request(node int, batches []*pbatch) {
	s.inflight[node]++
	if s.cfg.Acks == 0 {
		s.complete(node, batches)
		return
	}
	s.resp = append(s.resp, response{at: s.now + int64(s.cfg.RTT), node: node, batches: batches})
}
