package remote_test

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/batch"
)

// rlmmValue encodes a RemoteLogSegmentMetadataRecord (state 0, copy
// started) or, with update, a RemoteLogSegmentMetadataUpdateRecord of state.
func rlmmValue(topicID, segID string, start, end int64, update bool, state byte) []byte {
	tid, _ := base64.RawURLEncoding.DecodeString(topicID)
	sid, _ := base64.RawURLEncoding.DecodeString(segID)
	b := []byte{1, 0, 0} // frame 1, apiKey 0, version 0
	if update {
		b[1] = 1
	}
	b = binary.AppendUvarint(b, uint64(len("tiered")+1))
	b = append(b, "tiered"...)
	b = append(b, tid...)
	b = binary.BigEndian.AppendUint32(b, 0) // partition
	b = append(b, 0)                        // TopicIdPartitionEntry tags
	b = append(b, sid...)
	b = append(b, 0) // RemoteLogSegmentIdEntry tags
	if update {
		b = binary.BigEndian.AppendUint32(b, 1) // broker
		b = binary.BigEndian.AppendUint64(b, 1) // event time
		return append(b, 0 /* custom metadata null */, state, 0)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(start))
	b = binary.BigEndian.AppendUint64(b, uint64(end))
	b = binary.BigEndian.AppendUint32(b, 1) // broker
	b = binary.BigEndian.AppendUint64(b, 1) // max timestamp
	b = binary.BigEndian.AppendUint64(b, 1) // event time
	b = append(b, 2)                        // one leader epoch
	b = binary.BigEndian.AppendUint32(b, 0) // epoch 0
	b = binary.BigEndian.AppendUint64(b, uint64(start))
	b = append(b, 0)                        // entry tags
	b = binary.BigEndian.AppendUint32(b, 1) // size
	return append(b, 0 /* custom metadata null */, 0 /* COPY_SEGMENT_STARTED */, 0)
}

// writeRLMM writes a __remote_log_metadata-0 partition holding values.
func writeRLMM(t *testing.T, values [][]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "__remote_log_metadata-0")
	os.MkdirAll(dir, 0o755)
	bb := batch.NewBuilder(batch.CodecNone)
	for _, v := range values {
		bb.Append(1700000000000, nil, v, nil)
	}
	out, err := bb.Build(nil, batch.Header{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRemoteLogMetadataOption(t *testing.T) {
	segs, topicID, _, _ := tieredFixture(t)
	lts := filepath.Dir(segs[0].path)
	// segment 1 was started but never finished: left out
	var vals [][]byte
	for i, s := range segs {
		vals = append(vals, rlmmValue(topicID, s.segID, s.base, s.base+1, false, 0))
		if i != 1 {
			vals = append(vals, rlmmValue(topicID, s.segID, 0, 0, true, 1))
		}
	}
	meta := writeRLMM(t, vals)
	want := filepath.Join(t.TempDir(), "tiered-0")
	os.MkdirAll(want, 0o755)
	for i, s := range segs {
		if i != 1 {
			copyFile(t, s.path, filepath.Join(want, fmt.Sprintf("%020d.log", s.base)))
		}
	}
	wantOut, _, code := kseg(t, "count", want)
	got, stderr, code2 := kseg(t, "count", "lts://"+lts+"?metadata="+meta)
	if code != 0 || code2 != 0 || got != wantOut {
		t.Fatalf("count with metadata: exit %d/%d %s\n got %s\nwant %s", code, code2, stderr, got, wantOut)
	}
	// every segment finished, but the store lost segment 1: a gap
	vals = append(vals, rlmmValue(topicID, segs[1].segID, 0, 0, true, 1))
	meta = writeRLMM(t, vals)
	lost := filepath.Join(t.TempDir(), filepath.Base(lts))
	os.MkdirAll(lost, 0o755)
	for i, s := range segs {
		if i != 1 {
			copyFile(t, s.path, filepath.Join(lost, filepath.Base(s.path)))
		}
	}
	_, stderr, code = kseg(t, "count", "lts://"+lost+"?metadata="+meta)
	if code == 0 || !strings.Contains(stderr, segs[1].segID) || !strings.Contains(stderr, "not in remote storage") {
		t.Fatalf("a lost segment: exit %d, stderr %s", code, stderr)
	}
	if _, _, code := kseg(t, "count", "lts://"+lts+"?metadata="+meta); code != 0 {
		t.Fatalf("nothing lost: exit %d", code)
	}
}
