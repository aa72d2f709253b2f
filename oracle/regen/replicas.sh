#!/usr/bin/env bash
# Replica fixtures for kseg replicas from a real Kafka cluster (a controller and three brokers,
# oracle/infra/replicas.sh):
#   oracle/regen/replicas.sh      run the scenario and rewrite testdata/replicas/
# Every topic has one partition on nodes 1 2 3 (leader 1). Fixtures (each copy is a log
# directory: the three checkpoint files and the partition directory):
#   clean/n{1,2,3}/clean-0            all nodes up: the copies agree
#   restore/n{1,2,3}/restore-0        n2 is a copy of its partition taken half-way and put back
#                                     (a follower restored from an old backup: behind, not diverged)
#   retention/n{1,2,3}/ret-0          n3 was down while retention.bytes deleted the old segments on
#                                     n1 and n2: different log starts, the same batches above them
#   unclean/before/n{1,2,3}/rep-0     after an unclean election: n1 (old leader) and n2 hold
#                                     records n3 (elected unclean) never had, n3 wrote new ones
#   unclean/after/n{1,2,3}/rep-0      the same nodes after n1 and n2 rejoined and truncated
#   unclean/truncation.txt            the rejoining brokers' "Truncating" log lines (the truth)
#   PROVENANCE                        Kafka version, date, the steps
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
source "$INFRA/replicas.sh"
cd "$REPO"
OUT=testdata/replicas
DIR="$(mktemp -d "${TMPDIR:-/tmp}/kseg-replicas.XXXXXX")"
trap 'rc_stop_all; rm -rf "$DIR"' EXIT
NEW="$DIR/out"
mkdir -p "$NEW"

rc_setup

echo "replicas: cluster at $RC_BOOT" >&2
rc_create clean
rc_create rep unclean.leader.election.enable=true
rc_create restore
rc_create ret segment.ms=1500
for t in clean rep restore ret; do rc_wait_isr "$t" 3; done

rc_produce clean 200
rc_produce rep 50
rc_produce restore 100
sleep 3
rc_copy 2 restore "$DIR/backup-n2"
rc_produce restore 100
for burst in 1 2 3; do
  rc_produce ret 60
  sleep 2
done
rc_produce ret 10 # rolls the last segment (segment.ms has passed)
sleep 4           # replicated, high watermarks and checkpoints written
for i in 1 2 3; do rc_copy "$i" clean "$NEW/clean/n$i"; done

echo "replicas: stop node 3 (the follower that will be elected unclean)" >&2
rc_stop 3
for i in 1 3; do rc_copy "$i" restore "$NEW/restore/n$i"; done
cp -r "$DIR/backup-n2" "$NEW/restore/n2"
rc_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$(rc_boot)" --alter --entity-type topics \
  --entity-name ret --add-config retention.bytes=1 >/dev/null
for _ in $(seq 1 60); do
  if [ "$(ls "$DIR/n1/logs/ret-0"/*.log | wc -l)" = 1 ] && [ "$(ls "$DIR/n2/logs/ret-0"/*.log | wc -l)" = 1 ]; then break; fi
  sleep 0.5
done
sleep 3 # log-start-offset-checkpoint
for i in 1 2 3; do rc_copy "$i" ret "$NEW/retention/n$i"; done

rc_produce rep 50 # offsets 50..99 on n1 and n2
sleep 2
echo "replicas: stop node 2" >&2
rc_stop 2
rc_produce rep 30 # offsets 100..129 on n1 only
sleep 2
echo "replicas: stop node 1 (the leader)" >&2
rc_stop 1
echo "replicas: start node 3 and elect it unclean" >&2
rc_start 3
rc_elect_unclean rep 3
rc_produce rep 20 # offsets 50..69 on n3, in the new epoch
sleep 3
for i in 1 2 3; do rc_copy "$i" rep "$NEW/unclean/before/n$i"; done

echo "replicas: start nodes 1 and 2 again: they truncate and follow node 3" >&2
rc_start 1
rc_start 2
rc_wait_isr rep 3
sleep 3
for i in 1 2 3; do rc_copy "$i" rep "$NEW/unclean/after/n$i"; done
for i in 1 2; do
  grep -h "Truncating partition rep-0 .*due to leader epoch" "$DIR/n$i/broker.log" | sed "s/^\[[^]]*\] /n$i: /" || true
done >"$NEW/unclean/truncation.txt"
cat "$NEW/unclean/truncation.txt" >&2

cat >"$NEW/PROVENANCE" <<EOF
Written by oracle/regen/replicas.sh on $(date -u +%Y-%m-%d) with Apache Kafka $(kafka_version)
(KRaft on one machine: a controller, node 0, and three brokers, nodes 1 2 3;
eligible.leader.replicas.version=0).
Every topic has one partition with replicas 1,2,3 (leader 1). Producers: ProducerPerformance,
100-byte records, acks=1, enable.idempotence=false, batch.size=1024, linger.ms=0.
Each copy is a log directory as an operator copies it off a broker: the checkpoint files
(replication-offset-checkpoint, recovery-point-offset-checkpoint, log-start-offset-checkpoint)
and the partition directory (.log, .snapshot, leader-epoch-checkpoint, partition.metadata; the
.index/.timeindex files are left out).
clean:     200 records, all nodes up, copied from all three.
restore:   100 records; n2's partition directory copied; 100 more; n3 stopped; n1 and n3 copied,
           n2 is the earlier copy (a follower restored from an old backup).
retention: three bursts of 60 records 2 s apart with segment.ms=1500 (one segment each), then
           10 more; n3 stopped; retention.bytes=1 set: n1 and n2 deleted every segment but the
           active one, n3 (down) kept them all.
unclean:   50 records (all nodes); n3 stopped; 50 records (n1, n2); n2 stopped; 30 records (n1
           only); n1 stopped; n3 started and elected unclean (unclean.leader.election.enable=true
           on the topic); 20 records to n3; before/ copied; n1 and n2 started, they truncated
           and followed n3 (truncation.txt has their log lines); after/ copied.
EOF
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
cp -r "$NEW" "$OUT"
echo "replicas: wrote $OUT" >&2
