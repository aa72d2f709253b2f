package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kseg/kseg/batch"
	"github.com/kseg/kseg/segment"
)

// partReader is one partition's offset range; open starts fetching it.
type partReader struct {
	cc        *Cluster
	name      string
	topic     string
	id        kadm.TopicID
	partition int32
	leader    int32
	from, to  int64
}

func (p *partReader) open() (segment.Source, io.Closer, error) {
	f := &fetcher{p: *p, cfg: p.cc.cfg, size: p.cc.cfg.FetchBytes}
	r := startReader(f)
	return segment.Source{Name: p.name, R: r, Size: -1}, r, nil
}

// startReader starts f fetching into a new reader.
func startReader(f *fetcher) *reader {
	ctx, cancel := context.WithCancel(context.Background())
	r := &reader{name: f.p.name, ch: make(chan chunk, f.cfg.Prefetch), cancel: cancel}
	r.from, r.to = f.p.from, f.p.to
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(r.ch)
		f.run(ctx, r.ch)
	}()
	return r
}

// chunk is the complete batches of one Fetch response (or the error that
// ended the fetching).
type chunk struct {
	b   []byte
	err error
}

// reader serves a partition's fetched batches, back to back, as one byte
// space that segment.Stream frames like a file. It reads forward: a
// response is dropped once a read starts past its end, so at most
// Prefetch responses wait in the channel, one is being fetched, and the
// retained ones cover one read (the stream's 1 MiB block or one batch)
// plus one response.
type reader struct {
	name   string
	ch     chan chunk
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	chunks [][]byte
	start  int64 // position of chunks[0]
	end    int64 // position after the last chunk
	done   bool
	err    error
	peak   int64 // the most bytes held at once (tests check the bound)

	from, to int64 // the offsets asked for (OffsetRange)
}

// OffsetRange is the offsets [from, to) asked for: the first and last
// batches fetched can hold records outside it (dump.OffsetRanger).
func (r *reader) OffsetRange() (from, to int64) { return r.from, r.to }

func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.fill(off, off+int64(len(p))); err != nil {
		return 0, err
	}
	n := 0
	pos := r.start
	for _, b := range r.chunks {
		if n == len(p) {
			break
		}
		cend := pos + int64(len(b))
		if cend > off+int64(n) {
			i := off + int64(n) - pos
			n += copy(p[n:], b[i:])
		}
		pos = cend
	}
	if n < len(p) {
		if r.err != nil {
			return n, segment.ReadFailure(&fs.PathError{Op: "fetch", Path: r.name, Err: r.err})
		}
		return n, io.EOF
	}
	return n, nil
}

// Slice serves the fetched bytes in place (segment.Slicer): a response's
// batches are complete, so every entry lies in one response and the
// stream frames it where the fetch put it, without a copy. It returns
// the bytes from off to the end of its response, or nil when they are
// fewer than n (ReadAt then says why).
func (r *reader) Slice(off int64, n int) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.fill(off, off+int64(n)); err != nil {
		return nil, err
	}
	pos := r.start
	for _, b := range r.chunks {
		cend := pos + int64(len(b))
		if off < cend {
			if off+int64(n) > cend {
				return nil, nil
			}
			return b[off-pos:], nil
		}
		pos = cend
	}
	return nil, nil
}

// fill drops the responses wholly before off and takes responses from
// the fetcher until they reach want (or the fetching ended).
func (r *reader) fill(off, want int64) error {
	// Drop what lies wholly before off.
	for len(r.chunks) > 0 && r.start+int64(len(r.chunks[0])) <= off {
		r.start += int64(len(r.chunks[0]))
		r.chunks[0] = nil
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 && r.start < off && r.end <= off {
		r.start = r.end
	}
	if off < r.start {
		return segment.ReadFailure(&fs.PathError{Op: "read", Path: r.name, Err: fmt.Errorf("position %d is behind the fetched window (%d): the wire source reads forward only", off, r.start)})
	}
	for r.end < want && !r.done {
		c, ok := <-r.ch
		switch {
		case !ok:
			r.done = true
		case c.err != nil:
			r.done, r.err = true, c.err
		default:
			if len(r.chunks) == 0 {
				r.start = r.end
			}
			r.chunks = append(r.chunks, c.b)
			r.end += int64(len(c.b))
			r.peak = max(r.peak, r.end-r.start)
		}
	}
	return nil
}

// Close stops the fetching and frees what was fetched.
func (r *reader) Close() error {
	r.cancel()
	go func() {
		for range r.ch {
		}
	}()
	r.wg.Wait()
	r.mu.Lock()
	r.chunks = nil
	r.mu.Unlock()
	return nil
}

type fetcher struct {
	p    partReader
	cfg  Config
	size int32
	st   segment.Stream // frames each response, reused
	// do and refresh replace the Fetch request and the leader refresh
	// (tests).
	do      func(ctx context.Context, offset int64, size int32) (*kmsg.FetchResponseTopicPartition, error)
	refresh func(ctx context.Context) error
	// seen, when set, is told every partition response (a replica's high
	// watermark, kseg replicas).
	seen func(*kmsg.FetchResponseTopicPartition)
}

// run fetches [from, to) in order and sends the complete batches of each
// response.
func (f *fetcher) run(ctx context.Context, out chan<- chunk) {
	send := func(c chunk) bool {
		select {
		case out <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	next := f.p.from
	empty := 0
	for next < f.p.to {
		part, err := f.fetch(ctx, next)
		if err != nil {
			if ctx.Err() == nil {
				send(chunk{err: fmt.Errorf("%s-%d at offset %d: %w", f.p.topic, f.p.partition, next, err)})
			}
			return
		}
		if f.seen != nil {
			f.seen(part)
		}
		b, last, done, err := frame(&f.st, f.p.name, part.RecordBatches, next, f.p.to, false)
		if err == nil && len(b) == 0 && !done && len(part.RecordBatches) > 0 {
			// No whole entry: before the size grows for it, make sure
			// its size field is not a corrupt one with whole entries
			// after it (the stream's trailing check).
			_, _, _, err = frame(&f.st, f.p.name, part.RecordBatches, next, f.p.to, true)
		}
		if err != nil {
			send(chunk{err: fmt.Errorf("%s-%d at offset %d: %w", f.p.topic, f.p.partition, next, err)})
			return
		}
		if len(b) == 0 && !done {
			if len(part.RecordBatches) > 0 {
				// Only part of one batch: it is larger than the fetch size.
				if f.size >= MaxFetchBytes {
					send(chunk{err: fmt.Errorf("%s-%d at offset %d: a batch larger than %d bytes: %w", f.p.topic, f.p.partition, next, MaxFetchBytes, ErrPartition)})
					return
				}
				f.size = min(f.size*2, MaxFetchBytes)
				continue
			}
			if next >= part.HighWatermark {
				return // the range ends beyond what the partition holds
			}
			if empty++; empty > f.cfg.Retries {
				send(chunk{err: fmt.Errorf("%s-%d: no batches at offset %d below the high watermark %d: %w", f.p.topic, f.p.partition, next, part.HighWatermark, ErrPartition)})
				return
			}
			if !sleep(ctx, backoff(empty)) {
				return
			}
			continue
		}
		empty = 0
		if len(b) > 0 && !send(chunk{b: b}) {
			return
		}
		if done {
			return
		}
		next = last + 1
		f.size = f.nextSize(f.size, len(part.RecordBatches))
	}
}

// adaptiveFetchBytes is how far the fetch size grows by itself: a
// partition whose responses come back full is fetched in larger
// responses, up to this (or --fetch-bytes, if larger). A 1 MiB fetch
// cost twice the CPU per byte of a 4 MiB one on a log of small batches.
const adaptiveFetchBytes = 4 << 20

// nextSize is the fetch size after a response of got bytes fetched with
// size: twice as large while responses fill three quarters of it (up to
// adaptiveFetchBytes), back to --fetch-bytes after a grown size that
// fetched a batch larger than --fetch-bytes, the same otherwise.
func (f *fetcher) nextSize(size int32, got int) int32 {
	limit := max(f.cfg.FetchBytes, adaptiveFetchBytes)
	switch {
	case size > limit:
		return f.cfg.FetchBytes // grown for one large batch
	case int64(got) >= int64(size)*3/4 && size < limit:
		return min(size*2, limit)
	}
	return size
}

// frame keeps the complete entries of a response that belong to [next, to)
// (a first entry starting before next holds next), framed by kseg's stream:
// it returns their bytes, the last offset they hold, and whether the range
// is complete. A torn entry at the end is left to be fetched again from
// its offset. Only when strict does the stream look past a torn end for
// whole entries (its TrailingError): a response's torn tail is the rule,
// and that search (a checksum of every byte after it) cost 6% of count's
// CPU over the wire.
func frame(st *segment.Stream, name string, rb []byte, next, to int64, strict bool) ([]byte, int64, bool, error) {
	st.SetOptions(segment.Options{LenientTail: !strict})
	// In place (BytesSource is a segment.Slicer): no copy of the response.
	st.Reset(segment.BytesSource(name, rb))
	end, last := int64(0), next-1
	for st.Next() {
		b := st.Batch()
		raw, err := b.Bytes()
		if err != nil {
			return nil, 0, false, err
		}
		first, lastOff := legacyOffset(raw), legacyOffset(raw)
		if b.Magic >= batch.MagicV2 {
			first, lastOff = b.Header.BaseOffset, b.Header.BaseOffset+int64(b.Header.LastOffsetDelta)
		} else if in, err := b.Info(); err == nil {
			first = in.BaseOffset
		}
		if lastOff < next {
			continue // before the range: never sent by a broker, skipped if it were
		}
		if first >= to {
			return rb[:end], last, true, nil
		}
		end, last = b.Pos+b.Size, lastOff
		_ = first
	}
	if err := st.Err(); err != nil {
		return nil, 0, false, err
	}
	return rb[:end], last, last+1 >= to, nil
}

func legacyOffset(raw []byte) int64 { return int64(binary.BigEndian.Uint64(raw)) }

// fetch sends one Fetch for the partition at offset to its leader,
// refreshing the leader and retrying on the errors a leader change or a
// broker going down gives, for at most Config.Timeout and Config.Retries
// attempts.
func (f *fetcher) fetch(ctx context.Context, offset int64) (*kmsg.FetchResponseTopicPartition, error) {
	var last error
	start := time.Now()
	for attempt := 0; attempt <= f.cfg.Retries; attempt++ {
		if attempt > 0 {
			wait := backoff(attempt)
			if f.cfg.Timeout > 0 {
				left := f.cfg.Timeout - time.Since(start)
				if left <= 0 {
					return nil, fmt.Errorf("leader %d: %v (retried for %s, --timeout): %w", f.p.leader, classify(last), f.cfg.Timeout, ErrPartition)
				}
				wait = min(wait, left)
			}
			if !sleep(ctx, wait) {
				return nil, ctx.Err()
			}
			refresh := f.refreshLeader
			if f.refresh != nil {
				refresh = f.refresh
			}
			if err := refresh(ctx); err != nil {
				last = err
				continue
			}
		}
		var part *kmsg.FetchResponseTopicPartition
		var err error
		if f.do != nil {
			part, err = f.do(ctx, offset, f.size)
		} else {
			part, err = f.fetchOnce(ctx, offset)
		}
		if err == nil {
			return part, nil
		}
		if !retriable(err) || ctx.Err() != nil {
			return nil, classify(err)
		}
		last = err
	}
	return nil, fmt.Errorf("leader %d: %v: %w", f.p.leader, classify(last), ErrPartition)
}

func (f *fetcher) fetchOnce(ctx context.Context, offset int64) (*kmsg.FetchResponseTopicPartition, error) {
	if f.p.leader < 0 {
		return nil, kerr.LeaderNotAvailable
	}
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 1
	req.MaxBytes = f.size
	req.IsolationLevel = 0 // read_uncommitted: aborted batches and markers too
	req.SessionID = 0
	req.SessionEpoch = -1
	t := kmsg.NewFetchRequestTopic()
	t.Topic = f.p.topic
	t.TopicID = f.p.id
	pt := kmsg.NewFetchRequestTopicPartition()
	pt.Partition = f.p.partition
	pt.FetchOffset = offset
	pt.PartitionMaxBytes = f.size
	t.Partitions = append(t.Partitions, pt)
	req.Topics = append(req.Topics, t)
	rctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	resp, err := req.RequestWith(rctx, f.p.cc.cl.Broker(int(f.p.leader)))
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	for i := range resp.Topics {
		rt := &resp.Topics[i]
		if rt.Topic != f.p.topic && rt.TopicID != f.p.id {
			continue
		}
		for j := range rt.Partitions {
			rp := &rt.Partitions[j]
			if rp.Partition != f.p.partition {
				continue
			}
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				if errors.Is(err, kerr.OffsetOutOfRange) {
					return nil, fmt.Errorf("offset %d is outside the log (start %d, high watermark %d): %w", offset, rp.LogStartOffset, rp.HighWatermark, err)
				}
				return nil, err
			}
			return rp, nil
		}
	}
	return nil, fmt.Errorf("the response has no partition %s-%d: %w", f.p.topic, f.p.partition, kerr.UnknownTopicOrPartition)
}

func (f *fetcher) refreshLeader(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	md, err := f.p.cc.adm.Metadata(rctx, f.p.topic)
	if err != nil {
		return err
	}
	td, ok := md.Topics[f.p.topic]
	if !ok {
		return kerr.UnknownTopicOrPartition
	}
	if td.Err != nil {
		return td.Err
	}
	pd, ok := td.Partitions[f.p.partition]
	if !ok {
		return kerr.UnknownTopicOrPartition
	}
	f.p.leader = pd.Leader
	if pd.Err != nil && pd.Leader < 0 {
		return pd.Err
	}
	return nil
}

// retriable: a Kafka error the protocol marks retriable (leader moved,
// leader not available, ...), or any error of the connection itself (a
// broker down, a connection reset, a dial refused, kgo's "connection has
// died"): the leader is looked up again and the fetch retried, within
// Config.Retries. Other Kafka errors (authorization, offset out of range)
// are final.
func retriable(err error) bool {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable || errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.FencedLeaderEpoch)
	}
	return !errors.Is(err, context.Canceled) && !isTLSError(err)
}

func backoff(attempt int) time.Duration {
	d := 100 * time.Millisecond << min(attempt, 5)
	return min(d, 2*time.Second)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// classify puts the errors people must act on under this package's
// sentinels, keeping the cause.
func classify(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, ErrAuth), errors.Is(err, ErrUnreachable), errors.Is(err, ErrUnknownTopic), errors.Is(err, ErrTLS):
		return err
	case isTLSError(err):
		return fmt.Errorf("%w: %v", ErrTLS, err)
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.IllegalSaslState),
		errors.Is(err, kerr.UnsupportedSaslMechanism), errors.Is(err, kerr.TopicAuthorizationFailed),
		errors.Is(err, kerr.ClusterAuthorizationFailed):
		return fmt.Errorf("%w: %v", ErrAuth, err)
	case isUnknownTopic(err):
		return fmt.Errorf("%w: %v", ErrUnknownTopic, err)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return err
}

func isUnknownTopic(err error) bool {
	return errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID)
}
