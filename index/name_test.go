package index

import (
	"errors"
	"testing"
)

func TestParseSegmentName(t *testing.T) {
	tests := []struct {
		name      string
		kind      FileKind
		state     SuffixState
		off       int64
		epoch     int32
		canonical bool
		bad       bool
	}{
		{name: "00000000000000000000.log", kind: KindLog, canonical: true},
		{name: "00000000000000368769.log", kind: KindLog, off: 368769, canonical: true},
		{name: "00000000000000368769.index", kind: KindIndex, off: 368769, canonical: true},
		{name: "00000000000000368769.timeindex", kind: KindTimeIndex, off: 368769, canonical: true},
		{name: "00000000000000368769.txnindex", kind: KindTxnIndex, off: 368769, canonical: true},
		{name: "00000000000000000038.snapshot", kind: KindSnapshot, off: 38, canonical: true},
		{name: "00000000000000000000.log.deleted", kind: KindLog, state: StateDeleted, canonical: true},
		{name: "00000000000000000000.index.cleaned", kind: KindIndex, state: StateCleaned, canonical: true},
		{name: "00000000000000000005.timeindex.swap", kind: KindTimeIndex, state: StateSwap, off: 5, canonical: true},
		{name: "00000000000000000009.snapshot.deleted", kind: KindSnapshot, state: StateDeleted, off: 9, canonical: true},
		{name: "00000000000000007752-0000000001.checkpoint", kind: KindCheckpoint, off: 7752, epoch: 1, canonical: true},
		{name: "00000000000000007752-0000000001.checkpoint.part", kind: KindCheckpoint, state: StatePart, off: 7752, epoch: 1, canonical: true},
		{name: "00000000000000007752-0000000001.checkpoint.deleted", kind: KindCheckpoint, state: StateDeleted, off: 7752, epoch: 1, canonical: true},
		{name: "bootstrap.checkpoint", kind: KindBootstrap, canonical: true},
		{name: "leader-epoch-checkpoint", kind: KindLeaderEpoch},
		{name: "partition.metadata", kind: KindPartitionMeta},
		{name: "12.log", kind: KindLog, off: 12},     // Kafka accepts it
		{name: "-3.index", kind: KindIndex, off: -3}, // Long.parseLong accepts a sign
		{name: "abc.log", bad: true},
		{name: "quorum-state", bad: true},
		{name: "00000000000000000000.foo", bad: true},
		{name: "99999999999999999999.log", bad: true}, // overflows int64
		{name: ".log", bad: true},
		{name: "x-1.checkpoint", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sn, err := ParseSegmentName(tc.name)
			if tc.bad {
				if err == nil {
					t.Fatalf("want error, got %+v", sn)
				}
				if !errors.Is(err, ErrBadName) {
					t.Fatalf("error %v is not ErrBadName", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sn.Kind != tc.kind || sn.State != tc.state || sn.BaseOffset != tc.off || sn.Epoch != tc.epoch || sn.Canonical != tc.canonical {
				t.Fatalf("got %+v", sn)
			}
			if tc.canonical || tc.kind == KindLeaderEpoch || tc.kind == KindPartitionMeta {
				if got := sn.FileName(); got != tc.name {
					t.Fatalf("FileName() = %q, want %q", got, tc.name)
				}
			}
		})
	}
}

func TestFormatBaseOffset(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "00000000000000000000"},
		{368769, "00000000000000368769"},
		{9223372036854775807, "09223372036854775807"},
		{-5, "-00000000000000000005"},
	} {
		if got := FormatBaseOffset(tc.in); got != tc.want {
			t.Errorf("FormatBaseOffset(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := FormatKRaftSnapshotName(7752, 1); got != "00000000000000007752-0000000001.checkpoint" {
		t.Errorf("FormatKRaftSnapshotName = %q", got)
	}
}

func TestParsePartitionDir(t *testing.T) {
	const uuid = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		in    string
		topic string
		part  int32
		state DirState
		ok    bool
	}{
		{"topic-3", "topic", 3, DirLive, true},
		{"__consumer_offsets-17", "__consumer_offsets", 17, DirLive, true},
		{"my-topic-with-dashes-0", "my-topic-with-dashes", 0, DirLive, true},
		{"_confluent-controlcenter-7-6-0-1-MonitoringVerifierStore-changelog-0", "_confluent-controlcenter-7-6-0-1-MonitoringVerifierStore-changelog", 0, DirLive, true},
		{"topic-3." + uuid + "-delete", "topic", 3, DirDelete, true},
		{"topic-3." + uuid + "-future", "topic", 3, DirFuture, true},
		{"topic-3." + uuid + "-stray", "topic", 3, DirStray, true},
		{"topic-3.xyz-delete", "", 0, 0, false},
		{"topic", "", 0, 0, false},
		{"topic-", "", 0, 0, false},
		{"-3", "", 0, 0, false},
		{"topic-x", "", 0, 0, false},
		{"topic-99999999999", "", 0, 0, false},
		{"topic-+1", "", 0, 0, false},
	}
	for _, tc := range tests {
		topic, part, ok := ParsePartitionDir(tc.in)
		pd, _ := ParsePartitionDirFull(tc.in)
		if ok != tc.ok || topic != tc.topic || part != tc.part || (ok && pd.State != tc.state) {
			t.Errorf("ParsePartitionDir(%q) = %q %d %v (state %v)", tc.in, topic, part, ok, pd.State)
		}
		if ok && tc.state != DirLive && pd.UUID != uuid {
			t.Errorf("%q: uuid %q", tc.in, pd.UUID)
		}
	}
}

func TestParseKRaftSnapshotName(t *testing.T) {
	tests := []struct {
		name  string
		off   int64
		epoch int32
		ok    bool
	}{
		{"00000000000000007752-0000000001.checkpoint", 7752, 1, true},
		{FormatKRaftSnapshotName(1<<62, 1<<30), 1 << 62, 1 << 30, true},
		{"-0000000000000000001-0000000001.checkpoint", -1, 1, true}, // Long.parseLong takes a sign
		{"00000000000000000001-+000000007.checkpoint", 1, 7, true},
		{"00000000000000000001-9999999999.checkpoint", 0, 0, false}, // epoch overflows int32
		{"7752-1.checkpoint", 0, 0, false},
		{"00000000000000007752_0000000001.checkpoint", 0, 0, false},
		{"0000000000000000775x-0000000001.checkpoint", 0, 0, false},
		{"00000000000000007752-0000000001.log", 0, 0, false},
		{"bootstrap.checkpoint", 0, 0, false},
	}
	for _, tc := range tests {
		off, ep, ok := ParseKRaftSnapshotName(tc.name)
		if off != tc.off || ep != tc.epoch || ok != tc.ok {
			t.Errorf("ParseKRaftSnapshotName(%q) = %d, %d, %v; want %d, %d, %v", tc.name, off, ep, ok, tc.off, tc.epoch, tc.ok)
		}
	}
}
