package cmd

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kseg/kseg/internal/explain"
	"github.com/kseg/kseg/producer"
	"github.com/kseg/kseg/segment"
)

// likeConfig is kseg produce --like PATH: the settings kseg explain infers
// from PATH's largest producer and a workload shaped like its log, with
// the flags given on the command line on top.
func likeConfig(cmd *cobra.Command, path string) (producer.Config, error) {
	parts, err := segment.Partitions([]string{path})
	if err != nil {
		return producer.Config{}, withCode(ExitBadInput, err)
	}
	res, err := explain.Run(parts)
	if err != nil {
		return producer.Config{}, withCode(ExitBadInput, err)
	}
	for _, u := range res.Unread {
		fmt.Fprintf(cmd.ErrOrStderr(), "kseg: --like %s: settings from the first %d data batches of %s-%d, within explain's bound on batches (offsets from %d on not read)\n", path, u.Read, u.Topic, u.Partition, u.From)
	}
	var like *explain.Producer
	for _, p := range res.Producers {
		if like == nil || len(p.Batches) > len(like.Batches) {
			like = p
		}
	}
	if like == nil {
		return producer.Config{}, withCode(ExitBadInput, errors.New("--like "+path+": no data batches to take settings from"))
	}
	base := like.Like()
	if replayed, all := like.LikeRecords(); replayed < all {
		fmt.Fprintf(cmd.ErrOrStderr(), "kseg: --like %s: the workload is the log's first %d records of %d: a model run replays no more (explain --advice compares the same batches)\n", path, replayed, all)
	}
	var f produceFlags
	fs := pflag.NewFlagSet("like", pflag.ContinueOnError)
	addProduceFlags(fs, &f)
	f.cfg = base // the flags are bound to f.cfg's fields
	f.compression = base.Compression.String()
	f.acks = map[int]string{-1: "all", 0: "0", 1: "1"}[base.Acks]
	f.startTime = strconv.FormatInt(base.StartTime, 10)
	f.sendInterval, f.firstSendDelay, f.rtt, f.pidDelay = base.SendInterval, base.FirstSendDelay, base.RTT, base.PIDDelay
	var setErr error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if fs.Lookup(fl.Name) == nil || setErr != nil {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				if setErr == nil {
					setErr = fs.Set(fl.Name, v)
				}
			}
			return
		}
		setErr = fs.Set(fl.Name, fl.Value.String())
	})
	if setErr != nil {
		return producer.Config{}, withCode(ExitUsage, setErr)
	}
	if !cmd.Flags().Changed("idempotence") {
		fs.Set("idempotence", strconv.FormatBool(base.Idempotence))
	}
	cfg, err := f.config(fs)
	if err != nil {
		return cfg, withCode(ExitUsage, err)
	}
	return cfg, nil
}
