package dump

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpFileNames: the header line of a .log/.checkpoint comes from its
// name (index.BaseOffsetFromName, index.ParseKRaftSnapshotName); a name
// that does not parse stops the dump with Kafka's wording.
func TestDumpFileNames(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, wantOut, wantErr string
	}{
		{"00000000000000000042.log", "Log starting offset: 42\n", ""},
		{"-7.log", "Log starting offset: -7\n", ""},
		{"00000000000000007752-0000000003.checkpoint", "Snapshot end offset: 7752, epoch: 3\n", ""},
		{"bootstrap.checkpoint", "KRaft bootstrap snapshot\n", ""},
		{"x1.log", "", `For input string: "x1" (file name is not a base offset)`},
		{"99999999999999999999.log", "", `For input string: "99999999999999999999" (file name is not a base offset)`},
		{"7752-3.checkpoint", "", "not a KRaft snapshot name (<20-digit offset>-<10-digit epoch>.checkpoint)"},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errw bytes.Buffer
		d := NewDumper(DefaultDumpOptions(), &out, &errw)
		err := d.Dump(File(path))
		d.Finish()
		head := "Dumping " + path + "\n"
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.HasSuffix(err.Error(), ": "+tc.wantErr) || out.String() != head {
				t.Errorf("%s: err %v, out %q", tc.name, err, out.String())
			}
			continue
		}
		if err != nil || !bytes.HasPrefix(out.Bytes(), []byte(head+tc.wantOut)) {
			t.Errorf("%s: err %v, out %q", tc.name, err, out.String())
		}
	}
}
