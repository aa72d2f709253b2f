package content

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// The __remote_log_metadata topic (TopicBasedRemoteLogMetadataManager,
// KIP-405): each record value is [frame version 1][apiKey][version] as
// unsigned varints, then a flexible message of the storage module's
// message JSON files (storage/src/main/resources/message/*Record.json,
// Kafka 4.4.0). kafka-dump-log prints RemoteLogMetadataSerde.deserialize
// (value).toString(): the Java objects the records are turned into, not
// JSON.

var rlmTopicIDPartition = nested("TopicIdPartitionEntry",
	fld("name", kString, "0+"),
	fld("id", kUUID, "0+"),
	fld("partition", kInt32, "0+"),
)

var rlmSegmentID = nested("RemoteLogSegmentIdEntry",
	structField("topicIdPartition", rlmTopicIDPartition, "0+"),
	fld("id", kUUID, "0+"),
)

var rlmLeaderEpochs = arrOf("segmentLeaderEpochs", nested("SegmentLeaderEpochEntry",
	fld("leaderEpoch", kInt32, "0+"),
	fld("offset", kInt64, "0+"),
), "0+")

// remoteLogRecordTypes are MetadataRecordType of the storage module by id.
var remoteLogRecordTypes = map[int16]*schema{
	0: metaMsg("RemoteLogSegmentMetadataRecord", "0",
		structField("remoteLogSegmentId", rlmSegmentID, "0+"),
		fld("startOffset", kInt64, "0+"),
		fld("endOffset", kInt64, "0+"),
		fld("brokerId", kInt32, "0+"),
		fld("maxTimestampMs", kInt64, "0+"),
		fld("eventTimestampMs", kInt64, "0+"),
		rlmLeaderEpochs,
		fld("segmentSizeInBytes", kInt32, "0+"),
		fld("customMetadata", kBytes, "0+").null("0+"),
		fld("remoteLogSegmentState", kInt8, "0+"),
		fld("txnIndexEmpty", kBool, "0+").withTag(0, 0),
	),
	1: metaMsg("RemoteLogSegmentMetadataUpdateRecord", "0",
		structField("remoteLogSegmentId", rlmSegmentID, "0+"),
		fld("brokerId", kInt32, "0+"),
		fld("eventTimestampMs", kInt64, "0+"),
		fld("customMetadata", kBytes, "0+").null("0+"),
		fld("remoteLogSegmentState", kInt8, "0+"),
	),
	2: metaMsg("RemotePartitionDeleteMetadataRecord", "0",
		structField("topicIdPartition", rlmTopicIDPartition, "0+"),
		fld("brokerId", kInt32, "0+"),
		fld("eventTimestampMs", kInt64, "0+"),
		fld("remotePartitionDeleteState", kInt8, "0+"),
	),
	3: metaMsg("RemoteLogSegmentMetadataSnapshotRecord", "0",
		fld("segmentId", kUUID, "0+"),
		fld("startOffset", kInt64, "0+"),
		fld("endOffset", kInt64, "0+"),
		fld("brokerId", kInt32, "0+"),
		fld("maxTimestampMs", kInt64, "0+"),
		fld("eventTimestampMs", kInt64, "0+"),
		rlmLeaderEpochs,
		fld("segmentSizeInBytes", kInt32, "0+"),
		fld("customMetadata", kBytes, "0+").null("0+"),
		fld("remoteLogSegmentState", kInt8, "0+"),
		fld("txnIndexEmpty", kBool, "0+").withTag(0, 0),
	),
}

// RemoteLogSegmentState and RemotePartitionDeleteState names by id; forId
// of any other id is null.
var (
	remoteSegmentStates   = []string{"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"}
	remotePartitionStates = []string{"DELETE_PARTITION_MARKED", "DELETE_PARTITION_STARTED", "DELETE_PARTITION_FINISHED"}
)

type remoteLogParser struct{ buf []byte }

// NewRemoteLogMetadataParser returns the --remote-log-metadata-decoder
// parser (__remote_log_metadata), Kafka 4.4 format: no key; the payload is
// the toString of the RemoteLogSegmentMetadata,
// RemoteLogSegmentMetadataUpdate, RemotePartitionDeleteMetadata or
// RemoteLogSegmentMetadataSnapshot the value decodes to, and any failure
// "Error at offset <offset>, skipping. <message>".
func NewRemoteLogMetadataParser() Parser { return &remoteLogParser{} }

func (p *remoteLogParser) Parse(offset int64, _, val []byte) (Result, error) {
	if val == nil {
		// record.value().remaining() on a null value: JDK 17's helpful NullPointerException text
		return Result{Payload: "Error at offset " + strconv.FormatInt(offset, 10) + ", skipping. " +
			`Cannot invoke "java.nio.ByteBuffer.remaining()" because the return value of "org.apache.kafka.common.record.internal.Record.value()" is null`, HasPayload: true}, nil
	}
	b, msg := renderRemoteLogMetadata(p.buf[:0], val)
	if msg != "" {
		return Result{Payload: "Error at offset " + strconv.FormatInt(offset, 10) + ", skipping. " + msg, HasPayload: true}, nil
	}
	p.buf = b
	return Result{Payload: string(b), HasPayload: true}, nil
}

// readApiMessageFrame reads AbstractApiMessageSerde's header (frame version
// 1, apiKey, version) and returns the apiKey, the version and the rest, or
// the message of the exception read throws.
func readApiMessageFrame(val []byte) (typ, ver int16, rest []byte, msg string) {
	r := reader{b: val}
	frame, msg := unsignedIntToShort(&r, "frame version")
	if msg != "" {
		return 0, 0, nil, msg
	}
	if frame == 0 {
		return 0, 0, nil, "Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported."
	}
	if frame != 1 {
		return 0, 0, nil, fmt.Sprintf("Could not deserialize metadata record due to unknown frame version %d(only frame version 1 is supported)", frame)
	}
	if typ, msg = unsignedIntToShort(&r, "type"); msg != "" {
		return 0, 0, nil, msg
	}
	if ver, msg = unsignedIntToShort(&r, "version"); msg != "" {
		return 0, 0, nil, msg
	}
	return typ, ver, r.b[r.p:], ""
}

func renderRemoteLogMetadata(dst, val []byte) ([]byte, string) {
	typ, ver, rest, msg := readApiMessageFrame(val)
	if msg != "" {
		return dst, msg
	}
	s, ok := remoteLogRecordTypes[typ]
	if !ok {
		return dst, fmt.Sprintf("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id %d", typ)
	}
	d := decoder{r: reader{b: rest}, ver: ver, flex: true, loose: true}
	v, err := d.structFields(s)
	if err != nil {
		return dst, fmt.Sprintf("Failed to deserialize record with type %d", typ)
	}
	if n := d.r.remaining(); n > 0 {
		return dst, fmt.Sprintf("Found %d byte(s) of garbage after %d", n, typ)
	}
	switch typ {
	case 0, 3:
		return appendRemoteSegment(dst, typ, v)
	case 1:
		state, ok := stateName(remoteSegmentStates, v[4].i)
		if !ok {
			return dst, "state can not be null"
		}
		dst = append(dst, "RemoteLogSegmentMetadataUpdate{remoteLogSegmentId="...)
		dst = appendRemoteSegmentID(dst, v[0])
		dst = append(dst, ", customMetadata="...)
		dst = appendCustomMetadata(dst, v[3])
		dst = append(dst, ", state="...)
		dst = append(dst, state...)
		dst = append(dst, ", eventTimestampMs="...)
		dst = appendInt(dst, v[2].i)
		dst = append(dst, ", brokerId="...)
		dst = appendInt(dst, v[1].i)
		return append(dst, '}'), ""
	default: // 2
		state, ok := stateName(remotePartitionStates, v[3].i)
		if !ok {
			return dst, "state can not be null"
		}
		dst = append(dst, "RemotePartitionDeleteMetadata{topicPartition="...)
		dst = appendTopicIDPartition(dst, v[0])
		dst = append(dst, ", state="...)
		dst = append(dst, state...)
		dst = append(dst, ", eventTimestampMs="...)
		dst = appendInt(dst, v[2].i)
		dst = append(dst, ", brokerId="...)
		dst = appendInt(dst, v[1].i)
		return append(dst, '}'), ""
	}
}

func stateName(names []string, id int64) (string, bool) {
	if id < 0 || id >= int64(len(names)) {
		return "", false
	}
	return names[id], true
}

// appendRemoteSegment renders a RemoteLogSegmentMetadata (typ 0) or a
// RemoteLogSegmentMetadataSnapshot (typ 3), with the checks of their
// constructors in order.
func appendRemoteSegment(dst []byte, typ int16, v []value) ([]byte, string) {
	start, end := v[1].i, v[2].i
	if start < 0 {
		return dst, "Unexpected start offset = " + strconv.FormatInt(start, 10) + ". StartOffset for a remote segment cannot be negative"
	}
	if end < start {
		return dst, "Unexpected end offset = " + strconv.FormatInt(end, 10) + ". EndOffset for a remote segment cannot be less than startOffset = " + strconv.FormatInt(start, 10)
	}
	// a HashMap then a TreeMap: the last entry of an epoch wins, ascending epochs
	epochs := map[int32]int64{}
	for _, e := range v[6].list {
		epochs[int32(e.list[0].i)] = e.list[1].i
	}
	if len(epochs) == 0 {
		return dst, "segmentLeaderEpochs can not be null or empty"
	}
	state, ok := stateName(remoteSegmentStates, v[9].i)
	if !ok {
		return dst, "state can not be null"
	}
	keys := make([]int32, 0, len(epochs))
	for k := range epochs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	if typ == 0 {
		dst = append(dst, "RemoteLogSegmentMetadata{remoteLogSegmentId="...)
		dst = appendRemoteSegmentID(dst, v[0])
	} else {
		dst = append(dst, "RemoteLogSegmentMetadataSnapshot{segmentId="...)
		dst = base64.RawURLEncoding.AppendEncode(dst, v[0].b)
	}
	dst = append(dst, ", startOffset="...)
	dst = appendInt(dst, start)
	dst = append(dst, ", endOffset="...)
	dst = appendInt(dst, end)
	if typ == 0 {
		dst = append(dst, ", brokerId="...)
		dst = appendInt(dst, v[3].i)
	}
	dst = append(dst, ", maxTimestampMs="...)
	dst = appendInt(dst, v[4].i)
	if typ == 0 {
		dst = append(dst, ", eventTimestampMs="...)
		dst = appendInt(dst, v[5].i)
	}
	dst = append(dst, ", segmentLeaderEpochs={"...)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendInt(dst, int64(k))
		dst = append(dst, '=')
		dst = appendInt(dst, epochs[k])
	}
	dst = append(dst, "}, segmentSizeInBytes="...)
	dst = appendInt(dst, v[7].i)
	dst = append(dst, ", customMetadata="...)
	dst = appendCustomMetadata(dst, v[8])
	dst = append(dst, ", state="...)
	dst = append(dst, state...)
	dst = append(dst, ", txnIdxEmpty="...)
	dst = strconv.AppendBool(dst, v[10].i != 0)
	return append(dst, '}'), ""
}

// appendRemoteSegmentID is RemoteLogSegmentId.toString.
func appendRemoteSegmentID(dst []byte, v value) []byte {
	dst = append(dst, "RemoteLogSegmentId{topicIdPartition="...)
	dst = appendTopicIDPartition(dst, v.list[0])
	dst = append(dst, ", id="...)
	dst = base64.RawURLEncoding.AppendEncode(dst, v.list[1].b)
	return append(dst, '}')
}

// appendTopicIDPartition is TopicIdPartition.toString: topicId:topic-partition.
func appendTopicIDPartition(dst []byte, v value) []byte {
	dst = base64.RawURLEncoding.AppendEncode(dst, v.list[1].b)
	dst = append(dst, ':')
	dst = AppendJavaString(dst, v.list[0].b)
	dst = append(dst, '-')
	return appendInt(dst, v.list[2].i)
}

// appendCustomMetadata is Optional<CustomMetadata>.toString.
func appendCustomMetadata(dst []byte, v value) []byte {
	if v.null || !v.set {
		return append(dst, "Optional.empty"...)
	}
	dst = append(dst, "Optional[CustomMetadata{"...)
	dst = appendInt(dst, int64(len(v.b)))
	return append(dst, " bytes}]"...)
}

// RemoteLogEvent is one __remote_log_metadata value, decoded for tools that
// reason about remote segments (package remote) rather than print them.
type RemoteLogEvent struct {
	// Type is the record's apiKey: 0 RemoteLogSegmentMetadata (a copy
	// starts), 1 RemoteLogSegmentMetadataUpdate, 2
	// RemotePartitionDeleteMetadata, 3 RemoteLogSegmentMetadataSnapshot.
	Type      int16
	TopicID   [16]byte // types 0, 1, 2
	Topic     string   // types 0, 1, 2
	Partition int32    // types 0, 1, 2
	SegmentID [16]byte // types 0, 1, 3
	// StartOffset and EndOffset are the segment's offsets (types 0 and 3).
	StartOffset, EndOffset int64
	// State is the RemoteLogSegmentState or RemotePartitionDeleteState name,
	// or "" for an unknown id.
	State string
}

// DecodeRemoteLogMetadata decodes one __remote_log_metadata value; the
// error is the message kafka-dump-log prints after "skipping.".
func DecodeRemoteLogMetadata(val []byte) (RemoteLogEvent, error) {
	typ, ver, rest, msg := readApiMessageFrame(val)
	if msg != "" {
		return RemoteLogEvent{}, errors.New(msg)
	}
	s, ok := remoteLogRecordTypes[typ]
	if !ok {
		return RemoteLogEvent{}, fmt.Errorf("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id %d", typ)
	}
	d := decoder{r: reader{b: rest}, ver: ver, flex: true, loose: true}
	v, err := d.structFields(s)
	if err != nil {
		return RemoteLogEvent{}, fmt.Errorf("Failed to deserialize record with type %d", typ)
	}
	e := RemoteLogEvent{Type: typ}
	tip := func(t value) {
		e.Topic = JavaString(t.list[0].b)
		copy(e.TopicID[:], t.list[1].b)
		e.Partition = int32(t.list[2].i)
	}
	switch typ {
	case 0, 1:
		tip(v[0].list[0])
		copy(e.SegmentID[:], v[0].list[1].b)
	case 2:
		tip(v[0])
	case 3:
		copy(e.SegmentID[:], v[0].b)
	}
	switch typ {
	case 0, 3:
		e.StartOffset, e.EndOffset = v[1].i, v[2].i
		e.State, _ = stateName(remoteSegmentStates, v[9].i)
	case 1:
		e.State, _ = stateName(remoteSegmentStates, v[4].i)
	case 2:
		e.State, _ = stateName(remotePartitionStates, v[3].i)
	}
	return e, nil
}
