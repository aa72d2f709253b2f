package report

import "github.com/kseg/kseg/internal/javaorder"

// kafka-dump-log keeps per-file summaries in java.util.HashMap keyed by the
// absolute path, so with several files the summary order is HashMap
// iteration order.

// javaHashMapOrder returns keys (given in insertion order, no duplicates) in
// the order a java.util.HashMap with default capacity would iterate them.
func javaHashMapOrder(keys []string) []string { return javaorder.Strings(keys) }
