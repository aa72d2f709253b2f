package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// wireFloor measures what reading partition 0 of topic from broker costs
// below kseg, in CPU seconds of this process, fetch bytes per Fetch (the
// size kseg's fetches grow to), rounds times, alternating:
//
//	kgo: franz-go's client sending the Fetch requests and handing back
//	    each response as it allocates it (a new slice per response), the
//	    batches walked only for the next offset: the floor of any reader
//	    that keeps franz-go for the wire.
//	socket: the same requests on one plain TCP connection, each response
//	    read into one reused buffer: the kernel's socket copy and TCP
//	    work alone (the floor of any reader at all).
//	socketalloc: the same, each response read into a new slice as
//	    franz-go does: what that allocation costs (zeroing, page faults,
//	    collections) without the rest of the client.
//
// Each prints "wire MODE BYTES CPU-SECONDS WALL-SECONDS". MODES after
// ROUNDS runs only those.
func wireFloor(broker, topic string, fetch int32, rounds int, modes []string) error {
	// The GC settings kseg uses while a cluster is open (internal/source);
	// GOGC and GOMEMLIMIT in the environment win, as there.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
	for range rounds {
		for _, mode := range modes {
			c := startClock()
			n, err := wireRead(mode, broker, topic, fetch)
			if err != nil {
				return fmt.Errorf("%s: %w", mode, err)
			}
			wall, cpu := c.stop()
			fmt.Printf("wire %-6s %d %.3f %.3f\n", mode, n, cpu, wall)
		}
	}
	return nil
}

func wireRead(mode, broker, topic string, fetch int32) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var do func(req *kmsg.FetchRequest) (*kmsg.FetchResponse, error)
	switch mode {
	case "kgo":
		// Fetch v12 names the topic (v13 on want its ID): no metadata needed.
		cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.MaxVersions(kversion.V3_0_0()))
		if err != nil {
			return 0, err
		}
		defer cl.Close()
		do = func(req *kmsg.FetchRequest) (*kmsg.FetchResponse, error) { return req.RequestWith(ctx, cl) }
	case "socket", "socketalloc":
		conn, err := net.DialTimeout("tcp", broker, 5*time.Second)
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Minute))
		var out, in []byte
		var corr int32
		do = func(req *kmsg.FetchRequest) (*kmsg.FetchResponse, error) {
			req.Version = 12 // flexible: request header v2, response header v1
			corr++
			out = binary.BigEndian.AppendUint32(out[:0], 0)
			out = binary.BigEndian.AppendUint16(out, uint16(req.Key()))
			out = binary.BigEndian.AppendUint16(out, uint16(req.Version))
			out = binary.BigEndian.AppendUint32(out, uint32(corr))
			out = binary.BigEndian.AppendUint16(out, 0xffff) // null client id
			out = append(out, 0)                             // no tagged fields
			out = req.AppendTo(out)
			binary.BigEndian.PutUint32(out, uint32(len(out)-4))
			if _, err := conn.Write(out); err != nil {
				return nil, err
			}
			var size [4]byte
			if _, err := io.ReadFull(conn, size[:]); err != nil {
				return nil, err
			}
			n := int(binary.BigEndian.Uint32(size[:]))
			if cap(in) < n || mode == "socketalloc" {
				in = make([]byte, n)
			}
			in = in[:n]
			if _, err := io.ReadFull(conn, in); err != nil {
				return nil, err
			}
			if n < 5 || int32(binary.BigEndian.Uint32(in)) != corr {
				return nil, errors.New("bad response header")
			}
			resp := kmsg.NewPtrFetchResponse()
			resp.Version = req.Version
			return resp, resp.ReadFrom(in[5:])
		}
	default:
		return 0, fmt.Errorf("mode %q", mode)
	}
	var got int64
	next, hw := int64(0), int64(-1)
	for hw < 0 || next < hw {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID, req.MinBytes, req.MaxBytes, req.SessionEpoch = -1, 1, fetch, -1
		t := kmsg.NewFetchRequestTopic()
		t.Topic = topic
		p := kmsg.NewFetchRequestTopicPartition()
		p.FetchOffset, p.PartitionMaxBytes = next, fetch
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
		resp, err := do(req)
		if err != nil {
			return got, err
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return got, errors.New("no partition in the response")
		}
		rp := &resp.Topics[0].Partitions[0]
		if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
			return got, err
		}
		hw = rp.HighWatermark
		rb := rp.RecordBatches
		got += int64(len(rb))
		// The whole v2 batches: base offset, length, last offset delta.
		moved := false
		for pos := 0; pos+27 <= len(rb); {
			end := pos + 12 + int(int32(binary.BigEndian.Uint32(rb[pos+8:])))
			if end > len(rb) || end <= pos+12 {
				break
			}
			next = int64(binary.BigEndian.Uint64(rb[pos:])) + int64(int32(binary.BigEndian.Uint32(rb[pos+23:]))) + 1
			pos, moved = end, true
		}
		if !moved && next < hw {
			return got, fmt.Errorf("no whole batch at offset %d with %d bytes", next, fetch)
		}
	}
	return got, nil
}

func wireArgs(args []string) error {
	fetch, rounds := int64(4<<20), 3
	if len(args) > 2 {
		var err error
		if fetch, err = strconv.ParseInt(args[2], 10, 32); err != nil {
			return err
		}
	}
	if len(args) > 3 {
		rounds, _ = strconv.Atoi(args[3])
	}
	modes := []string{"kgo", "socket"}
	if len(args) > 4 {
		modes = args[4:]
	}
	return wireFloor(args[0], args[1], int32(fetch), max(rounds, 1), modes)
}
