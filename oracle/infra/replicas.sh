# A KRaft cluster (Kafka 4.4.0 on 127.0.0.1: a controller, node 0, and three brokers, nodes 1 2 3,
# so any broker can be stopped without losing the quorum) and the steps that make replicas
# of one partition diverge the way an unclean leader election does. Sourced by
# oracle/regen/replicas.sh (the committed fixtures) and oracle/ci/replicas.sh (the live check);
# source oracle/infra/common.sh first and set DIR (a scratch directory) before calling anything.
#   rc_setup             format the four nodes (eligible leader replicas off, see below), start
#                        them all
#   rc_start N / rc_stop N [SIGNAL]   start a broker and wait until it is up / stop it
#   rc_tool CLASS ARGS   run a Kafka tool (TopicCommand, ...) quietly
#   rc_produce TOPIC N   N records of 100 bytes with acks=1 (no idempotence), to whoever leads
#   rc_copy N TOPIC DEST copy node N's TOPIC-0 directory and its log directory's checkpoint files
#                        into DEST (DEST/<checkpoint files>, DEST/TOPIC-0/*.log, leader-epoch-checkpoint,
#                        partition.metadata, *.snapshot; the preallocated indexes are left out)
#   rc_leader TOPIC      the partition's leader and ISR as TopicCommand --describe prints them
#   rc_wait_isr TOPIC N  wait until TOPIC-0's ISR has N replicas
#   rc_elect_unclean TOPIC N  make broker N the leader of TOPIC-0 by an unclean election
# Eligible leader replicas (KIP-966, on by default for new 4.x clusters) keep the last ISR member
# eligible and stop the controller from electing an out-of-sync replica; the scenario is the
# classic unclean election, so the feature is formatted at level 0.
declare -a RC_PIDS=("" "" "" "")
declare -a RC_BP RC_CP

rc_setup() {
  oracle_fetch
  local i
  for i in 0 1 2 3; do RC_BP[$i]=$(free_port "$DIR/ports"); done
  local cport
  cport=$(free_port "$DIR/ports")
  RC_BOOT="127.0.0.1:${RC_BP[1]},127.0.0.1:${RC_BP[2]},127.0.0.1:${RC_BP[3]}"
  for i in 0 1 2 3; do
    mkdir -p "$DIR/n$i"
    if [ "$i" = 0 ]; then
      cat >"$DIR/n$i/server.properties" <<PROPS
process.roles=controller
node.id=0
controller.quorum.voters=0@127.0.0.1:$cport
listeners=CONTROLLER://127.0.0.1:$cport
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT
log.dirs=$DIR/n0/logs
PROPS
    else
      cat >"$DIR/n$i/server.properties" <<PROPS
process.roles=broker
node.id=$i
controller.quorum.voters=0@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:${RC_BP[$i]}
advertised.listeners=PLAINTEXT://127.0.0.1:${RC_BP[$i]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
PROPS
    fi
    cat >>"$DIR/n$i/server.properties" <<PROPS
log.dirs=$DIR/n$i/logs
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
broker.session.timeout.ms=4000
broker.heartbeat.interval.ms=500
replica.lag.time.max.ms=5000
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
log.retention.check.interval.ms=1000
log.flush.start.offset.checkpoint.interval.ms=1000
replica.high.watermark.checkpoint.interval.ms=1000
log.flush.offset.checkpoint.interval.ms=1000
PROPS
    "$JAVA" -cp "$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
      kafka.tools.StorageTool format --cluster-id a3NlZy1yZXBsaWNhcy0wMQ --feature eligible.leader.replicas.version=0 \
      --config "$DIR/n$i/server.properties" >"$DIR/n$i/format.out" 2>&1 || { cat "$DIR/n$i/format.out" >&2; return 1; }
  done
  for i in 0 1 2 3; do rc_launch "$i"; done
  for i in 0 1 2 3; do rc_wait "$i" 1; done
}

rc_launch() {
  local i=$1
  nohup "$JAVA" -Xmx384m -Xms128m -Dkafka.logs.dir="$DIR/n$i" -Dlog4j2.configurationFile="$INFRA/log4j2-broker.properties" \
    -cp "$ORACLE/lib/*" kafka.Kafka "$DIR/n$i/server.properties" >>"$DIR/n$i/broker.out" 2>&1 </dev/null &
  RC_PIDS[$i]=$!
}

rc_wait() { # N STARTS: wait until node N has started STARTS times
  local i=$1 n=$2 c
  for _ in $(seq 1 240); do
    c=$(grep -c "Kafka Server started" "$DIR/n$i/broker.log" 2>/dev/null || true)
    [ "${c:-0}" -ge "$n" ] && return 0
    if ! kill -0 "${RC_PIDS[$i]}" 2>/dev/null; then break; fi
    sleep 0.5
  done
  echo "replicas: node $i did not start" >&2
  tail -n 20 "$DIR/n$i/broker.out" >&2
  grep -E -A4 "ERROR|FATAL" "$DIR/n$i/broker.log" 2>/dev/null | tail -n 20 >&2 || true
  return 1
}

rc_start() {
  local i=$1 n
  n=$(grep -c "Kafka Server started" "$DIR/n$i/broker.log" 2>/dev/null || true)
  rc_launch "$i"
  rc_wait "$i" $((${n:-0} + 1))
}

rc_stop() {
  local i=$1 sig=${2:-TERM} pid=${RC_PIDS[$1]}
  [ -n "$pid" ] || return 0
  kill -"$sig" "$pid" 2>/dev/null || true
  for _ in $(seq 1 240); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  RC_PIDS[$i]=""
}

rc_stop_all() { local i; for i in 1 2 3 0; do rc_stop "$i" TERM; done; }

rc_tool() { "$JAVA" -Xmx256M -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" -cp "$ORACLE/lib/*" "$@"; }

# rc_boot: the bootstrap list of the nodes that are up.
rc_boot() {
  local i out=""
  for i in 1 2 3; do
    [ -n "${RC_PIDS[$i]}" ] && out="${out:+$out,}127.0.0.1:${RC_BP[$i]}"
  done
  echo "$out"
}

rc_create() { # TOPIC [CONFIG=VALUE...]
  local t=$1 cfg=()
  shift
  for c in "$@"; do cfg+=(--config "$c"); done
  rc_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(rc_boot)" --create --topic "$t" \
    --replica-assignment 1:2:3 "${cfg[@]}" >/dev/null
}

rc_produce() { # TOPIC N
  rc_tool org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$2" --record-size 100 \
    --throughput -1 --producer-props bootstrap.servers="$(rc_boot)" acks=1 enable.idempotence=false \
    linger.ms=0 batch.size=1024 retries=0 >/dev/null
}

rc_leader() {
  rc_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(rc_boot)" --describe --topic "$1" |
    grep -o 'Leader: [-0-9]*.*Isr: [0-9,]*' | head -n 1
}

rc_wait_isr() { # TOPIC N
  local want=$2 isr
  for _ in $(seq 1 120); do
    isr=$(rc_leader "$1" | sed 's/.*Isr: //')
    [ "$(echo "$isr" | tr ',' '\n' | grep -c .)" -ge "$want" ] && return 0
    sleep 0.5
  done
  echo "replicas: $1 ISR did not reach $want: $(rc_leader "$1")" >&2
  return 1
}

rc_copy() { # N TOPIC DEST
  local i=$1 t=$2 dest=$3 f
  mkdir -p "$dest/$t-0"
  for f in replication-offset-checkpoint recovery-point-offset-checkpoint log-start-offset-checkpoint; do
    [ -f "$DIR/n$i/logs/$f" ] && cp "$DIR/n$i/logs/$f" "$dest/"
  done
  for f in "$DIR/n$i/logs/$t-0"/*; do
    case "$f" in
    *.log | *.snapshot | */leader-epoch-checkpoint | */partition.metadata) cp "$f" "$dest/$t-0/" ;;
    esac
  done
}

rc_elect_unclean() { # TOPIC BROKER: elect BROKER leader of TOPIC-0 (unclean), asking as long as it takes
  local t=$1 b=$2
  for _ in $(seq 1 40); do
    rc_leader "$t" | grep -q "Leader: $b" && return 0
    rc_tool org.apache.kafka.tools.LeaderElectionCommand --bootstrap-server "$(rc_boot)" --election-type unclean \
      --topic "$t" --partition 0 >/dev/null 2>&1 || true
    sleep 1
  done
  rc_leader "$t" | grep -q "Leader: $b" || { echo "replicas: broker $b was not elected: $(rc_leader "$t")" >&2; return 1; }
}
