package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kseg/kseg/batch"
)

// TestLiveHangingTransaction runs against the broker oracle/ci/wire-txn.sh
// starts ($KSEG_TXN_BROKER, HOST:PORT): one that does not check that a
// transactional batch's partition is in a transaction
// (transaction.partition.verification.enable=false) and does not abort
// timed-out transactions during the test. On one partition it leaves
// two transactions open for good: one a transactional producer began and
// abandoned, past its 2 s timeout (txn-past-timeout), and one written
// under a producer id no coordinator has a transaction for, as a broker
// without verification lets through (txn-unknown-to-coordinator: a
// hanging transaction). kseg audit and kseg report must both find them.
func TestLiveHangingTransaction(t *testing.T) {
	broker := os.Getenv("KSEG_TXN_BROKER")
	if broker == "" {
		t.Skip("no broker: oracle/ci/wire-txn.sh sets KSEG_TXN_BROKER")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := "hanging-" + time.Now().Format("150405")

	admCl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	created, err := adm.CreateTopic(ctx, 1, 1, nil, topic)
	if err == nil {
		err = created.Err
	}
	if err != nil {
		t.Fatal(err)
	}

	// An abandoned transaction: begun, produced to, never ended.
	txCl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.TransactionalID("kseg-abandoned-"+topic),
		kgo.TransactionTimeout(2*time.Second), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer txCl.Close()
	if err := txCl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txCl.ProduceSync(ctx, &kgo.Record{Value: []byte("abandoned"), Partition: 0}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// A hanging one: an idempotent producer id's transactional batch, sent
	// as Produce v11 (from v12 the broker adds the partition to the
	// transaction itself, asking the coordinator).
	v11 := kversion.Stable()
	v11.SetMaxKeyVersion(0, 11)
	rawCl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.MaxVersions(v11))
	if err != nil {
		t.Fatal(err)
	}
	defer rawCl.Close()
	initReq := kmsg.NewPtrInitProducerIDRequest()
	initReq.TransactionTimeoutMillis = -1
	initResp, err := initReq.RequestWith(ctx, rawCl)
	if err == nil {
		err = kerr.ErrorForCode(initResp.ErrorCode)
	}
	if err != nil {
		t.Fatal(err)
	}
	b := batch.NewBuilder(batch.CodecNone)
	b.Append(time.Now().UnixMilli(), nil, []byte("hanging"), nil)
	raw, err := b.Build(nil, batch.Header{Attributes: 0x10 /* the transactional bit */, ProducerID: initResp.ProducerID,
		ProducerEpoch: initResp.ProducerEpoch, BaseSequence: 0, PartitionLeaderEpoch: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prod := kmsg.NewPtrProduceRequest()
	ghost := "kseg-never-initialised"
	prod.TransactionID, prod.Acks, prod.TimeoutMillis = &ghost, -1, 10000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic, pt.TopicID = topic, created.ID // by name up to v12, by id from v13
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Partition, pp.Records = 0, raw
	pt.Partitions = append(pt.Partitions, pp)
	prod.Topics = append(prod.Topics, pt)
	prodResp, err := prod.RequestWith(ctx, rawCl)
	if err == nil {
		err = kerr.ErrorForCode(prodResp.Topics[0].Partitions[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("writing a transactional batch outside any transaction (is transaction.partition.verification.enable=false?): %v", err)
	}
	time.Sleep(3 * time.Second) // past the abandoned transaction's timeout

	src := "kafka://" + broker + "/" + topic
	var out, errb bytes.Buffer
	if code := Execute([]string{"audit", "--json", src}, &out, &errb); code != ExitFindings {
		t.Fatalf("kseg audit: exit %d: %s%s", code, out.String(), errb.String())
	}
	var fromAudit []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var f struct {
			Type, Code string
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if f.Type == "finding" {
			fromAudit = append(fromAudit, f.Code)
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	out.Reset()
	errb.Reset()
	if code := Execute([]string{"report", "--quiet", src, "--out", html}, &out, &errb); code != ExitOK {
		t.Fatalf("kseg report: exit %d: %s%s", code, out.String(), errb.String())
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	var fromReport []string
	for _, m := range regexp.MustCompile(`class="finding-row" data-code="([^"]+)"`).FindAllSubmatch(page, -1) {
		fromReport = append(fromReport, string(m[1]))
	}
	sort.Strings(fromAudit)
	sort.Strings(fromReport)
	t.Logf("kseg audit: %v; kseg report: %v", fromAudit, fromReport)
	if strings.Join(fromAudit, " ") != strings.Join(fromReport, " ") {
		t.Fatalf("kseg audit finds %v, kseg report %v", fromAudit, fromReport)
	}
	for _, want := range []string{"txn-unknown-to-coordinator", "txn-past-timeout"} {
		if !strings.Contains(strings.Join(fromAudit, " "), want) {
			t.Errorf("no %s finding: %v", want, fromAudit)
		}
	}
}
