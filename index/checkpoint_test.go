package index

import (
	"reflect"
	"testing"
)

func TestLeaderEpochCheckpoint(t *testing.T) {
	const loc = "/d/t-0/leader-epoch-checkpoint"
	tests := []struct {
		name string
		in   string
		want []EpochEntry
		err  string
	}{
		{"one", "0\n1\n0 0\n", []EpochEntry{{0, 0}}, ""},
		{"several", "0\n3\n1 0\n2 298\n3 354\n", []EpochEntry{{1, 0}, {2, 298}, {3, 354}}, ""},
		{"crlf and no final newline", "0\r\n2\r\n1 0\r\n2 5", []EpochEntry{{1, 0}, {2, 5}}, ""},
		{"tabs and trailing space", "0\n1\n7\t\t9  \n", []EpochEntry{{7, 9}}, ""},
		{"empty file", "", nil, ""},
		{"version only", "0\n", nil, ""},
		{"zero entries", "0\n0\n", []EpochEntry{}, ""},
		{"bad version", "1\n0\n", nil, "Unrecognised version:1, expected version: 0 in checkpoint file at: " + loc},
		{"version not a number", "x\n0\n", nil, "Malformed line in checkpoint file [" + loc + "]: x"},
		{"version with space", "0 \n0\n", nil, "Malformed line in checkpoint file [" + loc + "]: 0 "},
		{"count short", "0\n2\n1 0\n", nil, "Expected [2] entries in checkpoint file [" + loc + "], but found only [1]"},
		{"count long", "0\n1\n1 0\n2 3\n", nil, "Expected [1] entries in checkpoint file [" + loc + "], but found only [2]"},
		{"huge count", "0\n2147483647\n1 0\n", nil, "Expected [2147483647] entries in checkpoint file [" + loc + "], but found only [1]"},
		{"negative count", "0\n-1\n", nil, "Illegal Capacity: -1"},
		{"three tokens", "0\n1\n1 2 3\n", nil, "Malformed line in checkpoint file [" + loc + "]: 1 2 3"},
		{"leading space", "0\n1\n 1 2\n", nil, "Malformed line in checkpoint file [" + loc + "]:  1 2"},
		{"blank line", "0\n1\n1 2\n\n", nil, "Malformed line in checkpoint file [" + loc + "]: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLeaderEpochCheckpoint([]byte(tc.in), loc)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("want error, got %v", got)
				}
				if m := kafkaMsg(t, err); m != tc.err {
					t.Fatalf("\n got %q\nwant %q", m, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v want %v", got, tc.want)
			}
		})
	}
}

func TestCheckpointWriters(t *testing.T) {
	if got := string(AppendLeaderEpochCheckpoint(nil, []EpochEntry{{0, 0}})); got != "0\n1\n0 0\n" {
		t.Fatalf("%q", got)
	}
	if got := string(AppendLeaderEpochCheckpoint(nil, nil)); got != "0\n0\n" {
		t.Fatalf("%q", got)
	}
	po := []PartitionOffset{{"__consumer_offsets", 28, 2}, {"t", 0, 9}}
	b := AppendOffsetCheckpoint(nil, po)
	if string(b) != "0\n2\n__consumer_offsets 28 2\nt 0 9\n" {
		t.Fatalf("%q", b)
	}
	back, err := ParseOffsetCheckpoint(b, "x")
	if err != nil || !reflect.DeepEqual(back, po) {
		t.Fatalf("%v %v", back, err)
	}
}

func TestPartitionMetadata(t *testing.T) {
	const loc = "/d/t-0/partition.metadata"
	const id = "bQyJ_ZYaSA6dEv8UbXmzWA"
	m, err := ParsePartitionMetadata([]byte("version: 0\ntopic_id: "+id), loc)
	if err != nil {
		t.Fatal(err)
	}
	if m.TopicID.String() != id || m.Version != 0 {
		t.Fatalf("%+v", m)
	}
	if got := string(m.AppendTo(nil)); got != "version: 0\ntopic_id: "+id {
		t.Fatalf("%q", got)
	}
	for _, tc := range []struct{ in, err string }{
		{"", "Malformed line in checkpoint file [" + loc + "]: null"},
		{"version: 1\ntopic_id: " + id, "Unrecognized version of partition metadata file (" + loc + "): 1"},
		{"version 0 x\ntopic_id: " + id, "Malformed line in checkpoint file [" + loc + "]: version 0 x"},
		{"version: 0\n", "Malformed line in checkpoint file [" + loc + "]: null"},
		{"version: 0\ntopic_id: AAAA", "Input string `AAAA` decoded as 3 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID"},
		{"version: 0\ntopic_id: " + id + id, "Input string with prefix `" + (id + id)[:24] + "` is too long to be decoded as a base64 UUID"},
	} {
		_, err := ParsePartitionMetadata([]byte(tc.in), loc)
		if err == nil {
			t.Fatalf("%q: want error", tc.in)
		}
		if m := kafkaMsg(t, err); m != tc.err {
			t.Fatalf("%q:\n got %q\nwant %q", tc.in, m, tc.err)
		}
	}
}

func TestJavaSplitWS(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a b", []string{"a", "b"}},
		{"", []string{""}},
		{"ab", []string{"ab"}},
		{" a", []string{"", "a"}},
		{"a  ", []string{"a"}},
		{"   ", []string{}},
	} {
		got := javaSplitWS(tc.in)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("split(%q) = %q want %q", tc.in, got, tc.want)
		}
	}
}
