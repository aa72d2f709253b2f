package source

import (
	"context"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kseg/kseg/internal/wire"
	"github.com/kseg/kseg/segment"
)

func parse(t *testing.T, args ...string) (Options, error) {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var f Flags
	f.Add(fs)
	AddRemote(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.Options()
}

func TestFlagsOptions(t *testing.T) {
	t.Setenv("KSEG_SASL_PASSWORD", "pa55-word")
	o, err := parse(t, "--from", "5", "--to", "latest", "--sasl-mechanism", "plain", "--sasl-user", "u",
		"--s3-endpoint", "http://127.0.0.1:9", "--s3-path-style", "--fetch-bytes", "4096")
	if err != nil {
		t.Fatal(err)
	}
	if o.Wire.From != (wire.Bound{Kind: wire.BoundOffset, Offset: 5}) || o.Wire.To.Kind != wire.BoundLatest || o.Wire.FetchBytes != 4096 || o.Wire.SASL == nil {
		t.Errorf("wire %+v", o.Wire)
	}
	if o.Remote.Get("endpoint") != "http://127.0.0.1:9" || o.Remote.Get("path-style") != "true" || o.Remote.Has("region") {
		t.Errorf("remote %v", o.Remote)
	}
	if got := o.Redact("auth pa55-word failed"); got != "auth [redacted] failed" {
		t.Errorf("redact: %q", got)
	}
	for _, args := range [][]string{{"--from", "soon"}, {"--to", "@yesterday"}, {"--fetch-bytes", "0"}, {"--sasl-mechanism", "GSSAPI", "--sasl-user", "u"}} {
		if _, err := parse(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	// Two commands' options share nothing.
	a, _ := parse(t, "--rsa-key", "a.pem")
	b, _ := parse(t)
	if a.Remote.Get("rsa-key") != "a.pem" || b.Remote.Has("rsa-key") {
		t.Errorf("options leak between commands: %v, %v", a.Remote, b.Remote)
	}
	var d Options
	d.SetRemote("s3-region", "eu-west-1")
	d.SetRemote("files", "x")
	if d.Remote.Get("region") != "eu-west-1" || len(d.Remote) != 1 {
		t.Errorf("SetRemote: %v", d.Remote)
	}
}

// Local paths resolve as segment.Partitions does; lts:// through package
// remote with the set's options.
func TestPartitionsLocalAndRemote(t *testing.T) {
	args := []string{"../../testdata/segments/txn/txn-0", "../../testdata/segments/seed/u05-small-0/00000000000000000000.log"}
	want, err := segment.Partitions(args)
	if err != nil {
		t.Fatal(err)
	}
	src := New(Options{})
	defer src.Close()
	got, err := src.Partitions(args)
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d partitions, %v; want %d", len(got), err, len(want))
	}
	for i := range got {
		if got[i].Name() != want[i].Name() || got[i].Dir != want[i].Dir || !reflect.DeepEqual(got[i].Segments, want[i].Segments) {
			t.Errorf("partition %d: %s %s, want %s %s", i, got[i].Name(), got[i].Dir, want[i].Name(), want[i].Dir)
		}
	}
	if _, ok, err := src.Transactions(context.Background(), got[0].Dir, []int64{1}); ok || err != nil {
		t.Errorf("a directory's transactions: ok %v, %v", ok, err)
	}
	lts, err := src.Partitions([]string{"lts://../../testdata/segments/tiered/remote"})
	if err != nil || len(lts) == 0 || lts[0].Segments[0].Open == nil {
		t.Fatalf("lts://: %d partitions, %v", len(lts), err)
	}
	if _, err := New(Options{Remote: map[string][]string{"bogus": {"1"}}}).Partitions([]string{"lts://../../testdata/segments/tiered/remote"}); err == nil || !strings.Contains(err.Error(), "unknown option") {
		t.Errorf("an unknown remote option: %v", err)
	}
}

// A kafka:// source nothing listens for fails, and Close closes its client.
func TestKafkaUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	src := New(Options{Wire: wire.Config{Timeout: 500 * time.Millisecond, Retries: 1}})
	if _, err := src.Partitions([]string{"kafka://" + addr + "/t"}); err == nil {
		t.Fatal("no error")
	}
	if len(src.clusters) != 1 {
		t.Fatalf("%d clients", len(src.clusters))
	}
	src.Close()
	if len(src.clusters) != 0 {
		t.Fatalf("%d clients after Close", len(src.clusters))
	}
}

func TestTxnView(t *testing.T) {
	v := txnView("t", 3, wire.Producers{
		Leader: map[int64]wire.LeaderProducer{7: {ProducerID: 7, LastTimestamp: 99}},
		Txns:   map[int64]wire.Transaction{7: {TxnID: "a", State: "Ongoing", ProducerID: 7, ProducerEpoch: 2, TimeoutMillis: 60000, StartTimestamp: 5, Partitions: map[string][]int32{"t": {3}}}},
	}, time.UnixMilli(1000))
	c := v.Coord[7]
	if v.Topic != "t" || v.Partition != 3 || v.Leader[7].LastTimestamp != 99 || c.TxnID != "a" || c.ProducerEpoch != 2 || c.TimeoutMillis != 60000 || c.StartTimestamp != 5 || c.Partitions["t"][0] != 3 {
		t.Fatalf("%+v", v)
	}
}
