package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// ExitCode is the status a kseg command ends with. Every value kseg
// returns is one of the constants below and has a row in exitCodes, the
// one table docs/exit-codes.md and the commands' help are checked against
// (exitcodes_test.go).
type ExitCode int

const (
	ExitOK       ExitCode = 0
	ExitFindings ExitCode = 1 // a check failed, layouts differ, or findings at/above --fail-on
	// ExitKafkaCrash is kafka-dump-log's own exit status for the same
	// input: kseg dump in kafka-dump-log's form (--files) exits 1 where
	// Kafka's tool crashes, so scripts that call kseg in
	// its place see what they saw (its --help is a success in kseg). It is
	// 1 like ExitFindings but means something else.
	ExitKafkaCrash ExitCode = 1
	ExitUsage      ExitCode = 2
	ExitBadInput   ExitCode = 3 // unreadable, truncated or corrupt input
	ExitInternal   ExitCode = 4
)

// exitCodeInfo is one row of the exit-code table.
type exitCodeInfo struct {
	Code    ExitCode
	Name    string
	Meaning string
}

// exitCodes is the table of every exit code kseg returns. docs/exit-codes.md
// holds the same rows, verbatim (TestExitCodesDocumented).
var exitCodes = []exitCodeInfo{
	{ExitOK, "ExitOK", "success"},
	{ExitFindings, "ExitFindings", "a check failed (`count`), layouts differ (`diff`), findings at or above `--fail-on` (`audit`), a partition outside `--tolerance` (`produce --compare`), corrupt regions skipped (`dump --keep-going`), a producer snapshot with a bad CRC (`dump --format kseg\\|json`), copies of a partition that diverge above their log start (`replicas`)"},
	{ExitKafkaCrash, "ExitKafkaCrash", "kafka-dump-log's own exit status for the same input: a crash where kafka-dump-log crashes (`dump --files`)"},
	{ExitUsage, "ExitUsage", "usage error: an unknown flag, command or `--format`, a bad value, a missing argument, an output that exists without `--force` (`produce --out`, `report --out`), a non-empty `produce --out` directory kseg did not write, even with `--force`; a `whatif --set`/`--was` value the producer refuses"},
	{ExitBadInput, "ExitBadInput", "unreadable, truncated or corrupt input; for `kafka://` sources also: missing topic or partition, unreachable broker, failed authentication or TLS verification, a partition that could not be read; `report` also when its HTML file cannot be written; `whatif` also when a log's timestamps are not send() times (without `--synthetic`)"},
	{ExitInternal, "ExitInternal", "internal error in the reference producer: `kseg produce` could not write its output directory (creating, writing or renaming its files failed) or hit another error that is neither a bad setting nor bad input; `kseg explain --advice` could not run the reference producer on the inferred workload; `kseg whatif` could not replay a log"},
}

// known tells whether c is a code of the table.
func (c ExitCode) known() bool {
	for _, e := range exitCodes {
		if e.Code == c {
			return true
		}
	}
	return false
}

// String is the code's constant name(s), e.g. "ExitUsage" or, for 1,
// "ExitFindings|ExitKafkaCrash".
func (c ExitCode) String() string {
	var names []string
	for _, e := range exitCodes {
		if e.Code == c {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return "ExitCode(" + strconv.Itoa(int(c)) + ")"
	}
	return strings.Join(names, "|")
}

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code ExitCode
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode gives err the exit code code (nil stays nil).
func withCode(code ExitCode, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// silentExit ends the command with a code and no message (the output said it).
type silentExit ExitCode

func (s silentExit) Error() string { return fmt.Sprintf("exit status %d", int(s)) }
