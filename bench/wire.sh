#!/bin/bash
# kseg count over the wire against full reads of the same topic by kcat and kafka-console-consumer:
# a throwaway KRaft broker on 127.0.0.1 (oracle/infra/broker.sh), one topic of RECORDS (10 million)
# records of 100 bytes written by Kafka's ProducerPerformance, then one timed run of each reader
# with GNU time (elapsed seconds, peak RSS).
#
#   bench/wire.sh                       # needs kcat (Debian package kcat), JDK 17+, Maven for the jars
#   RECORDS=1000000 bench/wire.sh       # a smaller topic
#   KEEP=1 bench/wire.sh                # keep the broker's directory (printed)
#   KSEG_BEFORE=/path/to/old/kseg bench/wire.sh  # also an older binary, alternating with this one
#   ROUNDS=3 bench/wire.sh              # kseg rows, alternated, this many times (1)
#   QUICK=1 bench/wire.sh               # kseg rows only (no kcat, no console consumer)
#
# Each row also prints CPU seconds (user + system) and CPU seconds per GB of log: the
# figure beside "kseg count (files)", the same log read from the broker's directory,
# is what the wire path costs over reading files (target: within 3x). Two rows bound it
# from below (bench/driver wire, 4 MiB fetches like kseg's): "franz-go alone" sends the
# same Fetch requests with franz-go and does nothing with the responses but find the
# next offset (the floor of any reader on franz-go, which allocates every response
# anew), "socket alone" reads them on one plain connection into one reused buffer (the
# kernel's socket copy and TCP work). The last lines are the median of each row over
# the rounds and its ratio to the files' median.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$root/oracle/infra/common.sh"
oracle_fetch
N=${RECORDS:-10000000}
[ -n "${QUICK:-}" ] || command -v kcat >/dev/null || { echo "kcat not found: apt-get install kcat" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time not found: apt-get install time" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kseg-wire-bench.XXXXXX")
cleanup() {
  bash "$INFRA/broker.sh" stop "$WORK" >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
(cd "$root" && go build -o "$WORK/kseg" . && go build -o "$WORK/driver" ./bench/driver)
B=$(bash "$INFRA/broker.sh" start "$WORK")
kafka_tool() { "$JAVA" -Xmx512M -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" -cp "$ORACLE/lib/*" "$@"; }
kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" --create --topic bench \
  --partitions 1 --replication-factor 1 >/dev/null
echo "producing $N records of 100 bytes to $B ..."
kafka_tool org.apache.kafka.tools.ProducerPerformance --topic bench --num-records "$N" --record-size 100 \
  --throughput -1 --producer-props bootstrap.servers="$B" acks=1 linger.ms=20 batch.size=131072 | tail -n 1
log_bytes=$(du -cb "$WORK"/logs/bench-0/*.log | tail -n 1 | cut -f1)
echo "topic bench: $log_bytes bytes of .log"

measure() { # LABEL CMD...: one run; prints seconds and peak RSS
  local label=$1 name
  name=$(echo "$1" | tr -c 'a-zA-Z0-9\n' '_')
  shift
  /usr/bin/time -f "%e %M %U %S" -o "$WORK/time.$name" "$@" >"$WORK/out.$name" 2>"$WORK/err.$name" || {
    echo "$name failed:" >&2; tail -n 5 "$WORK/err.$name" >&2; return 1; }
  read -r secs kib usr sys <"$WORK/time.$name"
  cpu=$(echo "$usr + $sys" | bc -l)
  printf "%-36s %8.2f s %8.1f MiB peak RSS %8.1f MB/s %7.2f CPU-s %6.2f CPU-s/GB\n" "$label" "$secs" "$(echo "$kib / 1024" | bc -l)" \
    "$(echo "$log_bytes / 1000000 / $secs" | bc -l)" "$cpu" "$(echo "$cpu * 1000000000 / $log_bytes" | bc -l)"
  echo "$label	$cpu" >>"$WORK/cpu"
}
summary() { # the median CPU seconds of each row, and its ratio to the files' median
  echo "medians over ${ROUNDS:-1} round(s), $(uptime | sed 's/.*load/load/'):"
  awk -F'\t' '{ n[$1]++; v[$1, n[$1]] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
    function med(l,   i, j, t, m, a) { m = n[l]; for (i = 1; i <= m; i++) a[i] = v[l, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    END { f = med("kseg count (files)")
      for (i = 1; i <= k; i++) printf "%-36s %7.3f CPU-s  %5.2fx the files\n", order[i], med(order[i]), (f > 0 ? med(order[i]) / f : 0) }' "$WORK/cpu"
}
before=${KSEG_BEFORE:-}
for _ in $(seq "${ROUNDS:-1}"); do
  measure "kseg count kafka://" "$WORK/kseg" count "kafka://$B/bench"
  [ -n "$before" ] && measure "  before: kseg count kafka://" "$before" count "kafka://$B/bench"
  measure "kseg count --fetch-bytes 4M" "$WORK/kseg" count --fetch-bytes 4194304 "kafka://$B/bench"
  [ -n "$before" ] && measure "  before: --fetch-bytes 4M" "$before" count --fetch-bytes 4194304 "kafka://$B/bench"
  measure "kseg count (files)" "$WORK/kseg" count "$WORK/logs/bench-0"
  measure "bound: franz-go alone" "$WORK/driver" wire "$B" bench 4194304 1 kgo
  measure "bound: socket alone" "$WORK/driver" wire "$B" bench 4194304 1 socket
done
summary
[ -n "${QUICK:-}" ] && exit 0
measure "kcat -C -e -o beginning" kcat -C -b "$B" -t bench -o beginning -e -q
measure "kafka-console-consumer" "$JAVA" -Xmx512M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
  -XX:InitiatingHeapOccupancyPercent=35 -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" -cp "$ORACLE/lib/*" \
  org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$B" --topic bench --from-beginning \
  --max-messages "$N"
echo "kseg: $(cat "$WORK"/out.kseg_count_kafka___)"
echo "kcat lines: $(wc -l <"$WORK"/out.kcat__C__e__o_beginning), console-consumer lines: $(wc -l <"$WORK"/out.kafka_console_consumer)"
