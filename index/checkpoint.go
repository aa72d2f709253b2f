package index

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Checkpoint file versions Kafka writes.
const (
	LeaderEpochCheckpointVersion = 0
	OffsetCheckpointVersion      = 0
	PartitionMetadataVersion     = 0
)

// EpochEntry is one leader-epoch-checkpoint line: "<epoch> <startOffset>".
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// PartitionOffset is one line of a log-directory offset checkpoint
// (recovery-point-offset-checkpoint, replication-offset-checkpoint,
// log-start-offset-checkpoint, cleaner-offset-checkpoint):
// "<topic> <partition> <offset>".
type PartitionOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// CheckpointLine reports where an entry came from.
type CheckpointLine struct {
	Line   int   // 1-based line number
	Offset int64 // byte offset of the line start
}

func ioErr(msg string, kind error) error {
	return &KafkaError{Exception: "IOException", Msg: msg, Kind: kind}
}

// javaLine is one line as java.io.BufferedReader.readLine returns it.
type javaLine struct {
	text string
	off  int64
}

// javaLines splits like BufferedReader.readLine: a line ends at "\n", "\r"
// or "\r\n"; a last line without terminator counts; no empty line after a
// final terminator.
func javaLines(b []byte) []javaLine {
	var out []javaLine
	start := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			continue
		}
		out = append(out, javaLine{string(b[start:i]), int64(start)})
		if c == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	if start < len(b) {
		out = append(out, javaLine{string(b[start:]), int64(start)})
	}
	return out
}

// javaSplitWS is Pattern.compile("\\s+").split(s): a leading empty field
// when s starts with whitespace, trailing empty fields dropped, and [s]
// when there is no whitespace at all.
func javaSplitWS(s string) []string {
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	var out []string
	start, found := 0, false
	for i := 0; i < len(s); {
		if !isWS(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWS(s[j]) {
			j++
		}
		out = append(out, s[start:i])
		start, i, found = j, j, true
	}
	if !found {
		return []string{s}
	}
	out = append(out, s[start:])
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// ParseCheckpoint reads Kafka's generic checkpoint format (CheckpointFile):
// a version line, a count line, then one entry per line, each parsed by
// fromLine (false = malformed). location is the path Kafka would print.
// Errors carry Kafka's IOException texts. An empty file, or one with only
// a version line, has no entries, as in Kafka.
func ParseCheckpoint[T any](data []byte, location string, version int32, fromLine func(string) (T, bool)) ([]T, []CheckpointLine, error) {
	lines := javaLines(data)
	malformed := func(l javaLine) error {
		return errAt(location, l.off, ioErr(fmt.Sprintf("Malformed line in checkpoint file [%s]: %s", location, l.text), ErrMalformed))
	}
	if len(lines) == 0 {
		return nil, nil, nil
	}
	v, ok := parseJavaInt(lines[0].text)
	if !ok {
		return nil, nil, malformed(lines[0])
	}
	if v != version {
		return nil, nil, errAt(location, 0, ioErr(fmt.Sprintf("Unrecognised version:%d, expected version: %d in checkpoint file at: %s",
			v, version, location), ErrUnknownVersion))
	}
	if len(lines) == 1 {
		return nil, nil, nil
	}
	n, ok := parseJavaInt(lines[1].text)
	if !ok {
		return nil, nil, malformed(lines[1])
	}
	if n < 0 {
		// new ArrayList<>(expectedSize) throws before any entry is read.
		return nil, nil, errAt(location, lines[1].off, &KafkaError{Exception: "IllegalArgumentException",
			Msg: "Illegal Capacity: " + strconv.Itoa(int(n)), Kind: ErrMalformed})
	}
	// Allocation bounded by the lines present, not by the claimed count.
	entries := make([]T, 0, len(lines)-2)
	where := make([]CheckpointLine, 0, len(lines)-2)
	for i, l := range lines[2:] {
		e, ok := fromLine(l.text)
		if !ok {
			return nil, nil, malformed(l)
		}
		entries = append(entries, e)
		where = append(where, CheckpointLine{Line: i + 3, Offset: l.off})
	}
	if len(entries) != int(n) {
		return nil, nil, errAt(location, int64(len(data)), ioErr(fmt.Sprintf("Expected [%d] entries in checkpoint file [%s], but found only [%d]",
			n, location, len(entries)), ErrTruncated))
	}
	return entries, where, nil
}

// ParseEpochLine parses "<epoch> <startOffset>" like
// LeaderEpochCheckpointFile's formatter. Kafka would throw a
// NumberFormatException for non-numbers; this reports them as malformed.
func ParseEpochLine(line string) (EpochEntry, bool) {
	f := javaSplitWS(line)
	if len(f) != 2 {
		return EpochEntry{}, false
	}
	ep, ok := parseJavaInt(f[0])
	off, err := parseJavaLong(f[1])
	if !ok || err != nil {
		return EpochEntry{}, false
	}
	return EpochEntry{Epoch: ep, StartOffset: off}, true
}

// ParseOffsetLine parses "<topic> <partition> <offset>".
func ParseOffsetLine(line string) (PartitionOffset, bool) {
	f := javaSplitWS(line)
	if len(f) != 3 {
		return PartitionOffset{}, false
	}
	p, ok := parseJavaInt(f[1])
	off, err := parseJavaLong(f[2])
	if !ok || err != nil {
		return PartitionOffset{}, false
	}
	return PartitionOffset{Topic: f[0], Partition: p, Offset: off}, true
}

// ParseLeaderEpochCheckpoint decodes a leader-epoch-checkpoint.
func ParseLeaderEpochCheckpoint(data []byte, location string) ([]EpochEntry, error) {
	e, _, err := ParseCheckpoint(data, location, LeaderEpochCheckpointVersion, ParseEpochLine)
	return e, err
}

// ParseOffsetCheckpoint decodes a log-directory offset checkpoint.
func ParseOffsetCheckpoint(data []byte, location string) ([]PartitionOffset, error) {
	e, _, err := ParseCheckpoint(data, location, OffsetCheckpointVersion, ParseOffsetLine)
	return e, err
}

// ReadLeaderEpochCheckpointFile reads a leader-epoch-checkpoint file;
// messages use its absolute path.
func ReadLeaderEpochCheckpointFile(path string) ([]EpochEntry, error) {
	data, abs, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	return ParseLeaderEpochCheckpoint(data, abs)
}

// ReadOffsetCheckpointFile reads a log-directory offset checkpoint file.
func ReadOffsetCheckpointFile(path string) ([]PartitionOffset, error) {
	data, abs, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	return ParseOffsetCheckpoint(data, abs)
}

func readSmall(path string) ([]byte, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, abs, errAt(abs, -1, err)
	}
	return b, abs, nil
}

// AppendCheckpoint appends the generic checkpoint format: version, count,
// then lines, each followed by "\n", as CheckpointFile.write does.
func AppendCheckpoint(dst []byte, version int32, lines []string) []byte {
	dst = strconv.AppendInt(dst, int64(version), 10)
	dst = append(dst, '\n')
	dst = strconv.AppendInt(dst, int64(len(lines)), 10)
	dst = append(dst, '\n')
	for _, l := range lines {
		dst = append(append(dst, l...), '\n')
	}
	return dst
}

// AppendLeaderEpochCheckpoint appends a leader-epoch-checkpoint.
func AppendLeaderEpochCheckpoint(dst []byte, entries []EpochEntry) []byte {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = strconv.Itoa(int(e.Epoch)) + " " + strconv.FormatInt(e.StartOffset, 10)
	}
	return AppendCheckpoint(dst, LeaderEpochCheckpointVersion, lines)
}

// AppendOffsetCheckpoint appends a log-directory offset checkpoint.
func AppendOffsetCheckpoint(dst []byte, entries []PartitionOffset) []byte {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = e.Topic + " " + strconv.Itoa(int(e.Partition)) + " " + strconv.FormatInt(e.Offset, 10)
	}
	return AppendCheckpoint(dst, OffsetCheckpointVersion, lines)
}

// Uuid is a Kafka Uuid (topic id), 16 bytes big-endian.
type Uuid [16]byte

// String renders u like Kafka's Uuid.toString: unpadded base64url, 22 chars.
func (u Uuid) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// ParseUuid is Uuid.fromString. Error texts follow Kafka's
// IllegalArgumentException messages.
func ParseUuid(s string) (Uuid, error) {
	var u Uuid
	if len(s) > 24 {
		return u, &KafkaError{Exception: "IllegalArgumentException",
			Msg: "Input string with prefix `" + s[:24] + "` is too long to be decoded as a base64 UUID", Kind: ErrMalformed}
	}
	enc := base64.RawURLEncoding
	if strings.HasSuffix(s, "=") {
		enc = base64.URLEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return u, &KafkaError{Exception: "IllegalArgumentException", Msg: "Illegal base64 character in `" + s + "`: " + err.Error(), Kind: ErrMalformed}
	}
	if len(b) != 16 {
		return u, &KafkaError{Exception: "IllegalArgumentException",
			Msg:  fmt.Sprintf("Input string `%s` decoded as %d bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID", s, len(b)),
			Kind: ErrMalformed}
	}
	copy(u[:], b)
	return u, nil
}

// PartitionMetadata is partition.metadata.
type PartitionMetadata struct {
	Version int32
	TopicID Uuid
}

// ParsePartitionMetadata decodes partition.metadata like Kafka's
// PartitionMetadataReadBuffer: two whitespace-separated tokens per line;
// the key words themselves are not checked, as in Kafka.
func ParsePartitionMetadata(data []byte, location string) (PartitionMetadata, error) {
	lines := javaLines(data)
	malformed := func(i int) error {
		var l javaLine
		if i < len(lines) {
			l = lines[i]
		} else {
			l = javaLine{text: "null", off: int64(len(data))}
		}
		return errAt(location, l.off, ioErr(fmt.Sprintf("Malformed line in checkpoint file [%s]: %s", location, l.text), ErrMalformed))
	}
	if len(lines) == 0 {
		return PartitionMetadata{}, malformed(0)
	}
	f := javaSplitWS(lines[0].text)
	if len(f) != 2 {
		return PartitionMetadata{}, malformed(0)
	}
	v, ok := parseJavaInt(f[1])
	if !ok {
		return PartitionMetadata{}, malformed(0)
	}
	if v != PartitionMetadataVersion {
		return PartitionMetadata{}, errAt(location, 0, ioErr(fmt.Sprintf("Unrecognized version of partition metadata file (%s): %d", location, v), ErrUnknownVersion))
	}
	if len(lines) < 2 {
		return PartitionMetadata{}, malformed(1)
	}
	f = javaSplitWS(lines[1].text)
	if len(f) != 2 {
		return PartitionMetadata{}, malformed(1)
	}
	u, err := ParseUuid(f[1])
	if err != nil {
		return PartitionMetadata{}, errAt(location, lines[1].off, err)
	}
	return PartitionMetadata{Version: v, TopicID: u}, nil
}

// ReadPartitionMetadataFile reads a partition.metadata file.
func ReadPartitionMetadataFile(path string) (PartitionMetadata, error) {
	data, abs, err := readSmall(path)
	if err != nil {
		return PartitionMetadata{}, err
	}
	return ParsePartitionMetadata(data, abs)
}

// AppendTo appends "version: 0\ntopic_id: <id>" with no trailing newline,
// exactly as the broker writes partition.metadata.
func (m PartitionMetadata) AppendTo(dst []byte) []byte {
	dst = append(dst, "version: "...)
	dst = strconv.AppendInt(dst, int64(m.Version), 10)
	dst = append(dst, "\ntopic_id: "...)
	return append(dst, m.TopicID.String()...)
}
