// Command envelope is the Go half of oracle/regen/producer-envelope.sh: the case
// matrix, the value files, and the data it commits under
// testdata/producer-envelope/ from what the real producer and broker did.
//
//	go run ./oracle/envelope cases                 one line per case: name, partitions, Java spec
//	go run ./oracle/envelope values DIR            (re)write the value files into DIR
//	go run ./oracle/envelope assemble WORK OUT KAFKA RUNS [REGEX]
//	                                               write OUT/<case>.json from the runs in WORK
//	                                               (only the cases whose name matches REGEX)
//	go run ./oracle/envelope codec WORK OUT KAFKA RUNS
//	                                               write OUT/codec-fidelity.json, print the table
//
// WORK is the harness's work tree: WORK/broker/logs/<topic>-<p>/ (the
// broker's partitions) and WORK/runs/<topic>.{records.tsv,timing.json,load}
// (the Java program's records and timings, the load average at its start).
// WORK may list several such trees, A:B, each with RUNS runs: their runs
// are pooled in that order (two harness invocations of the same cases).
// Record counts per batch are read from the .log files with kseg's reader.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "envelope:", err)
		os.Exit(1)
	}
}

func usage() error {
	return fmt.Errorf("usage: envelope cases | values DIR | assemble WORK OUT KAFKA RUNS [REGEX] | codec WORK OUT KAFKA RUNS")
}

func run(args []string) error {
	if len(args) == 0 {
		return usage()
	}
	switch {
	case args[0] == "cases" && len(args) == 1:
		for _, c := range Cases() {
			fmt.Printf("%s\t%d\t%s\n", c.Name, c.Partitions, c.JavaSpec("TOPIC"))
		}
		return nil
	case args[0] == "values" && len(args) == 2:
		return writeValues(args[1])
	case args[0] == "assemble" && (len(args) == 5 || len(args) == 6), args[0] == "codec" && len(args) == 5:
		works, out, kafka := strings.Split(args[1], ":"), args[2], args[3]
		runs, err := strconv.Atoi(args[4])
		if err != nil || runs < 1 {
			return fmt.Errorf("RUNS: want a positive number, got %q", args[4])
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if args[0] == "assemble" {
			only := regexp.MustCompile("")
			if len(args) == 6 {
				if only, err = regexp.Compile(args[5]); err != nil {
					return err
				}
			}
			for _, c := range Cases() {
				if !only.MatchString(c.Name) {
					continue
				}
				b, err := assembleCase(works, kafka, c, runs)
				if err != nil {
					return fmt.Errorf("%s: %w", c.Name, err)
				}
				if err := os.WriteFile(filepath.Join(out, c.Name+".json"), b, 0o644); err != nil {
					return err
				}
			}
			return nil
		}
		b, err := codecFidelity(works, kafka, runs)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "codec-fidelity.json"), b, 0o644); err != nil {
			return err
		}
		var doc struct{ Rows []FidelityRow }
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		fmt.Print(fidelityMarkdown(doc.Rows))
		return nil
	}
	return usage()
}
