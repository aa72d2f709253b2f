package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kseg/kseg/index"
	"github.com/kseg/kseg/internal/replicas"
	"github.com/kseg/kseg/internal/source"
	"github.com/kseg/kseg/internal/wire"
	"github.com/kseg/kseg/report"
)

func init() { subcommands = append(subcommands, newReplicasCmd) }

const replicasLong = `Compare the copies of a partition: where they diverge, under which leader
epoch, and which batches only one copy holds.

COPY is a partition directory (or a log directory holding the partition)
copied off each broker, or kafka://HOST:PORT/TOPIC[/PARTITION], which reads
every replica of each partition from its own broker. Copies are grouped by
partition name; when every argument holds one partition they are one group
whatever their names. A partition with one copy (log directories of brokers
holding different partitions) is named on stderr and not compared; with no
partition held twice it is a usage error.

For each copy: its log start and end, batches and records, its leader-epoch
history from leader-epoch-checkpoint (and from the batches'
partitionLeaderEpoch, with where the two disagree), the high watermark and
recovery point from the log directory's checkpoint files. For each pair of
copies, reasoning as Kafka's truncation does (KIP-101, KIP-279): the batches
from the larger log start on are compared by offsets and CRC; the first
offset whose batches differ, the largest epoch both hold with the same start
offset, the offset Kafka truncates a follower to, the likely cause
(unclean-election, same-epoch-conflict, gap), and the runs of batches only
one side holds from there (offsets, epoch, producer, sequences, records,
timestamps). A copy that is a prefix of another is behind, not diverged;
batches below the other copy's log start (retention) are not compared.

Over the wire each replica serves up to its own high watermark (a follower
answers a consumer's Fetch since KIP-392); ListOffsets with the debugging
replica id gives each replica's log start and end; the leader's epochs come
from OffsetForLeaderEpoch, the followers' from their batches. The kafka://
flags below apply, except --from and --to (a usage error here).

Exit status: 0 the copies agree (or one is behind), 1 copies diverge above
the log start, 2 usage, 3 unreadable input.`

func newReplicasCmd() *cobra.Command {
	var out outputFlag
	var sf source.Flags
	c := &cobra.Command{
		Use:     "replicas COPY COPY... | replicas kafka://HOST:PORT/TOPIC[/PARTITION]",
		Short:   "Compare the replicas of a partition: divergence offset, leader epoch, batches only one copy holds",
		Long:    replicasLong,
		Example: "  kseg replicas broker1/orders-0 broker2/orders-0 broker3/orders-0\n  kseg replicas --json kafka://localhost:9092/orders/0",
		Args:    needPaths("replicas needs the copies to compare (partition directories, or one kafka:// source)"),
		RunE: func(c *cobra.Command, args []string) error {
			return withSource(&sf, func(src *source.Set) error {
				return runReplicas(c.OutOrStdout(), c.ErrOrStderr(), src, args, out.json())
			})
		},
	}
	out.add(c.Flags(), "NDJSON: replica, pair, divergence and only_on lines, a summary last")
	addSourceFlags(c, &sf)
	return c
}

type replicaGroup struct {
	name   string
	inputs []replicas.Input
}

func runReplicas(w, warn io.Writer, src *source.Set, args []string, asJSON bool) error {
	if wc := src.Options().Wire; wc.From.Kind != wire.BoundDefault || wc.To.Kind != wire.BoundDefault {
		return withCode(ExitUsage, fmt.Errorf("replicas reads every replica from its log start to its end: --from and --to do not apply"))
	}
	groups, err := replicaGroups(src, args, warn)
	if err != nil {
		return err
	}
	var results []*replicas.Result
	for _, g := range groups {
		res, err := replicas.Compare(g.name, g.inputs)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		results = append(results, res)
	}
	if asJSON {
		err = report.ReplicasJSON(w, results)
	} else {
		err = report.ReplicasText(w, results)
	}
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Diverged() {
			return silentExit(ExitFindings)
		}
	}
	return nil
}

// replicaGroups resolves the arguments into the copies of each partition.
func replicaGroups(src *source.Set, args []string, warn io.Writer) ([]replicaGroup, error) {
	var groups []replicaGroup
	byName := map[string]int{}
	add := func(name string, in replicas.Input) {
		k, ok := byName[name]
		if !ok {
			k = len(groups)
			byName[name] = k
			groups = append(groups, replicaGroup{name: name})
		}
		groups[k].inputs = append(groups[k].inputs, in)
	}
	var files []replicas.Input
	var fileNames []string
	onePerArg := true
	for _, arg := range args {
		if strings.HasPrefix(arg, "kafka://") {
			onePerArg = false
			cc, sets, err := src.Replicas(arg)
			if err != nil {
				return nil, withCode(ExitBadInput, err)
			}
			for _, rs := range sets {
				name := fmt.Sprintf("%s-%d", rs.Topic, rs.Partition)
				for _, in := range liveInputs(cc, rs) {
					add(name, in)
				}
			}
			continue
		}
		parts, err := src.Partitions([]string{arg})
		if err != nil {
			return nil, withCode(ExitBadInput, err)
		}
		if len(parts) != 1 {
			onePerArg = false
		}
		for k := range parts {
			p := &parts[k]
			copyName := arg
			if len(parts) > 1 {
				copyName = p.Dir
			}
			in, err := replicas.FileInput(copyName, p)
			if err != nil {
				return nil, withCode(ExitBadInput, err)
			}
			files = append(files, in)
			fileNames = append(fileNames, p.Name())
		}
	}
	if onePerArg && len(files) > 0 {
		name := fileNames[0]
		for _, n := range fileNames[1:] {
			if n != name {
				name = strings.Join(uniq(fileNames), ",")
				break
			}
		}
		add(name, files[0])
		for _, in := range files[1:] {
			add(name, in)
		}
	} else {
		for k, in := range files {
			add(fileNames[k], in)
		}
	}
	// Log directories of brokers rarely hold the same partitions: a
	// partition with one copy is named and left out, unless no partition
	// has two.
	var out []replicaGroup
	for _, g := range groups {
		if len(g.inputs) >= 2 {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil, withCode(ExitUsage, fmt.Errorf("partition %s: only one copy (%s); replicas compares two or more copies of a partition", groups[0].name, groups[0].inputs[0].Name))
	}
	for _, g := range groups {
		if len(g.inputs) < 2 {
			fmt.Fprintf(warn, "kseg: note: partition %s has one copy (%s): not compared\n", g.name, g.inputs[0].Name)
		}
	}
	return out, nil
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// liveInputs are the replicas of rs as copies: each read from its broker,
// the leader's epochs from OffsetForLeaderEpoch.
func liveInputs(cc *wire.Cluster, rs wire.ReplicaSet) []replicas.Input {
	var out []replicas.Input
	for _, r := range rs.Replicas {
		r := r
		in := replicas.Input{Name: fmt.Sprintf("broker-%d", r.Broker), Part: &r.Part, LogStart: r.LogStart, LogEnd: r.LogEnd,
			HighWatermark: -1, RecoveryPoint: -1, Broker: r.Broker, Leader: r.Leader}
		if r.Leader {
			if h, ok := leaderEpochs(cc, rs, r.LogStart); ok {
				in.Checkpoint, in.CheckpointFrom = h, "OffsetForLeaderEpoch"
			}
		}
		in.Finish = func(c *replicas.Copy) {
			hw := r.HighWatermark()
			c.HighWatermark = hw
			if !r.InSync {
				c.Notes = append(c.Notes, "not in the ISR")
			}
			if hw >= 0 && hw < r.LogEnd {
				c.Notes = append(c.Notes, fmt.Sprintf("offsets %d-%d are above its high watermark %d: a replica serves none over the wire", hw, r.LogEnd-1, hw))
			}
		}
		out = append(out, in)
	}
	return out
}

// leaderEpochs is the leader's epoch history from OffsetForLeaderEpoch.
func leaderEpochs(cc *wire.Cluster, rs wire.ReplicaSet, logStart int64) ([]index.EpochEntry, bool) {
	h, err := replicas.EpochHistory(func(epoch int32) (int32, int64, error) {
		a, err := cc.EpochEnds(context.Background(), rs.Topic, rs.Partition, rs.Leader, []int32{epoch})
		if err != nil {
			return 0, 0, err
		}
		if len(a) != 1 {
			return 0, 0, fmt.Errorf("%s-%d: %d answers to OffsetForLeaderEpoch", rs.Topic, rs.Partition, len(a))
		}
		return a[0].Epoch, a[0].EndOffset, nil
	}, rs.LeaderEpoch, logStart)
	return h, err == nil && len(h) > 0
}
