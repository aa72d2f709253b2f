#!/usr/bin/env bash
# kafka:// against a 3-node KRaft cluster on 127.0.0.1 (separate ports): a topic of 6 partitions,
# replication factor 3, leaders spread over the nodes. kseg count reads it once as the baseline,
# then again slowly (small fetches) while one node is stopped mid-run: first with SIGTERM
# (controlled shutdown, leaders move at once), then, with that node back, SIGKILL (leaders move
# when the controller notices). Each run must either give the baseline exactly (exit 0: kseg
# followed the leaders) or exit 3 naming the partition it could not read: never a short count.
# Usage: oracle/ci/wire-cluster.sh KSEG   Last line: "wire-cluster: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
KSEG="$1"
DIR="$(mktemp -d "${TMPDIR:-/tmp}/kseg-wire-cluster.XXXXXX")"
declare -a PIDS=("" "" "" "")
stop_node() { # N SIGNAL
  local pid=${PIDS[$1]}
  [ -n "$pid" ] || return 0
  kill -"$2" "$pid" 2>/dev/null || true
  for _ in $(seq 1 240); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
  # reap it: a node restarted while the old JVM still holds its log directory's lock fails with
  # "Error starting LogManager"
  wait "$pid" 2>/dev/null || true
  PIDS[$1]=""
}
cleanup() {
  for i in 1 2 3; do stop_node "$i" TERM; done
  rm -rf "$DIR"
}
trap cleanup EXIT

declare -a BP CP
for i in 1 2 3; do BP[$i]=$(free_port "$DIR/ports"); CP[$i]=$(free_port "$DIR/ports"); done
VOTERS="1@127.0.0.1:${CP[1]},2@127.0.0.1:${CP[2]},3@127.0.0.1:${CP[3]}"
BOOT="127.0.0.1:${BP[1]},127.0.0.1:${BP[2]},127.0.0.1:${BP[3]}"
for i in 1 2 3; do
  mkdir -p "$DIR/n$i"
  cat >"$DIR/n$i/server.properties" <<PROPS
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$VOTERS
listeners=PLAINTEXT://127.0.0.1:${BP[$i]},CONTROLLER://127.0.0.1:${CP[$i]}
advertised.listeners=PLAINTEXT://127.0.0.1:${BP[$i]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DIR/n$i/logs
auto.create.topics.enable=false
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
broker.session.timeout.ms=3000
broker.heartbeat.interval.ms=500
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
PROPS
  "$JAVA" -cp "$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
    kafka.tools.StorageTool format --cluster-id a3NlZy13aXJlLWNsdXN0ZXI --config "$DIR/n$i/server.properties" \
    >"$DIR/n$i/format.out" 2>&1 || { cat "$DIR/n$i/format.out" >&2; exit 1; }
done
start_node() {
  local i=$1
  nohup "$JAVA" -Xmx512m -Xms128m -Dkafka.logs.dir="$DIR/n$i" -Dlog4j2.configurationFile="$INFRA/log4j2-broker.properties" \
    -cp "$ORACLE/lib/*" kafka.Kafka "$DIR/n$i/server.properties" >"$DIR/n$i/broker.out" 2>&1 </dev/null &
  PIDS[$i]=$!
}
node_errors() { # N: why node N stopped, from its output and log
  tail -n 20 "$DIR/n$1/broker.out" >&2
  grep -E -A4 "ERROR|FATAL" "$DIR/n$1/broker.log" 2>/dev/null | tail -n 20 >&2 || true
}
wait_started() {
  local i=$1 n=${2:-1} retried=""
  for _ in $(seq 1 600); do
    local c
    c=$(grep -c "Kafka Server started" "$DIR/n$i/broker.log" 2>/dev/null || true)
    [ "${c:-0}" -ge "$n" ] && return 0
    # A node that exited will not start: say why now, and start it once more (the cluster's
    # startup is not what this script tests; a second failure fails it).
    if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
      wait "${PIDS[$i]}" 2>/dev/null || true
      echo "wire-cluster: node $i exited before it started (start $n):" >&2
      node_errors "$i"
      if [ -n "$retried" ]; then break; fi
      retried=1
      sleep 2
      start_node "$i"
    fi
    sleep 0.5
  done
  echo "node $i not ready (start $n)" >&2
  node_errors "$i"
  exit 1
}
for i in 1 2 3; do start_node "$i"; done
for i in 1 2 3; do wait_started "$i"; done
echo "wire-cluster: nodes at $BOOT"
kafka_tool() { "$JAVA" -Xmx256M -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" -cp "$ORACLE/lib/*" "$@"; }
kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic spread \
  --partitions 6 --replication-factor 3 >/dev/null
kafka_tool org.apache.kafka.tools.ProducerPerformance --topic spread --num-records 300000 --record-size 100 \
  --throughput -1 --producer-props bootstrap.servers="$BOOT" acks=all linger.ms=5 batch.size=16384 >/dev/null
kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --describe --topic spread | grep -o 'Leader: [0-9]*' | sort | uniq -c

PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
SRC="kafka://$BOOT/spread"
"$KSEG" count --json "$SRC" >"$DIR/baseline"
if [ "$(grep -c '"records":' "$DIR/baseline")" = 6 ] && ! grep -q '"records":0,' "$DIR/baseline"; then pass; else fail "baseline: $(cat "$DIR/baseline")"; fi

midrun() { # NAME SIGNAL NODE
  local name=$1 sig=$2 node=$3 rc=0
  "$KSEG" count --json --workers 2 --fetch-bytes 1024 "$SRC" >"$DIR/$name.out" 2>"$DIR/$name.err" &
  local kpid=$!
  sleep 1
  kill -0 "$kpid" 2>/dev/null || echo "wire-cluster: $name: kseg finished before the node stopped (the test is weaker)"
  stop_node "$node" "$sig"
  wait "$kpid" || rc=$?
  if [ "$rc" = 0 ] && cmp -s "$DIR/baseline" "$DIR/$name.out"; then
    pass
    echo "wire-cluster: $name: node $node stopped mid-run; kseg followed the leaders, counts equal the baseline"
  elif [ "$rc" = 3 ] && grep -q 'spread-[0-5]' "$DIR/$name.err" && [ ! -s "$DIR/$name.out" ]; then
    pass
    echo "wire-cluster: $name: node $node stopped mid-run; kseg exit 3: $(head -n 1 "$DIR/$name.err")"
  else
    fail "$name: exit $rc, stdout $(wc -l <"$DIR/$name.out") lines, stderr: $(cat "$DIR/$name.err")"
  fi
}
midrun sigterm TERM 1
start_node 1
wait_started 1 2
sleep 5 # let it catch up and take leaderships back (auto leader rebalance may lag: either is fine)
midrun sigkill KILL 2
echo "wire-cluster: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
