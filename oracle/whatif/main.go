// Command whatif is the Go half of oracle/regen/whatif-data.sh and oracle/calibration/whatif-score.sh:
// the what-if validation data of testdata/whatif/ (see internal/whatifdata).
//
//	go run ./oracle/whatif plan OUT WORK          write OUT/groups.json, OUT/values.txt,
//	                                              OUT/schedules/, WORK/props/; print one line a
//	                                              (group, setting): group setting partitions keys
//	                                              schedule values props (tab-separated)
//	go run ./oracle/whatif assemble WORK OUT LOGS write OUT/runs.ndjson from WORK/index.tsv, the
//	                                              runs' load and trace files and WORK/count.ndjson
//	                                              (kseg count --json); keep the .log files of
//	                                              runs < LOGS zstd-compressed under OUT/logs/
//	go run ./oracle/whatif pairs DATA             one line per (group, condition, A, B, run with
//	                                              logs at A): group cond A B run
//	go run ./oracle/whatif args DATA GROUP SETTING  the setting's properties as KEY=VALUE lines
//	go run ./oracle/whatif extract DATA GROUP COND SETTING RUN DST
//	                                              extract a run's logs; print its partition dirs
//	go run ./oracle/whatif summary DATA           a Markdown table of the runs (PROVENANCE.md)
//	go run ./oracle/whatif score DATA PREDDIR     score the predictions in PREDDIR (files
//	                                              GROUP__COND__A__B__RUN.ndjson, kseg whatif --json)
//	go run ./oracle/whatif choose NAME=DATA:PREDDIR...
//	                                              compare model variants (the first: the model as
//	                                              it is) by leaving one group out (choose.go)
package main

import (
	"fmt"
	"os"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "whatif:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: whatif plan|assemble|pairs|args|extract|score|summary|choose ...")
	}
	if args[0] == "choose" {
		return choose(os.Stdout, args[1:])
	}
	n := map[string]int{"plan": 2, "assemble": 3, "pairs": 1, "args": 3, "extract": 6, "score": 2, "summary": 1}
	want, ok := n[args[0]]
	if !ok || len(args)-1 != want {
		return fmt.Errorf("usage: see the comment at the top of oracle/whatif/main.go (%s takes %d arguments)", args[0], want)
	}
	a := args[1:]
	switch args[0] {
	case "plan":
		return plan(a[0], a[1])
	case "assemble":
		logs, err := strconv.Atoi(a[2])
		if err != nil {
			return err
		}
		return assemble(a[0], a[1], logs)
	case "pairs":
		return pairs(a[0])
	case "args":
		return settingArgs(a[0], a[1], a[2])
	case "extract":
		k, err := strconv.Atoi(a[4])
		if err != nil {
			return err
		}
		return extract(a[0], a[1], a[2], a[3], k, a[5])
	case "score":
		return score(a[0], a[1])
	case "summary":
		return summary(a[0])
	}
	return nil
}
