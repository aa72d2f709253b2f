// Command kseg inspects Kafka log segments, indexes and producer state.
package main

import (
	"os"

	"github.com/kseg/kseg/cmd"
)

func main() {
	os.Exit(int(cmd.Execute(os.Args[1:], os.Stdout, os.Stderr)))
}
