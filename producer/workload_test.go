package producer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExpandWorkload(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []WorkloadRun
		err  string // substring of the error
	}{
		{"settings only", `{"records": 200, "topic": "x"}`,
			[]WorkloadRun{{"run", []Setting{{"records", "200"}, {"topic", "x"}}}}, ""},
		{"sweep: combinations, flags sorted, run_ dropped", `{"records": 5, "sweep": {"linger-ms": [0, 5], "batch-size": [1024]}}`,
			[]WorkloadRun{
				{"batch-size=1024_linger-ms=0", []Setting{{"batch-size", "1024"}, {"linger-ms", "0"}, {"records", "5"}}},
				{"batch-size=1024_linger-ms=5", []Setting{{"batch-size", "1024"}, {"linger-ms", "5"}, {"records", "5"}}},
			}, ""},
		{"runs override the top level; unnamed runs numbered", `{"records": 5, "runs": [{"name": "a", "records": 7}, {"acks": "1"}]}`,
			[]WorkloadRun{{"a", []Setting{{"records", "7"}}}, {"run-1", []Setting{{"acks", "1"}, {"records", "5"}}}}, ""},
		{"runs times sweep", `{"runs": [{"name": "a"}, {"name": "b"}], "sweep": {"seed": [1, 2]}}`,
			[]WorkloadRun{{"a_seed=1", []Setting{{"seed", "1"}}}, {"a_seed=2", []Setting{{"seed", "2"}}}, {"b_seed=1", []Setting{{"seed", "1"}}}, {"b_seed=2", []Setting{{"seed", "2"}}}}, ""},
		{"lists repeat a flag; numbers in plain decimal; bools", `{"inject": ["gap@1", "reorder@3"], "start-time": 1.7e12, "sync": true}`,
			[]WorkloadRun{{"run", []Setting{{"inject", "gap@1"}, {"inject", "reorder@3"}, {"start-time", "1700000000000"}, {"sync", "true"}}}}, ""},
		{"bad run name", `{"runs": [{"name": "a b"}]}`, nil, `run name "a b": use letters, digits and . _ = -`},
		{"duplicate run names", `{"runs": [{"name": "a"}, {"name": "a"}]}`, nil, `two runs are named "a"`},
		{"runs not a list", `{"runs": 3}`, nil, "runs: json: cannot unmarshal"},
		{"sweep not lists", `{"sweep": {"seed": 1}}`, nil, "sweep: json: cannot unmarshal"},
		{"not JSON", `{`, nil, "unexpected end of JSON input"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "w.json")
			if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			got, _, err := ExpandSweep(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), path+": ") {
					t.Fatalf("error %v, want %s: ...%s...", err, path, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
	if _, _, err := ExpandSweep(filepath.Join(dir, "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSweep(t *testing.T) {
	small, large := DefaultConfig(), DefaultConfig()
	small.Records, small.BatchSize = 40, 1024
	large.Records = 40
	runs := []SweepRun{{"small", small}, {"large", large}}
	out := filepath.Join(t.TempDir(), "sweep")
	res, err := Sweep(runs, nil, out, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		if res[i].Dir != filepath.Join(out, r.Name) {
			t.Errorf("run %s: Dir %s", r.Name, res[i].Dir)
		}
		want, err := Write(r.Config, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res[i].Partitions, want.Partitions) {
			t.Errorf("run %s: %+v, want %+v (a single run)", r.Name, res[i].Partitions, want.Partitions)
		}
		if _, err := os.Stat(filepath.Join(out, r.Name, "kseg-ref-0", "00000000000000000000.log")); err != nil {
			t.Error(err)
		}
	}
	if _, err := Sweep(runs, nil, out, false); err == nil {
		t.Error("second sweep into the same directory without force succeeded")
	}
	bad := DefaultConfig()
	bad.Inject = []Fault{{Kind: FaultDuplicate, At: 1000}}
	if _, err := Sweep([]SweepRun{{"ok", small}, {"bad", bad}}, nil, out, true); err == nil || !strings.HasPrefix(err.Error(), "run bad: ") {
		t.Errorf("failing run: %v, want run bad: ...", err)
	}
	if _, err := os.Stat(filepath.Join(out, "small")); err != nil {
		t.Errorf("a failed sweep replaced the previous output: %v", err)
	}
}
