package index

import (
	"fmt"
	"strconv"
	"strings"
)

// FileKind is what a file in a partition directory holds, judged by its name.
type FileKind int

const (
	KindUnknown       FileKind = iota
	KindLog                    // .log: record batches
	KindIndex                  // .index: offset index
	KindTimeIndex              // .timeindex: time index
	KindTxnIndex               // .txnindex: aborted-transaction index
	KindSnapshot               // .snapshot: producer state snapshot
	KindCheckpoint             // <offset>-<epoch>.checkpoint: KRaft snapshot (log format)
	KindBootstrap              // bootstrap.checkpoint: KRaft bootstrap snapshot (log format)
	KindLeaderEpoch            // leader-epoch-checkpoint
	KindPartitionMeta          // partition.metadata
)

var kindNames = [...]string{"unknown", "log", "index", "timeindex", "txnindex", "snapshot",
	"checkpoint", "bootstrap", "leader-epoch-checkpoint", "partition.metadata"}

func (k FileKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "FileKind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// SuffixState is the transient-state suffix Kafka appends to a file name.
type SuffixState int

const (
	StateNone    SuffixState = iota
	StateDeleted             // .deleted: scheduled for asynchronous deletion
	StateCleaned             // .cleaned: log-cleaner output in progress
	StateSwap                // .swap: cleaned segment about to replace the original
	StatePart                // .part: partial KRaft snapshot (.checkpoint.part)
)

var stateSuffixes = [...]string{"", ".deleted", ".cleaned", ".swap", ".part"}

func (s SuffixState) String() string {
	if s <= 0 || int(s) >= len(stateSuffixes) {
		return "none"
	}
	return stateSuffixes[s][1:]
}

// SegmentName is a parsed partition-directory file name.
type SegmentName struct {
	Name string
	Kind FileKind
	// State is the transient suffix, if any.
	State SuffixState
	// BaseOffset is the segment base offset (log/index files), the offset
	// a producer snapshot was taken at, or the end offset of a KRaft
	// snapshot. 0 for files not named by an offset.
	BaseOffset int64
	// Epoch is the epoch of a KRaft snapshot (<offset>-<epoch>.checkpoint).
	Epoch int32
	// Canonical reports whether the offset part is exactly 20 decimal
	// digits (and, for KRaft snapshots, the epoch exactly 10), as Kafka
	// writes it. Kafka's own parser accepts any text Long.parseLong takes.
	Canonical bool
}

// Suffixes by kind (without state suffix).
var kindSuffix = map[string]FileKind{
	".log":       KindLog,
	".index":     KindIndex,
	".timeindex": KindTimeIndex,
	".txnindex":  KindTxnIndex,
	".snapshot":  KindSnapshot,
}

// ParseSegmentName parses a file name (no directory part) found in a
// partition directory. The offset is the text before the first '.', parsed
// as a signed int64 like Kafka's offsetFromFileName.
func ParseSegmentName(name string) (SegmentName, error) {
	sn := SegmentName{Name: name}
	switch name {
	case "leader-epoch-checkpoint":
		sn.Kind = KindLeaderEpoch
		return sn, nil
	case "partition.metadata":
		sn.Kind = KindPartitionMeta
		return sn, nil
	}
	rest := name
	for st := StateDeleted; st <= StatePart; st++ {
		if strings.HasSuffix(rest, stateSuffixes[st]) {
			sn.State = st
			rest = strings.TrimSuffix(rest, stateSuffixes[st])
			break
		}
	}
	if rest == "bootstrap.checkpoint" {
		sn.Kind = KindBootstrap
		sn.Canonical = true
		return sn, nil
	}
	dot := strings.IndexByte(rest, '.')
	if dot < 0 {
		return sn, errAt(name, -1, fmt.Errorf("%w: %q has no suffix", ErrBadName, name))
	}
	stem, ext := rest[:dot], rest[dot:]
	if ext == ".checkpoint" {
		// <20-digit end offset>-<10-digit epoch>.checkpoint
		dash := strings.LastIndexByte(stem, '-')
		if dash <= 0 {
			return sn, errAt(name, -1, fmt.Errorf("%w: %q is not <offset>-<epoch>.checkpoint", ErrBadName, name))
		}
		off, err1 := strconv.ParseInt(stem[:dash], 10, 64)
		ep, err2 := strconv.ParseInt(stem[dash+1:], 10, 32)
		if err1 != nil || err2 != nil || !allDigits(stem[:dash]) || !allDigits(stem[dash+1:]) {
			return sn, errAt(name, -1, fmt.Errorf("%w: %q is not <offset>-<epoch>.checkpoint", ErrBadName, name))
		}
		sn.Kind, sn.BaseOffset, sn.Epoch = KindCheckpoint, off, int32(ep)
		sn.Canonical = dash == 20 && len(stem) == 31
		return sn, nil
	}
	k, ok := kindSuffix[ext]
	if !ok {
		return sn, errAt(name, -1, fmt.Errorf("%w: unknown suffix %q", ErrBadName, ext))
	}
	off, err := parseJavaLong(stem)
	if err != nil {
		return sn, errAt(name, -1, fmt.Errorf("%w: offset %q: %v", ErrBadName, stem, err))
	}
	sn.Kind, sn.BaseOffset = k, off
	sn.Canonical = len(stem) == 20 && allDigits(stem)
	return sn, nil
}

// FileName rebuilds the canonical name of sn (20-digit offset, state suffix).
func (sn SegmentName) FileName() string {
	var s string
	switch sn.Kind {
	case KindLog:
		s = FormatBaseOffset(sn.BaseOffset) + ".log"
	case KindIndex:
		s = FormatBaseOffset(sn.BaseOffset) + ".index"
	case KindTimeIndex:
		s = FormatBaseOffset(sn.BaseOffset) + ".timeindex"
	case KindTxnIndex:
		s = FormatBaseOffset(sn.BaseOffset) + ".txnindex"
	case KindSnapshot:
		s = FormatBaseOffset(sn.BaseOffset) + ".snapshot"
	case KindCheckpoint:
		s = FormatKRaftSnapshotName(sn.BaseOffset, sn.Epoch)
	case KindBootstrap:
		s = "bootstrap.checkpoint"
	case KindLeaderEpoch:
		return "leader-epoch-checkpoint"
	case KindPartitionMeta:
		return "partition.metadata"
	default:
		return sn.Name
	}
	if sn.State > StateNone && int(sn.State) < len(stateSuffixes) {
		s += stateSuffixes[sn.State]
	}
	return s
}

// FormatBaseOffset renders an offset as Kafka names files: zero-padded to
// 20 decimal digits. Negative offsets (never written by Kafka) keep their
// sign in front of the padding, as Java's NumberFormat would.
func FormatBaseOffset(off int64) string {
	if off < 0 {
		return "-" + fmt.Sprintf("%020d", uint64(-off))
	}
	return fmt.Sprintf("%020d", off)
}

// FormatKRaftSnapshotName renders <20-digit offset>-<10-digit epoch>.checkpoint.
func FormatKRaftSnapshotName(endOffset int64, epoch int32) string {
	return fmt.Sprintf("%020d-%010d.checkpoint", endOffset, epoch)
}

// ParseKRaftSnapshotName reads the end offset and epoch of a KRaft snapshot
// named <20-digit end offset>-<10-digit epoch>.checkpoint, as kafka-dump-log
// does before dumping it (Snapshots.parse): the offset is characters 0-19
// and the epoch characters 21-30, each parsed like Long.parseLong and
// Integer.parseInt (a sign is accepted). Unlike ParseSegmentName it insists
// on the fixed widths.
func ParseKRaftSnapshotName(name string) (endOffset int64, epoch int32, ok bool) {
	s, found := strings.CutSuffix(name, ".checkpoint")
	if !found || len(s) != 31 || s[20] != '-' {
		return 0, 0, false
	}
	off, err := parseJavaLong(s[:20])
	ep, ok := parseJavaInt(s[21:])
	if err != nil || !ok {
		return 0, 0, false
	}
	return off, ep, true
}

// BaseOffsetFromName returns the int64 before the first '.' of a file name,
// which is how kafka-dump-log derives baseOffset for .index, .timeindex,
// .txnindex and .log files.
func BaseOffsetFromName(name string) (int64, error) {
	stem := name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		stem = name[:i]
	}
	off, err := parseJavaLong(stem)
	if err != nil {
		return 0, errAt(name, -1, fmt.Errorf("%w: offset %q: %v", ErrBadName, stem, err))
	}
	return off, nil
}

// parseJavaLong accepts what Long.parseLong accepts: an optional sign and
// one or more ASCII digits, within int64 range.
func parseJavaLong(s string) (int64, error) {
	d := s
	if d != "" && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if !allDigits(d) {
		return 0, fmt.Errorf("not a decimal integer")
	}
	return strconv.ParseInt(s, 10, 64)
}

// parseJavaInt accepts what Integer.parseInt accepts.
func parseJavaInt(s string) (int32, bool) {
	v, err := parseJavaLong(s)
	if err != nil || v < -1<<31 || v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// DirState is the state of a partition directory, from its name.
type DirState int

const (
	DirLive   DirState = iota // <topic>-<partition>
	DirDelete                 // <topic>-<partition>.<uuid>-delete
	DirFuture                 // <topic>-<partition>.<uuid>-future
	DirStray                  // <topic>-<partition>.<uuid>-stray
)

func (s DirState) String() string {
	switch s {
	case DirLive:
		return "live"
	case DirDelete:
		return "delete"
	case DirFuture:
		return "future"
	case DirStray:
		return "stray"
	}
	return "DirState(" + strconv.Itoa(int(s)) + ")"
}

// PartitionDir is a parsed partition directory name.
type PartitionDir struct {
	Topic     string // may be truncated in -delete directories
	Partition int32
	State     DirState
	UUID      string // 32 hex digits, for renamed directories
}

// ParsePartitionDir parses "<topic>-<partition>", also accepting the
// renamed forms ".<32-hex uuid>-delete", "-future" and "-stray".
func ParsePartitionDir(name string) (topic string, partition int32, ok bool) {
	pd, ok := ParsePartitionDirFull(name)
	return pd.Topic, pd.Partition, ok
}

// ParsePartitionDirFull is ParsePartitionDir with the directory state.
func ParsePartitionDirFull(name string) (PartitionDir, bool) {
	var pd PartitionDir
	base := name
	for _, c := range []struct {
		suf string
		st  DirState
	}{{"-delete", DirDelete}, {"-future", DirFuture}, {"-stray", DirStray}} {
		if !strings.HasSuffix(name, c.suf) {
			continue
		}
		s := strings.TrimSuffix(name, c.suf)
		if len(s) < 34 || s[len(s)-33] != '.' || !isHex(s[len(s)-32:]) {
			return pd, false
		}
		pd.State, pd.UUID = c.st, s[len(s)-32:]
		base = s[:len(s)-33]
		break
	}
	dash := strings.LastIndexByte(base, '-')
	if dash <= 0 || dash == len(base)-1 || !allDigits(base[dash+1:]) {
		return PartitionDir{}, false
	}
	p, err := strconv.ParseInt(base[dash+1:], 10, 32)
	if err != nil {
		return PartitionDir{}, false
	}
	pd.Topic, pd.Partition = base[:dash], int32(p)
	return pd, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
