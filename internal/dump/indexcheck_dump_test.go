package dump

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/realworld"
)

// TestFollowerIndexMismatchesAreInformational checks kseg's lookup-invariant
// check on the three replicas of one partition (real-world corpus):
// Kafka's strict --verify-index-only flags 16+1 entries on one follower and
// 11+1+1 on the other, none on the leader, yet every entry satisfies what the
// broker's lookup needs. kseg must count the same entries and grade them info.
func TestFollowerIndexMismatchesAreInformational(t *testing.T) {
	root := filepath.Join(realworld.Dir(t), "segments/dipendrasaini__kafka-learnning-series/tmp")
	want := map[string][]int{
		"kafka-logs":   {16, 0, 1},
		"kafka-logs-1": {11, 1, 1},
		"kafka-logs-2": {0, 0, 0},
	}
	for replica, counts := range want {
		for i, seg := range []string{"00000000000000000000", "00000000000000030626", "00000000000000060611"} {
			var out, errOut bytes.Buffer
			opts := DefaultDumpOptions()
			opts.Format = FormatJSON
			opts.VerifyIndexOnly = true
			d := NewDumper(opts, &out, &errOut)
			if err := d.Dump(File(filepath.Join(root, replica, "invoice-0", seg+".index"))); err != nil {
				t.Fatal(err)
			}
			if err := d.Finish(); err != nil {
				t.Fatal(err)
			}
			info := strings.Count(out.String(), `"code":"index-lookup-invariant","severity":"info"`)
			errs := strings.Count(out.String(), `"severity":"error"`)
			strict := strings.Count(out.String(), `"code":"index-offset-mismatch"`)
			if info != counts[i] || errs != 0 || strict != counts[i] {
				t.Errorf("%s/%s: %d informational, %d strict, %d errors; want %d, %d, 0", replica, seg, info, strict, errs, counts[i], counts[i])
			}
		}
	}
}
