package producer

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/kseg/kseg/batch"
)

// Timing is the speed of the producer's two threads on the virtual clock:
// the application thread that calls send() and the sender thread that
// drains, closes and sends batches. Java runs them concurrently, so while
// the sender closes one batch the application keeps appending to others;
// that is what lets a node's drain take partly filled head batches of
// other partitions, and the compression estimate improve between batches
// of one burst (docs/producer-model.md, Timing).
//
// The zero Timing is the ideal model: every send() and every sender step
// takes no time, so a burst is appended before the sender first runs.
// DefaultTiming is calibrated against the real Java producer (docs/calibration.md
// has the procedure).
type Timing struct {
	// Application thread: the cost of one send(), from the moment its
	// timestamp is taken to the record being in its batch; the next
	// send() starts right after (plus Config.SendInterval).
	SendCost       time.Duration // fixed part (serialise, partition, append)
	SendCostPerKB  time.Duration // per KiB of the record's encoded size
	SendCostKey    time.Duration // extra for a record with a key (serialiser, murmur2)
	SendCostHeader time.Duration // extra per header
	// SendCostCodecPerKB is the extra per KiB when the batch is
	// compressed (the record is written through the compressor's buffer);
	// a negative value takes the codec's default.
	SendCostCodecPerKB time.Duration
	// BatchCost is the extra time of a send() that creates a batch (its
	// MemoryRecordsBuilder and compression stream: zstd-jni allocates its
	// context, zlib its deflater); negative takes the codec's default.
	BatchCost time.Duration
	// FirstSend is the extra time of the very first send() (class loading,
	// the first buffer and codec): its record's timestamp is taken before,
	// the next one's after.
	FirstSend time.Duration
	// CodecLoad is the extra time of the first send() with a codec: its
	// first batch loads the codec (classes, a native library for snappy,
	// lz4 and zstd); negative takes the codec's default.
	CodecLoad time.Duration
	// FirstSendJitter is the log-normal sigma of the first send()'s extra
	// time (FirstSend + CodecLoad), drawn once per run.
	FirstSendJitter float64
	// The first sends of a cold JVM are slower: send i's fixed cost
	// (SendCost, SendCostKey, SendCostHeader; not the per-KiB one) is
	// (1 + WarmupFactor * exp(-i/WarmupSends)) times the warm one.
	WarmupSends  int
	WarmupFactor float64
	// BatchWarmup is the share of the warm-up that BatchCost takes: a batch
	// created in send i costs (1 + BatchWarmup*WarmupFactor*exp(-i/
	// WarmupSends)) times BatchCost (0: none; the batch's code is JIT-
	// compiled over the same thousands of calls as send()'s).
	BatchWarmup float64

	// Sender thread.
	// WakeLatency is the time from wakeup(), a response or a poll timeout
	// until the sender runs while the application thread is busy (a burst:
	// on a loaded machine the JVM's threads compete for its CPU share);
	// IdleWakeLatency is the same while the application thread is idle
	// (waiting for its next send). The sender's latency is between the
	// two by the application thread's recent duty cycle (the share of time
	// it spent in send(), over the last few sends).
	WakeLatency     time.Duration
	IdleWakeLatency time.Duration
	// IdleSenderFactor scales the sender's loop and close costs (cold
	// ones included) while the application thread is idle: a cost is
	// multiplied by IdleSenderFactor + (1-IdleSenderFactor)*duty; 1 (or
	// 0, the zero value) leaves them as they are.
	IdleSenderFactor float64
	// IdleRTTFactor is the same for the produce round trip: the broker of
	// the calibration runs shares the machine, and answers a request in
	// 3-4 ms while the application thread sleeps between sends, against
	// the base RTT (9 ms, fitted) in a burst, where requests also queue
	// behind each other; 1 (or 0) leaves the round trip as it is.
	IdleRTTFactor float64
	LoopCost      time.Duration // one Sender.runOnce: ready, request building, network write
	CloseCost     time.Duration // ProducerBatch.close of one batch: header, CRC
	// BatchSendCost is the sender's work per drained batch after the
	// node's drain and before its produce request goes (the request's
	// building, the in-flight and metrics bookkeeping). Java closes each
	// batch inside the drain loop (the codec's flush, header, CRC) and
	// does the rest after it: while a batch closes, the application
	// appends to the partitions the loop has still to visit, and a new
	// sticky partition's first records leave with the old partition's
	// batch. 0 puts all of a batch's work inside the drain (CloseCost),
	// as the calibrated profile was fitted.
	BatchSendCost time.Duration
	// ClosePerKB is the close cost per KiB of uncompressed records: the
	// compressor runs on its buffered input when the batch closes (Kafka
	// buffers 16 KiB for gzip and zstd, 32 KiB for snappy, 64 KiB for lz4
	// in front of the codec, so a batch of that size or less is compressed
	// at close, on the sender thread). Negative: the codec's default.
	ClosePerKB time.Duration
	// MeasuredDrainClose, when 1, adds to each batch's close the Java
	// producer's close of a batch of its size and codec as measured
	// (DrainClose): what a what-if replay's sender does inside its drain.
	MeasuredDrainClose int

	// A cold JVM's sender: its first closes run interpreted code and load
	// the request path (and the codec) on a busy machine, so close k
	// costs ColdClose*exp(-k/ColdCloseDecay) more (ColdCloseCompressed
	// more again with a codec); a request's round trip is ColdRTT longer
	// for each partition in it that the broker appends to for the first
	// time (the first append to a fresh partition), and the requests
	// behind it wait for it.
	ColdClose           time.Duration
	ColdCloseCompressed time.Duration
	// ColdCloseDecay is how many closes the cold cost lasts: close k
	// costs exp(-k/ColdCloseDecay) of ColdClose (0: 2).
	ColdCloseDecay float64
	ColdRTT        time.Duration
	// FirstRTT is the extra round trip of the run's first produce request,
	// whatever it holds: the real first ack comes 45-60 ms after the first
	// request on every case, one partition or eight (the calibration tool's -burst).
	FirstRTT time.Duration
	// ColdJitter is the log-normal sigma of one factor per run on the
	// cold costs (ColdClose, ColdRTT, FirstRTT): on a busy machine the cold phase of
	// some runs takes hundreds of milliseconds.
	ColdJitter float64

	// Jitter: every cost is multiplied by a log-normal factor exp(s*N(0,1))
	// with s = Jitter, drawn per send, per wake-up and per close; each
	// run of the application thread is slower or faster by
	// exp(RunJitter*N(0,1)), the sender's by exp(SenderRunJitter*N(0,1))
	// (the sender's factor also scales the round trip: the broker shares
	// the machine's load); the
	// round trip by exp(RTTJitter*N(0,1)) per request; SenderJitter is the
	// sigma of the sender's wake-ups and closes (0: Jitter). The application
	// thread also stalls (GC, scheduling) on average once every PauseEvery
	// sends (0: never) for an exponentially distributed PauseMean.
	Jitter       float64
	SenderJitter float64
	RunJitter    float64
	// SenderRunJitter is RunJitter for the sender thread: measured apart,
	// since the application's burst time varies by about 20% from run to
	// run on a calm machine while the sender's timing varies far more.
	SenderRunJitter float64
	// IdleSenderJitter and IdleSenderRunJitter are SenderJitter and
	// SenderRunJitter while the application thread is idle (by its duty
	// cycle in between, as IdleSenderFactor): a sender that shares the
	// CPU with a busy application thread and broker is delayed by the
	// scheduler far more unevenly than one on a quiet machine (0: the
	// busy value).
	IdleSenderJitter    float64
	IdleSenderRunJitter float64
	// SenderStepMax bounds one sender step, jitter included: a wake-up's
	// latency, a loop, a close (0: no bound). A thread made runnable on a
	// loaded 2-core machine gets a CPU within tens of milliseconds, while
	// exp(SenderJitter*N(0,1)) at SenderJitter 1.36 reaches 60 times its
	// median in one draw of a thousand.
	SenderStepMax time.Duration
	RTTJitter     float64
	PauseEvery    float64
	// IdlePauseEvery is PauseEvery while the application thread is idle
	// (by its duty cycle in between: the stall probabilities mix): a
	// thread that sleeps until its next send wakes late now and then,
	// where a busy one is only slower (0: PauseEvery).
	IdlePauseEvery float64
	PauseMean      time.Duration
	// RequestPause is the mean time (exponential) the application thread
	// loses its CPU when a produce request goes out: on a small machine
	// the broker's threads handle the request on the same cores (0: none).
	RequestPause time.Duration

	// PollGranularity is the granularity of the sender's poll timeout:
	// Java computes it in whole milliseconds from a clock read in
	// milliseconds and waits it from the real now, so a linger expiry is
	// met late by the fraction of a millisecond the sender was into its
	// last one (1ms: Java's; 0: exactly at expiry, as the model was
	// fitted).
	PollGranularity time.Duration

	// RTTSpeedFloor bounds from below the factor a run's sender speed
	// (SenderRunJitter) puts on the produce round trip: the broker is its
	// own process, so a run whose sender thread happens to be fast does
	// not get a faster broker with it (1: the round trip is never faster
	// than its drawn base; 0: the sender's factor as it is, as the model
	// was fitted). A run whose sender is slow still waits longer for its
	// responses (its network thread is the sender).
	RTTSpeedFloor float64

	// BrokerSerialShare is the share of a produce request's round trip
	// the broker spends on it alone. Kafka handles one request of a
	// connection at a time (it mutes the connection from a request's
	// arrival until its response is sent), so requests in flight to one
	// broker overlap only in the rest: a response comes no sooner than
	// this share of its round trip after the previous one from that
	// broker (0: requests in flight overlap freely, as the model was
	// fitted). Measured for the trace sender (docs/calibration.md, "A
	// broker that answers one request at a time").
	BrokerSerialShare float64

	// Codecs are each codec's costs (indexed by batch.Codec), taken where
	// SendCostCodecPerKB, BatchCost, CodecLoad or ClosePerKB is negative.
	Codecs [batch.CodecZstd + 1]CodecCosts
}

// DefaultTiming is the timing of the default profile (DefaultProfile,
// profiles/default.json: calibrated against Kafka 4.4.0's Java producer
// and broker on one calm 2-core machine; docs/calibration.md has the
// procedure and the profile its provenance).
func DefaultTiming() Timing { return DefaultProfile().Timing }

// ideal reports whether t is the ideal (instantaneous) model.
func (t *Timing) ideal() bool { return *t == Timing{} }

func (t *Timing) valid() bool {
	for _, d := range []time.Duration{t.PollGranularity, t.SenderStepMax, t.ColdClose, t.ColdCloseCompressed, t.ColdRTT, t.FirstRTT, t.FirstSend, t.SendCost, t.SendCostPerKB, t.SendCostKey, t.SendCostHeader, t.WakeLatency, t.IdleWakeLatency, t.LoopCost, t.CloseCost, t.BatchSendCost, t.PauseMean, t.RequestPause} {
		if d < 0 {
			return false
		}
	}
	for _, cc := range t.Codecs {
		if cc.SendPerKB < 0 || cc.BatchCost < 0 || cc.Load < 0 || cc.ClosePerKB < 0 {
			return false
		}
	}
	return t.WarmupSends >= 0 && t.WarmupFactor >= 0 && t.BatchWarmup >= 0 && t.ColdCloseDecay >= 0 && t.IdleSenderFactor >= 0 && t.IdleSenderFactor <= 1 && t.RTTSpeedFloor >= 0 && t.RTTSpeedFloor <= 1 && t.BrokerSerialShare >= 0 && t.BrokerSerialShare <= 1 && (t.MeasuredDrainClose == 0 || t.MeasuredDrainClose == 1) && t.IdleRTTFactor >= 0 && t.IdleRTTFactor <= 1 && t.FirstSendJitter >= 0 && t.Jitter >= 0 && t.SenderJitter >= 0 && t.ColdJitter >= 0 && t.RunJitter >= 0 && t.SenderRunJitter >= 0 && t.IdleSenderJitter >= 0 && t.IdleSenderRunJitter >= 0 && t.RTTJitter >= 0 && t.PauseEvery >= 0 && t.IdlePauseEvery >= 0 &&
		!math.IsNaN(t.RTTSpeedFloor+t.WarmupFactor+t.BatchWarmup+t.ColdCloseDecay+t.FirstSendJitter+t.Jitter+t.RunJitter+t.SenderRunJitter+t.IdleSenderJitter+t.IdleSenderRunJitter+t.RTTJitter+t.PauseEvery+t.IdlePauseEvery)
}

// clock is one run's timing: the resolved costs in ns and its random
// source. A nil-safe zero clock (ideal) draws nothing.
type clock struct {
	ideal bool
	rng   *rand.Rand

	first, batch float64
	// codecShare is the codec's share of first (CodecLoad over FirstSend +
	// CodecLoad); firstCodec the codec load of this run's first send as
	// drawn: Java builds the first batch's compression stream (and so
	// loads the codec) after it stamps the batch's creation time.
	codecShare, firstCodec float64

	sendBase, sendPerByte, sendKey, sendHeader float64
	warmN, warmF, batchWarm                    float64
	wake, idleWake, loop, close, closePerByte  float64
	closeCurve                                 CloseCurve
	batchSend                                  float64
	jitter, rttJitter, senderJitter            float64
	firstJitter, idleF, idleRTT                float64
	cold, coldDecay, coldRTT, firstRTT         float64
	closes                                     int
	pauseP, idlePauseP, pauseMean              float64
	requestPause                               float64
	appSpeed                                   float64
	idleSenderJitter                           float64
	// The sender's speed over the run is exp(sigma*senderZ), sigma
	// between idleSenderRun and senderRun by the duty cycle.
	senderZ, senderRun, idleSenderRun float64
	stepMax                           float64
	pollGran                          int64
	rttFloor                          float64
	serial                            float64
	warmUntil                         int64 // sends past this are warm
	// noApp: send() takes no time at all (a trace replay's sender-only
	// timing), so its cost need not be computed
	noApp bool
}

func newClock(t Timing, codec batch.Codec, seed uint64, run int) *clock {
	c := &clock{ideal: t.ideal()}
	if c.ideal {
		return c
	}
	c.rng = rand.New(rand.NewPCG(seed, 0x74696d696e67+uint64(run))) // "timing"
	c.setCosts(t, codec)
	c.setJitter(t)
	c.drawRun(t)
	if t.WarmupSends > 0 && t.WarmupFactor > 0 {
		c.warmUntil = int64(t.WarmupSends) * 12 // exp(-12) is below any jitter
	}
	c.noApp = c.sendBase == 0 && c.sendPerByte == 0 && c.sendKey == 0 && c.sendHeader == 0 && c.first == 0 && c.pauseP == 0 && c.idlePauseP == 0
	return c
}

// setCosts sets the clock's costs: the application's sends, the sender's
// batches, wake-ups, loops and closes, the warm-up and the cold start,
// codec defaults standing in for the settings left negative.
func (c *clock) setCosts(t Timing, codec batch.Codec) {
	perKB := func(d time.Duration) float64 { return float64(d) / 1024 }
	load := float64(t.Codecs[codec].Load)
	if t.CodecLoad >= 0 {
		load = float64(t.CodecLoad)
	}
	c.first = float64(t.FirstSend) + load
	if c.first > 0 {
		c.codecShare = load / c.first
	}
	c.batch = float64(t.BatchCost)
	if t.BatchCost < 0 {
		c.batch = float64(t.Codecs[codec].BatchCost)
	}
	c.sendBase = float64(t.SendCost)
	c.sendPerByte = perKB(t.SendCostPerKB)
	if codec != batch.CodecNone {
		cp := t.SendCostCodecPerKB
		if cp < 0 {
			cp = t.Codecs[codec].SendPerKB
		}
		c.sendPerByte += perKB(cp)
	}
	c.sendKey, c.sendHeader = float64(t.SendCostKey), float64(t.SendCostHeader)
	c.warmN, c.warmF, c.batchWarm = float64(t.WarmupSends), t.WarmupFactor, t.BatchWarmup
	c.wake, c.idleWake = float64(t.WakeLatency), float64(t.IdleWakeLatency)
	c.loop, c.close, c.batchSend = float64(t.LoopCost), float64(t.CloseCost), float64(t.BatchSendCost)
	cp := t.ClosePerKB
	if cp < 0 {
		cp = t.Codecs[codec].ClosePerKB
	}
	c.closePerByte = perKB(cp)
	if t.MeasuredDrainClose > 0 {
		c.closeCurve = DrainClose(codec)
	}
	c.cold, c.coldRTT, c.firstRTT = float64(t.ColdClose), float64(t.ColdRTT), float64(t.FirstRTT)
	c.stepMax = float64(t.SenderStepMax)
	c.pollGran = int64(t.PollGranularity)
	c.rttFloor = t.RTTSpeedFloor
	c.serial = t.BrokerSerialShare
	c.coldDecay = t.ColdCloseDecay
	if c.coldDecay == 0 {
		c.coldDecay = 2
	}
	if codec != batch.CodecNone {
		c.cold += float64(t.ColdCloseCompressed)
	}
}

// setJitter sets how the clock's costs vary and pause, busy and idle,
// an idle setting left zero taking its busy value.
func (c *clock) setJitter(t Timing) {
	c.jitter, c.rttJitter, c.senderJitter = t.Jitter, t.RTTJitter, t.SenderJitter
	c.firstJitter = t.FirstSendJitter
	c.idleF = t.IdleSenderFactor
	if c.idleF == 0 {
		c.idleF = 1
	}
	c.idleRTT = t.IdleRTTFactor
	if c.idleRTT == 0 {
		c.idleRTT = 1
	}
	if c.senderJitter == 0 {
		c.senderJitter = c.jitter
	}
	if t.PauseEvery > 0 {
		c.pauseP = 1 / t.PauseEvery
	}
	c.idlePauseP = c.pauseP
	if t.IdlePauseEvery > 0 {
		c.idlePauseP = 1 / t.IdlePauseEvery
	}
	c.pauseMean = float64(t.PauseMean)
	c.requestPause = float64(t.RequestPause)
	c.idleSenderJitter = t.IdleSenderJitter
	if c.idleSenderJitter == 0 {
		c.idleSenderJitter = c.senderJitter
	}
	c.senderRun, c.idleSenderRun = t.SenderRunJitter, t.IdleSenderRunJitter
	if c.idleSenderRun == 0 {
		c.idleSenderRun = c.senderRun
	}
}

// drawRun draws what holds for the whole run: the application's and the
// sender's speed, and how cold the start is. These are the clock's first
// draws, in this order.
func (c *clock) drawRun(t Timing) {
	c.appSpeed = 1
	if t.RunJitter > 0 || t.SenderRunJitter > 0 || t.IdleSenderRunJitter > 0 {
		c.appSpeed = math.Exp(t.RunJitter * c.rng.NormFloat64())
		c.senderZ = c.rng.NormFloat64()
	}
	if t.ColdJitter > 0 {
		f := math.Exp(t.ColdJitter * c.rng.NormFloat64())
		c.cold *= f
		c.coldRTT *= f
		c.firstRTT *= f
	}
}

// stratify puts the run's sender speed in the middle of stratum i of n
// (n 0: the random draw stays); the clock's other draws are unchanged.
func (c *clock) stratify(i, n int) {
	if n > 0 && c.senderZ != 0 {
		c.senderZ = stratumZ(i, n)
	}
}

// stratumZ is the standard normal quantile at the middle of stratum i
// of n equal-probability strata. The runs of a replay take one stratum
// each instead of a random draw for the sender's speed over the run:
// with a run-to-run spread as wide as the trace sender's
// (senderRunJitter, 1.0), the median of 25 random draws has a standard
// error of a factor of about 1.3 on the speed (more with a fit's fewest,
// 7), and the fit then chases those draws, not the log.
func stratumZ(i, n int) float64 {
	return math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/float64(n)-1)
}

// noise is one log-normal jitter factor.
func (c *clock) noise(s float64) float64 {
	if s == 0 {
		return 1
	}
	return math.Exp(s * c.rng.NormFloat64())
}

// sendCost is the duration of send() number i for a record of size bytes
// while the application thread's duty cycle is duty.
func (c *clock) sendCost(i int64, size int, keyed bool, headers int, duty float64) int64 {
	if c.ideal {
		return 0
	}
	ns := c.sendBase + c.sendHeader*float64(headers)
	if keyed {
		ns += c.sendKey
	}
	if i < c.warmUntil {
		ns *= 1 + c.warmF*math.Exp(-float64(i)/c.warmN)
	}
	ns += c.sendPerByte * float64(size) // copying bytes is as fast cold as warm
	ns *= c.appSpeed * c.noise(c.jitter)
	if i == 0 {
		extra := c.first * c.noise(c.firstJitter)
		ns += extra
		c.firstCodec = extra * c.codecShare
	}
	if p := byDuty(c.idlePauseP, c.pauseP, duty); p > 0 && c.rng.Float64() < p {
		ns += c.pauseMean * c.rng.ExpFloat64()
	}
	return int64(ns)
}

// requestPauseNs draws how long the application thread loses its CPU to
// a produce request going out.
func (c *clock) requestPauseNs() int64 {
	if c.ideal || c.requestPause == 0 {
		return 0
	}
	return int64(c.requestPause * c.rng.ExpFloat64())
}

// batchCost is the application thread's extra time for creating a batch
// in send() number i.
func (c *clock) batchCost(i int64) int64 {
	if c.ideal || c.batch == 0 {
		return 0
	}
	ns := c.batch
	if c.batchWarm > 0 && i < c.warmUntil {
		ns *= 1 + c.batchWarm*c.warmF*math.Exp(-float64(i)/c.warmN)
	}
	return int64(ns * c.appSpeed * c.noise(c.jitter))
}

// byDuty is a setting between its idle and its busy value by the
// application thread's duty cycle (0 idle .. 1 busy).
func byDuty(idle, busy, duty float64) float64 { return idle + (busy-idle)*duty }

// senderSpeed is the sender's (and the broker's) speed factor over the
// run while the application thread's duty cycle is duty.
func (c *clock) senderSpeed(duty float64) float64 {
	if c.senderZ == 0 {
		return 1
	}
	return math.Exp(byDuty(c.idleSenderRun, c.senderRun, duty) * c.senderZ)
}

// senderNoise is one jitter factor on a sender step at duty cycle duty.
func (c *clock) senderNoise(duty float64) float64 {
	return c.noise(byDuty(c.idleSenderJitter, c.senderJitter, duty))
}

// wakeLatency is the delay from a wakeup to the sender running while the
// application thread's duty cycle is duty (0 idle .. 1 busy).
func (c *clock) wakeLatency(duty float64) int64 {
	if c.ideal {
		return 0
	}
	w := byDuty(c.idleWake, c.wake, duty)
	if w == 0 {
		return 0
	}
	return c.capStep(w * c.senderSpeed(duty) * c.senderNoise(duty))
}

// capStep bounds one sender step (a wake-up, a loop, a close) at
// SenderStepMax: the log-normal jitters have tails far longer than a
// runnable thread waits for a CPU.
func (c *clock) capStep(ns float64) int64 {
	if c.stepMax > 0 && ns > c.stepMax {
		return int64(c.stepMax)
	}
	return int64(ns)
}

// contention is the factor on the sender's own costs when the
// application thread's duty cycle is duty.
func (c *clock) contention(duty float64) float64 {
	return byDuty(c.idleF, 1, duty)
}

// loopCost is one sender iteration's own time.
func (c *clock) loopCost(duty float64) int64 {
	if c.ideal || c.loop == 0 {
		return 0
	}
	return c.capStep(c.loop * c.contention(duty) * c.senderSpeed(duty) * c.senderNoise(duty))
}

// closeCosts is the sender's time for one drained batch of uncompressed
// record bytes inside the drain (ProducerBatch.close: CloseCost, the
// codec's cost per byte; the sender's first closes are cold) and after
// it (BatchSendCost), under one draw of the sender's noise.
func (c *clock) closeCosts(uncompressed int, duty float64) (inDrain, after int64) {
	if c.ideal {
		return 0, 0
	}
	ns := c.close + c.closePerByte*float64(uncompressed) + c.closeCurve.At(uncompressed)
	if k := float64(c.closes); c.cold > 0 && k < 8*c.coldDecay {
		ns += c.cold * math.Exp(-k/c.coldDecay)
	}
	c.closes++
	if ns == 0 && c.batchSend == 0 {
		return 0, 0
	}
	contention, speed, noise := c.contention(duty), c.senderSpeed(duty), c.senderNoise(duty)
	if ns > 0 {
		inDrain = c.capStep(ns * contention * speed * noise)
	}
	if c.batchSend > 0 {
		after = c.capStep(c.batchSend * contention * speed * noise)
	}
	return inDrain, after
}

// serialNs is the part of a request's round trip rtt its broker spends
// on it alone (Timing.BrokerSerialShare).
func (c *clock) serialNs(rtt int64) int64 { return int64(float64(rtt) * c.serial) }

// rtt is one request's round trip; fresh of its partitions are appended
// to for the first time, first marks the run's first request; duty is the
// application thread's duty cycle.
func (c *clock) rtt(base time.Duration, fresh int, first bool, duty float64) int64 {
	if c.ideal {
		return int64(base)
	}
	load := byDuty(c.idleRTT, 1, duty)
	ns := float64(base)*load*c.noise(c.rttJitter) + c.coldRTT*float64(fresh)
	if first {
		ns += c.firstRTT
	}
	return int64(ns * max(c.rttFloor, c.senderSpeed(duty)))
}
