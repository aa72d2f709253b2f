#!/usr/bin/env bash
# Start or stop a single-node KRaft Kafka (broker+controller) on 127.0.0.1.
#   oracle/infra/broker.sh start DIR   format DIR/logs, start, wait until ready; prints the bootstrap address
#   oracle/infra/broker.sh stop DIR    SIGTERM and wait for a clean shutdown (indexes trimmed, snapshots written)
# DIR/server.properties, DIR/broker.log (log4j), DIR/broker.out (stdout/stderr), DIR/broker.pid,
# DIR/bootstrap (host:port) are written. BROKER_EXTRA_PROPS (lines) is appended to server.properties;
# BROKER_EXTRA_CP is put before the jars on the broker's classpath. Jars come from oracle/lib (see oracle/infra/common.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
DIR="$(cd "$2" && pwd)"

# A fixed cluster id keeps meta.properties comparable between regenerations.
CLUSTER_ID=a3NlZy1vcmFjbGUtMDAwMQ

start() {
  oracle_fetch
  if [ -f "$DIR/broker.pid" ] && kill -0 "$(cat "$DIR/broker.pid")" 2>/dev/null; then
    echo "broker already running in $DIR" >&2
    exit 1
  fi
  local bport cport
  bport=$(free_port)
  cport=$(free_port)
  while [ "$cport" = "$bport" ]; do cport=$(free_port); done
  mkdir -p "$DIR/logs"
  cat >"$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$bport,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$bport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DIR/logs
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
# Workloads write records with fixed timestamps months in the past; the default 7-day time
# retention would delete them within a minute of the start.
log.retention.ms=-1
# On a loaded machine the controller's own event loop can run late by seconds; with the default
# 9 s session it then fences its own broker, every partition loses its leader for a while, and
# producers see NOT_LEADER_OR_FOLLOWER (retries, changed batches, bumped leader epochs).
broker.session.timeout.ms=120000
PROPS
  # extra broker settings for one harness (oracle/regen/tiered.sh: tiered storage), appended last
  if [ -n "${BROKER_EXTRA_PROPS:-}" ]; then
    printf '%s\n' "$BROKER_EXTRA_PROPS" >>"$DIR/server.properties"
  fi
  "$JAVA" -cp "$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
    kafka.tools.StorageTool format --cluster-id "$CLUSTER_ID" --config "$DIR/server.properties" \
    >"$DIR/format.out" 2>&1 || { cat "$DIR/format.out" >&2; exit 1; }
  nohup "$JAVA" -Xmx512m -Xms256m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dkafka.logs.dir="$DIR" -Dlog4j2.configurationFile="$INFRA/log4j2-broker.properties" \
    -cp "${BROKER_EXTRA_CP:+$BROKER_EXTRA_CP:}$ORACLE/lib/*" kafka.Kafka "$DIR/server.properties" >"$DIR/broker.out" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$DIR/broker.pid"
  echo "127.0.0.1:$bport" >"$DIR/bootstrap"
  for _ in $(seq 1 120); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "broker exited during startup; see $DIR/broker.log and $DIR/broker.out" >&2
      tail -n 30 "$DIR/broker.out" "$DIR/broker.log" >&2 2>/dev/null || true
      exit 1
    fi
    if grep -q "Kafka Server started" "$DIR/broker.log" 2>/dev/null; then
      echo "127.0.0.1:$bport"
      return 0
    fi
    sleep 0.5
  done
  echo "broker not ready after 60 s; see $DIR/broker.log" >&2
  kill -TERM "$pid" 2>/dev/null || true
  exit 1
}

stop() {
  [ -f "$DIR/broker.pid" ] || { echo "no broker.pid in $DIR" >&2; return 0; }
  local pid
  pid=$(cat "$DIR/broker.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 240); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "broker $pid did not stop in 60 s; killing it (files may not be clean)" >&2
      kill -KILL "$pid" 2>/dev/null || true
      rm -f "$DIR/broker.pid"
      return 1
    fi
  fi
  rm -f "$DIR/broker.pid"
  if [ ! -f "$DIR/logs/.kafka_cleanshutdown" ]; then
    echo "broker did not leave $DIR/logs/.kafka_cleanshutdown: shutdown was not clean" >&2
    return 1
  fi
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
