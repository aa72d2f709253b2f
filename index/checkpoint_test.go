package index

import "testing"

func TestLeaderEpochCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		in   []EpochEntry
		want string
	}{
		{[]EpochEntry{{0, 0}}, "0\n1\n0 0\n"},
		{nil, "0\n0\n"},
		{[]EpochEntry{{1, 0}, {2, 298}, {3, 354}}, "0\n3\n1 0\n2 298\n3 354\n"},
		{[]EpochEntry{{-1, -5}, {2147483647, 9223372036854775807}}, "0\n2\n-1 -5\n2147483647 9223372036854775807\n"},
	} {
		if got := string(AppendLeaderEpochCheckpoint([]byte("x"), tc.in)); got != "x"+tc.want {
			t.Errorf("%v: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPartitionMetadata(t *testing.T) {
	// bQyJ_ZYaSA6dEv8UbXmzWA, a topic id from a real broker.
	id := Uuid{0x6d, 0x0c, 0x89, 0xfd, 0x96, 0x1a, 0x48, 0x0e, 0x9d, 0x12, 0xff, 0x14, 0x6d, 0x79, 0xb3, 0x58}
	if id.String() != "bQyJ_ZYaSA6dEv8UbXmzWA" {
		t.Fatalf("Uuid.String = %s", id)
	}
	m := PartitionMetadata{Version: PartitionMetadataVersion, TopicID: id}
	if got := string(m.AppendTo(nil)); got != "version: 0\ntopic_id: bQyJ_ZYaSA6dEv8UbXmzWA" {
		t.Fatalf("%q", got)
	}
}
