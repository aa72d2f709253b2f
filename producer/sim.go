package producer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

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
	Unc        int // uncompressed bytes of the records
	DrainedMs  int64
	CreatedMs  int64
	BaseSeq    int32
	EstimateAt float32
	Created    int64 // creation order of the batch over the run
	// ClosedBefore is how many batches had been closed (and had updated
	// the compression estimate) when this one was created.
	ClosedBefore int64
	Stick        int64 // sticky-partition period the batch was created in (-1 keyed)
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
	appended  []bool // the broker has appended to the partition (a request held it)
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
	burstEnd int64 // ns: when the last send() returned
	appAt    int64 // ns: when its append runs
	state    appState
	duty     float64 // the application thread's recent duty cycle (share of time in send())
	waitSize int64   // buffer size the blocked append needs
	blockAt  int64
	heldBuf  int64 // a buffer allocated by an append that restarted

	// sender thread (see senderStep)
	senderAt   int64
	phase      senderPhase
	pendWake   bool
	readyNodes []int
	readyMark  []bool // ready()'s answer, reused: read at once by its one caller
	node       int    // index into readyNodes of the node being drained
	dI, dLeft  int    // drain cycle over the node's partitions: next, visits left
	dSize      int    // request size so far
	dOut       []*pbatch
	reqLists   [][]*pbatch // request batch lists back from completed responses, for reuse
	dSent      bool        // this runOnce sent a request
	dNext      int64       // ready()'s next linger expiry for this runOnce
	closing    *pbatch     // batch being closed until senderAt
	dAfter     int64       // the drained batches' work after the node's drain (BatchSendCost)
	dDone      bool        // the node's drain loop is over (its request waits for dAfter)
	lastResp   int64
	// nodeResp is each broker's last response: the broker handles one
	// request of a connection at a time (Timing.BrokerSerialShare)
	nodeResp []int64

	clk  *clock
	recs *records

	// sizeOnly skips building batch bytes the sink does not need (a
	// simulation that only counts): sizes come from sizes.
	sizeOnly bool
	light    bool           // batches keep no bytes (a counting trace replay)
	held     [][]heldRecord // light batches' record lists, for reuse
	sizes    *sizeCache
	counter  func(part, records int)
	factor   float64

	// A trace replay (recs.trace set): the application thread sends record
	// i at arr.at(i) and puts it in the trace's partition (-1: the
	// partitioner's); tally gets each closed batch whose first record is
	// at or after countFrom, requests counts the produce requests.
	arr *arrivals
	// catchUp is a trace replay's application thread catching up: a
	// record whose arrival the replay delayed (a codec load the log did
	// not have) takes the calibrated profile's send() cost
	catchUp   bool
	tally     func(part, records, bytes int, cut string)
	countFrom int64
	countTo   int64 // 0: no end
	requests  int64

	sink     func(part int, b []byte, brokerMs int64) error
	onDrain  func(DrainedBatch)
	comp     *batch.Compressor
	out      []byte
	builders []*batch.Builder
	queue    []int
	created  int64
	// closedCount counts closed batches
	closedCount int64
	// firstReqAt and firstAckAt: when the first produce request left and
	// its response came (0 before)
	firstReqAt, firstAckAt int64
	// progress[k]: when send number ceil((k+1)*Records/ProgressSteps)
	// returned (Layout.Progress); nProgress of them are set
	progress  [ProgressSteps]int64
	nProgress int
	// a fixed-rate sender's lateness against its schedule (Layout.LateMax,
	// LateOver1ms)
	lateMax, lateOver1ms int64
}

// senderPhase is what the sender thread does until senderAt.
type senderPhase int

const (
	senderSleep senderPhase = iota // in poll until senderAt (linger expiry) or a wakeup
	senderRun                      // runOnce starts at senderAt
	senderClose                    // closing s.closing until senderAt, then draining on
	senderSend                     // the drained batches' work after the drain until senderAt, then the node's request
)

func newSim(cfg *Config, sink func(int, []byte, int64) error) *sim {
	recs, err := loadRecords(cfg)
	if err != nil {
		panic(err) // tests only: Write and Simulate load the records first
	}
	return newSimWith(cfg, sink, recs, nil)
}

// newSimWith builds run cfg.Run of the model over recs; sizes, when not
// nil, makes it a counting run: no batch is built, s.counter gets each
// batch's partition and record count instead of the sink its bytes.
func newSimWith(cfg *Config, sink func(int, []byte, int64) error, recs *records, sizes *sizeCache) *sim {
	return newSimReusing(cfg, sink, recs, sizes, nil)
}

// simScratch is the per-partition and per-broker state of a simulation,
// kept by a goroutine that runs many (a replay's windows) to be cleared
// and reused rather than allocated again: a topic of a thousand partitions
// replayed in thousands of short windows spent most of its time there.
type simScratch struct {
	deqs               []deque
	hasDeque, appended []bool
	leader, queue      []int
	nextSeq            []int32
	nodeParts          [][]int
	drainIdx, inflight []int
	nodeResp           []int64
	// comp is kept with the rest: a zstd encoder allocates megabytes of
	// tables, and a fit simulates thousands of short windows
	comp *batch.Compressor
	// sizes is a replay worker's (simulateWindows), nil elsewhere
	sizes *sizeCache
}

// zeroed returns xs[:n] cleared, reusing its array when it is large enough.
func zeroed[T any](xs []T, n int) []T {
	if cap(xs) < n {
		return make([]T, n)
	}
	xs = xs[:n]
	clear(xs)
	return xs
}

// newSimReusing is newSimWith taking its state's slices from sc (nil: new
// ones); sc must not be used by another simulation while this one runs.
func newSimReusing(cfg *Config, sink func(int, []byte, int64) error, recs *records, sizes *sizeCache, sc *simScratch) *sim {
	n := cfg.Partitions
	if sc == nil {
		sc = &simScratch{}
	}
	if sc.comp == nil {
		sc.comp = &batch.Compressor{}
	}
	sc.deqs = zeroed(sc.deqs, n)
	sc.hasDeque, sc.appended = zeroed(sc.hasDeque, n), zeroed(sc.appended, n)
	sc.leader, sc.queue = zeroed(sc.leader, n), zeroed(sc.queue, n)
	sc.nextSeq = zeroed(sc.nextSeq, n)
	sc.drainIdx, sc.inflight = zeroed(sc.drainIdx, cfg.Brokers), zeroed(sc.inflight, cfg.Brokers)
	sc.nodeResp = zeroed(sc.nodeResp, cfg.Brokers)
	if cap(sc.nodeParts) < cfg.Brokers {
		sc.nodeParts = make([][]int, cfg.Brokers)
	}
	sc.nodeParts = sc.nodeParts[:cfg.Brokers]
	for b := range sc.nodeParts {
		sc.nodeParts[b] = sc.nodeParts[b][:0]
	}
	s := &sim{
		cfg:       cfg,
		B:         cfg.effectiveBatchSize(),
		deqs:      sc.deqs,
		hasDeque:  sc.hasDeque,
		appended:  sc.appended,
		leader:    sc.leader,
		nodeParts: sc.nodeParts,
		drainIdx:  sc.drainIdx,
		inflight:  sc.inflight,
		nodeResp:  sc.nodeResp,
		nextSeq:   sc.nextSeq,
		comp:      sc.comp,
		est:       estimator{e: 1.0},
		senderAt:  never,
		sink:      sink,
		queue:     sc.queue,
		onDrain:   testDrainHook,
		recs:      recs,
		clk:       newClock(cfg.Timing, cfg.Compression, cfg.Seed, cfg.Run),
		sizeOnly:  sizes != nil,
		sizes:     sizes,
		factor:    cfg.codecSizeFactor(),
		duty:      1,
	}
	s.clk.stratify(cfg.runStratum, cfg.runStrata)
	for p := 0; p < n; p++ {
		s.leader[p] = p % cfg.Brokers
		s.nodeParts[s.leader[p]] = append(s.nodeParts[s.leader[p]], p)
	}
	copy(sc.nodeParts, s.nodeParts)                                            // keep the grown arrays for the next
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b7365672d726566+uint64(cfg.Run))) // "kseg-ref"
	s.sticky = stickyPartitioner{n: n, batchSize: s.B, part: -1, rnd: rng.Uint32}
	start := cfg.StartTime * 1e6
	s.appTs = start
	if recs.trace != nil {
		s.light = s.sizeOnly
		s.arr = newArrivals(recs.trace, cfg.spread, cfg.Seed, cfg.Run)
		s.arr.early = cfg.early
		s.catchUp = cfg.Timing.CodecLoad > 0
		if cfg.Records > 0 {
			s.appTs = s.arr.at(0)
		}
	}
	s.appAt = s.appTs + int64(cfg.FirstSendDelay) + s.sendCost(0)
	s.pidAt = start + int64(cfg.PIDDelay)
	return s
}

// sendCost is the application thread's time for send() number i.
func (s *sim) sendCost(i int64) int64 {
	if s.clk.ideal || s.clk.noApp || i >= s.cfg.Records {
		return 0
	}
	key, value, hdr := s.recs.at(i)
	size := batch.EstimateSizeUpperBound(key, value, hdr) - batch.HeaderSize - batch.MaxRecordOverhead
	return s.clk.sendCost(i, size, key != nil, len(hdr), s.duty)
}

// catchUpCost is the calibrated profile's send() time for record i,
// without jitter: how fast the application thread sends the records that
// waited for it (a cold JVM's first sends are slower, as the profile's
// warm-up has them).
func (s *sim) catchUpCost(i int64) int64 {
	t := DefaultTiming()
	key, value, hdr := s.recs.at(i)
	size := batch.EstimateSizeUpperBound(key, value, hdr) - batch.HeaderSize - batch.MaxRecordOverhead
	ns := float64(t.SendCost + time.Duration(len(hdr))*t.SendCostHeader)
	if key != nil {
		ns += float64(t.SendCostKey)
	}
	if t.WarmupSends > 0 {
		ns *= 1 + t.WarmupFactor*math.Exp(-float64(i)/float64(t.WarmupSends))
	}
	return int64(ns + float64(t.SendCostPerKB)*float64(size)/1024)
}

// dutyWeight is the weight of the last send in the application thread's
// duty cycle (an exponential average over about 1/dutyWeight sends).
const dutyWeight = 0.25

// appDuty is the application thread's duty cycle now (dutyAt).
func (s *sim) appDuty() float64 { return s.dutyAt(s.now) }

// dutyAt is the application thread's duty cycle at t (not before now) as
// far as it is known now: 0 while it waits (for an ack, for buffer
// memory, or in flush() after the last send) or sleeps until its next
// send is due (t before that send's start: a fixed-rate or bursty sender
// between sends, when the sender thread has a CPU to itself), its recent
// duty cycle otherwise.
func (s *sim) dutyAt(t int64) float64 {
	if s.state != appReady || t < s.appTs {
		return 0
	}
	return s.duty
}

// wake is Sender.wakeup(): a sleeping sender runs after its wake-up
// latency; a running one goes round again instead of sleeping.
func (s *sim) wake() {
	if s.phase != senderSleep {
		s.pendWake = true
		return
	}
	if at := s.now + s.clk.wakeLatency(s.appDuty()); at < s.senderAt {
		s.senderAt = at
		s.phase = senderRun
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
		for s.senderAt <= t {
			if err := s.senderStep(); err != nil {
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
	key, value, hdr := s.recs.at(i)
	ub := batch.EstimateSizeUpperBound(key, value, hdr)
	if ub > s.cfg.MaxRequestSize {
		return fmt.Errorf("%w: record %d is %d bytes (upper bound), max.request.size is %d", ErrRecordTooLarge, i, ub, s.cfg.MaxRequestSize)
	}
	if int64(ub) > s.cfg.BufferMemory {
		return fmt.Errorf("%w: record %d is %d bytes (upper bound), buffer.memory is %d", ErrRecordTooLarge, i, ub, s.cfg.BufferMemory)
	}
	part := -1
	switch {
	case s.arr != nil:
		part = int(s.recs.trace.rec(int(i)).part)
	case key != nil:
		part = PartitionForKey(key, s.cfg.Partitions)
	}
	tsMs := s.appTs / 1e6
	if s.cfg.TimestampStepMs >= 0 {
		tsMs = s.cfg.StartTime + i*s.cfg.TimestampStepMs
	}
	pb, full, created, ok := s.append(part, tsMs, key, value, hdr, ub)
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
	from := s.now
	if created {
		from += s.clk.batchCost(i) // the new batch's buffer and compression stream
	}
	s.scheduleNext(from)
	return nil
}

// cpuFreed is the application thread going to sleep at t until its next
// send is due: a sender that is waiting for a CPU (a wake-up or a loop
// drawn while the thread was busy) gets one then, as promptly as on a
// quiet machine. Without it a wake-up drawn from the busy sender's
// long-tailed jitter could outlast the thread's whole sleep (docs/
// calibration.md, "Partial drains of bursts"). Before the producer id
// the sender waits for it, not for a CPU.
func (s *sim) cpuFreed(t int64) {
	if s.arr != nil || s.clk.ideal || s.phase != senderRun || s.senderAt <= t || (s.cfg.Idempotence && t < s.pidAt) {
		return
	}
	s.senderAt = min(s.senderAt, t+s.clk.wakeLatency(0))
}

func (s *sim) scheduleNext(from int64) {
	for s.nProgress < ProgressSteps && s.next*ProgressSteps >= int64(s.nProgress+1)*s.cfg.Records {
		s.progress[s.nProgress] = from
		s.nProgress++
	}
	if s.next >= s.cfg.Records {
		s.burstEnd = from
		s.state = appDone
		s.closed = true // KafkaProducer.close(): everything becomes sendable
		s.wake()
		return
	}
	s.state = appReady
	prev := s.appTs
	var catchUp int64
	if s.arr != nil {
		// A trace: send i starts when the log says it did, or when send
		// i-1 returns (or, sync, its ack came) if that is later.
		due := s.arr.at(s.next)
		s.appTs = max(due, from)
		if s.catchUp && due < from {
			catchUp = s.catchUpCost(s.next)
		}
	} else if s.cfg.Sync {
		s.appTs = from + int64(s.cfg.SendInterval) // think time after the ack
	} else {
		// A fixed-rate sender: send i starts at start + i*interval, or
		// when send i-1 returns if that is later. In bursts of B, send i
		// is due with its burst, at start + floor(i/B)*interval (its
		// lateness is then its time into the burst, as the what-if
		// data's schedules measure it).
		k := s.next
		if b := s.cfg.Burst; b > 1 {
			k = s.next / b
		}
		due := s.cfg.StartTime*1e6 + k*int64(s.cfg.SendInterval)
		s.appTs = max(due, from)
		if late := s.appTs - due; late > 0 && s.cfg.SendInterval > 0 {
			s.lateMax = max(s.lateMax, late)
			if late > 1e6 {
				s.lateOver1ms++
			}
		}
	}
	if s.appTs > from {
		s.cpuFreed(from)
	}
	// The duty cycle of the send that returned at from: its time in send()
	// over the time until the next one starts, averaged over recent sends.
	if s.arr == nil {
		// (a trace replay's sender costs do not depend on the duty
		// cycle, which decays into subnormal floats between sends)
		d := 1.0
		if period := s.appTs - prev; period > 0 && from-prev < period {
			d = float64(max(from-prev, 0)) / float64(period)
		}
		s.duty += dutyWeight * (d - s.duty)
	}
	s.appAt = s.appTs + s.sendCost(s.next) + catchUp
}

// append is RecordAccumulator.append for one record (single application
// thread, so the partitioner races of Java cannot happen, but its restart
// paths can). ok is false when the buffer pool cannot serve the new batch.
func (s *sim) append(part int, ts int64, key, value []byte, hdr []batch.RecordHeader, ub int) (pb *pbatch, full, created, ok bool) {
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
			if last.hasRoomFor(ts, key, value, hdr) {
				last.add(s.next, ts, key, value, hdr)
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
		createdAt := s.now
		if s.next == 0 {
			// RecordAccumulator stamps a new batch (nowMs) before its
			// MemoryRecordsBuilder builds the compression stream, which
			// the first time loads the codec: the first batch is older
			// by the codec's load when it reaches its deque, and is
			// linger-expired there if the load outlasts linger.ms.
			createdAt -= int64(s.clk.firstCodec)
		}
		nb := &pbatch{
			part:       p,
			light:      s.light,
			codec:      s.cfg.Compression,
			createdMs:  createdAt / 1e6,
			writeLimit: int(size),
			ratio:      s.est.e,
			bufSize:    size,
			created:    s.created,
			stick:      -1,
		}
		if !s.light {
			nb.b = s.builder()
		} else if nb.codec != batch.CodecNone {
			if n := len(s.held); n > 0 {
				nb.held, s.held = s.held[n-1], s.held[:n-1]
			}
		}
		nb.closedBefore = s.closedCount
		nb.first = s.next
		if sticky {
			nb.stick = s.sticky.switches
		}
		s.created++
		nb.add(s.next, ts, key, value, hdr)
		d.push(nb)
		s.heldBuf = 0
		if sticky {
			s.sticky.update(nb.estimatedBytes(), d.allFull())
		}
		return nb, d.len() > 1 || nb.isFull(), true, true
	}
}

// compressedSize is the size of pb's records compressed, from the cache;
// a light batch's records are built here from the records it holds.
func (s *sim) compressedSize(pb *pbatch) (int, error) {
	if !pb.light {
		return s.sizes.compressed(s.cfg.Compression, pb.b.RecordBytes(), s.comp)
	}
	b := s.builder()
	defer func() { s.builders = append(s.builders, b) }()
	for _, r := range pb.held {
		key, value, hdr := s.recs.at(r.i)
		b.Append(r.ts, key, value, hdr)
	}
	if b.UncompressedBytes() != pb.lunc {
		return 0, fmt.Errorf("internal: a batch's %d records rebuilt to %d bytes, %d when appended", pb.ln, b.UncompressedBytes(), pb.lunc)
	}
	s.held = append(s.held, pb.held[:0])
	pb.held = nil
	return s.sizes.compressed(s.cfg.Compression, b.RecordBytes(), s.comp)
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
		if pb.b != nil {
			s.builders = append(s.builders, pb.b)
			pb.b = nil
		}
	}
	clear(batches) // the closed batches are not kept for the list's sake
	s.reqLists = append(s.reqLists, batches[:0])
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
	if len(s.readyMark) != s.cfg.Brokers {
		s.readyMark = make([]bool, s.cfg.Brokers)
	}
	nodes = s.readyMark
	clear(nodes)
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

// senderStep advances the sender thread at senderAt. One Sender.runOnce
// is: ready(), then drain every ready node below its in-flight limit
// (closing each drained batch takes the close cost, during which the
// application keeps appending), one produce request per node; if anything
// was sent it goes round again after its loop cost (pollTimeout 0),
// otherwise it sleeps until the next linger expiry or a wakeup.
func (s *sim) senderStep() error {
	if s.phase == senderClose {
		if err := s.finishClose(); err != nil {
			return err
		}
		return s.drainOn()
	}
	if s.phase == senderSend {
		return s.drainOn()
	}
	s.senderAt = never
	if s.cfg.Idempotence && s.now < s.pidAt {
		s.senderAt, s.phase = s.pidAt, senderRun // the InitProducerId response wakes the sender
		return nil
	}
	s.pendWake = false
	nodes, next := s.ready()
	s.readyNodes = s.readyNodes[:0]
	for n, ok := range nodes {
		if ok && s.inflight[n] < s.cfg.MaxInFlight {
			s.readyNodes = append(s.readyNodes, n)
		}
	}
	if len(s.readyNodes) == 0 {
		s.sleep(next)
		return nil
	}
	s.dSent, s.dNext = false, next
	s.node = -1
	s.nextNode()
	return s.drainOn()
}

// sleep puts the sender in poll until at, unless a wakeup came while it
// was running.
func (s *sim) sleep(at int64) {
	if s.pendWake {
		s.pendWake = false
		s.senderAt, s.phase = s.now+s.clk.loopCost(s.appDuty()), senderRun
		return
	}
	if at != never {
		// Java's poll timeout is whole milliseconds from the sender's clock
		// read in milliseconds (ready()'s nowMs), and the poll waits it
		// from the real now: a linger expiry is met up to 1 ms late
		// (Timing.PollGranularity).
		if g := s.clk.pollGran; g > 0 {
			at += s.now % g
		}
		at += s.clk.wakeLatency(s.dutyAt(at)) // a timed-out poll needs the CPU as much as a wakeup, when it times out
	}
	s.senderAt, s.phase = at, senderSleep
}

// nextNode starts the drain of the next ready node.
func (s *sim) nextNode() {
	s.node++
	if s.node < len(s.readyNodes) {
		parts := s.nodeParts[s.readyNodes[s.node]]
		s.dSize, s.dOut, s.dI, s.dLeft = 0, nil, 0, len(parts)
		s.dAfter, s.dDone = 0, false
		if len(parts) > 0 {
			s.dI = s.drainIdx[s.readyNodes[s.node]] % len(parts)
		}
	}
}

// drainOn is RecordAccumulator.drainBatchesForOneNode, one batch at a
// time: at most one batch per partition, cyclic from the node's drain
// index, up to max.request.size. A batch leaves its deque when drained;
// its close takes time, after which the drain goes on; the batches' work
// after the drain (BatchSendCost) delays the node's request.
func (s *sim) drainOn() error {
	for s.node < len(s.readyNodes) {
		node := s.readyNodes[s.node]
		parts := s.nodeParts[node]
		for s.dLeft > 0 && !s.dDone {
			p := parts[s.dI]
			s.drainIdx[node] = s.dI
			s.dI = (s.dI + 1) % len(parts)
			s.dLeft--
			d := &s.deqs[p]
			if d.len() == 0 {
				continue
			}
			first := d.first()
			if s.dSize+first.estimatedBytes() > s.cfg.MaxRequestSize && len(s.dOut) > 0 {
				break
			}
			d.pop()
			s.closing = first
			c, after := s.clk.closeCosts(first.uncBytes(), s.appDuty())
			s.dAfter += after
			if c > 0 {
				s.senderAt, s.phase = s.now+c, senderClose
				return nil
			}
			if err := s.finishClose(); err != nil {
				return err
			}
		}
		s.dDone = true
		if len(s.dOut) > 0 && s.dAfter > 0 {
			// the batches' work after the drain, then the request
			s.senderAt, s.phase = s.now+s.dAfter, senderSend
			s.dAfter = 0
			return nil
		}
		if len(s.dOut) > 0 {
			s.request(node, s.dOut)
			s.dOut = nil
			s.dSent = true
		}
		s.nextNode()
	}
	if s.dSent {
		// pollTimeout 0: go round again.
		s.senderAt, s.phase = s.now+s.clk.loopCost(s.appDuty()), senderRun
		return nil
	}
	s.sleep(s.dNext)
	return nil
}

// finishClose closes the batch the drain took and adds it to the request.
func (s *sim) finishClose() error {
	pb := s.closing
	s.closing = nil
	n, err := s.close(pb)
	if err != nil {
		return err
	}
	s.dSize += n
	if s.dOut == nil {
		if n := len(s.reqLists); n > 0 {
			s.dOut, s.reqLists = s.reqLists[n-1], s.reqLists[:n-1]
		}
	}
	s.dOut = append(s.dOut, pb)
	return nil
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
		s.nextSeq[pb.part] = batch.IncrementSequence(s.nextSeq[pb.part], int32(pb.numRecords()))
	}
	var n int
	if s.sizeOnly {
		// A counting run: the sink reads the header only, the size of a
		// compressed batch comes from the cache.
		h.RecordCount = int32(pb.numRecords())
		h.LastOffsetDelta = h.RecordCount - 1
		n = batch.HeaderSize + pb.uncBytes()
		if s.cfg.Compression != batch.CodecNone {
			c, err := s.compressedSize(pb)
			if err != nil {
				return 0, err
			}
			n = batch.HeaderSize + c
		}
	} else {
		var err error
		s.out, err = pb.b.Build(s.out[:0], h, s.comp)
		if err != nil {
			return 0, err
		}
		n = len(s.out)
	}
	if s.cfg.Compression != batch.CodecNone {
		s.est.update(s.observedRatio(n-batch.HeaderSize, pb.uncBytes()))
	}
	s.closedCount++
	if s.onDrain != nil {
		s.onDrain(DrainedBatch{Partition: pb.part, Records: pb.numRecords(), Bytes: n, Unc: pb.uncBytes(),
			DrainedMs: s.now / 1e6, CreatedMs: pb.createdMs, BaseSeq: h.BaseSequence, EstimateAt: pb.ratio, Created: pb.created, Stick: pb.stick, ClosedBefore: pb.closedBefore, Cut: cut})
	}
	if s.sizeOnly {
		if s.counter != nil {
			s.counter(pb.part, pb.numRecords())
		}
		if s.tally != nil && s.counts(pb) {
			s.tally(pb.part, pb.numRecords(), n, cut)
		}
		return n, nil
	}
	// Requests arrive in send order, so the broker's append can run now
	// with the arrival time as its clock.
	brokerMs := (s.now + int64(s.cfg.RTT)/2) / 1e6
	if err := s.sink(pb.part, s.out, brokerMs); err != nil {
		return 0, err
	}
	return n, nil
}

// observedRatio is MemoryRecordsBuilder's actualCompressionRatio, with the
// compressed size scaled to what Java's codec would have written.
func (s *sim) observedRatio(compressed, uncompressed int) float32 {
	if s.factor == 1 {
		return float32(compressed) / float32(uncompressed)
	}
	return float32(math.Round(float64(compressed)*s.factor)) / float32(uncompressed)
}

// counts reports whether a trace replay's window counts pb: its first
// record is in the window's own records.
func (s *sim) counts(pb *pbatch) bool {
	return pb.first >= s.countFrom && (s.countTo == 0 || pb.first < s.countTo)
}

// request puts a produce request in flight; acks=0 completes at once.
func (s *sim) request(node int, batches []*pbatch) {
	s.inflight[node]++
	if s.arr == nil && s.state == appReady {
		if p := s.clk.requestPauseNs(); p > 0 {
			// the application thread is off its CPU for p: a send not yet
			// begun begins after it (its timestamp too), one under way ends
			// p later
			if s.appTs >= s.now {
				d := max(0, s.now+p-s.appTs)
				s.appTs += d
				s.appAt += d
			} else {
				s.appAt += p
			}
		}
	}
	if len(batches) > 0 && s.counts(batches[0]) {
		s.requests++
	}
	if s.cfg.Acks == 0 {
		s.complete(node, batches)
		return
	}
	fresh := 0
	for _, pb := range batches {
		if !s.appended[pb.part] {
			s.appended[pb.part] = true
			fresh++
		}
	}
	rtt := s.clk.rtt(s.cfg.RTT, fresh, s.firstReqAt == 0, s.appDuty())
	at := max(s.now+rtt, s.lastResp, s.nodeResp[node]+s.clk.serialNs(rtt)) // responses come back in order
	s.nodeResp[node] = at
	if s.firstReqAt == 0 {
		s.firstReqAt, s.firstAckAt = s.now, at
	}
	s.lastResp = at
	s.resp = append(s.resp, response{at: at, node: node, batches: batches})
}
