#!/usr/bin/env bash
# Regenerate testdata/whatif/: the what-if validation data. Groups of real-producer runs (Kafka
# 4.4.0) where the arrival schedule is fixed and only the producer settings change, each
# (group, setting) run RUNS times on the machine as it is ("calm") and RUNS times with the machine
# loaded by two busy processes this script starts and stops ("loaded").
#
#   oracle/regen/whatif-data.sh [--runs N] [--logs K] [--only REGEX] [--out DIR] [--keep DIR] [--set long|heldout|heldout2|heldout3]
#   oracle/regen/whatif-data.sh --provenance [--out DIR]   only rewrite OUT/PROVENANCE.md
#
#   --runs N      runs per (group, setting, condition) (default 8)
#   --logs K      keep the .log files of the K middle runs of each (default 2: runs 3 and 4 of 8)
#   --only REGEX  only the groups whose name matches (OUT then holds only their runs and logs:
#                 give another --out for a partial run)
#   --out DIR     where the data goes (default testdata/whatif)
#   --set long    the long groups (5-6 s runs, oracle/whatif/groups.go; give --out
#                 testdata/whatif-long)
#   --set heldout the held-out long groups (give --out testdata/whatif-heldout)
#   --set heldout2 the second held-out set (give --out testdata/whatif-heldout2)
#   --set heldout3 the third held-out set (give --out testdata/whatif-heldout3)
#   --keep DIR    keep the work tree (broker logs, traces) in DIR
#   --provenance  (re)write OUT/PROVENANCE.md from OUT's data and this machine, nothing else
#
# The groups are defined in oracle/whatif/groups.go; `go run ./oracle/whatif plan` writes
# OUT/groups.json, the value file and each group's arrival schedule (generated from its seed,
# the same for every setting and run of the group). One broker (oracle/infra/broker.sh) serves
# every run; each run gets a fresh topic and a fresh JVM (oracle/java/src/ProducerTrace.java),
# sending at the schedule with producer-clock timestamps. Runs go round-robin: run i of every
# (group, setting) calm, then run i of every one loaded, then run i+1, so that the machine's
# slow minutes spread over settings. /proc/loadavg and /proc/pressure/cpu are recorded before and
# after each run, in both conditions (the machine may be shared: "calm" is not "idle").
# After a clean broker shutdown, `kseg count --json` (built from this tree) reads every partition;
# `go run ./oracle/whatif assemble` writes OUT/runs.ndjson and OUT/logs/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"

RUNS=8 LOGS=2 ONLY="" OUT="" KEEP="" PROV=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --logs) LOGS=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --out) OUT=$2; shift ;;
    --keep) KEEP=$2; shift ;;
    --set) export KSEG_WHATIF_SET=$2; shift ;;
    --provenance) PROV=1 ;;
    *) sed -n '7,20p' "$0" >&2; exit 2 ;;
  esac
  shift
done
cd "$REPO"
OUT=${OUT:-$REPO/testdata/whatif}
REGEN_ARGS=""
if [ -n "${KSEG_WHATIF_SET:-}" ]; then REGEN_ARGS=" --set $KSEG_WHATIF_SET --out testdata/$(basename "$OUT")"; fi
T0=$SECONDS

# provenance MINUTES: write OUT/PROVENANCE.md (versions, machine, load, the runs' summary).
provenance() {
  local cpu
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  {
    echo "# testdata/$(basename "$OUT"): provenance"
    echo
    echo "Made by \`bash oracle/regen/whatif-data.sh$REGEN_ARGS\` (see docs/calibration.md, \"What-if validation data\")."
    echo
    echo "- Kafka $(kafka_version) (broker and Java producer, from Maven Central), $("$JAVA" -version 2>&1 | head -n 1)"
    echo "- machine: $(nproc) CPUs ($cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr)"
    echo "- made on $(date -u +%Y-%m-%d) in about $1 minutes of wall time (all runs serial, one broker)"
    echo "- \"calm\": no load of the script's own; the machine was shared with other work, so look at the"
    echo "  load columns below. \"loaded\": two busy processes (\`while :; do :; done\`) started by the"
    echo "  script for the loaded pass and stopped after it."
    echo "- loadavg is /proc/loadavg's 1-minute average (it lags: a loaded pass raises the first calm"
    echo "  runs after it); CPU pressure is /proc/pressure/cpu \"some avg10\", the share of the last 10 s"
    echo "  in which a task waited for a CPU."
    echo
    echo "Regenerate: \`bash oracle/regen/whatif-data.sh$REGEN_ARGS\` (writes testdata/$(basename "$OUT")/; no two runs give the"
    echo "same batches, so regenerate the whole directory and commit it together)."
    echo
    echo "## The runs"
    echo
    echo "Batches are the topic's total; records/batch is the group's records over that median."
    echo
    go run ./oracle/whatif summary "$OUT"
  } >"$OUT/PROVENANCE.md"
}
if [ -n "$PROV" ]; then
  provenance "${WHATIF_MINUTES:-?}"
  exit 0
fi

WORK=$(mktemp -d /tmp/kseg-whatif.XXXXXX)
LOADPIDS=()
unload() {
  local p
  for p in "${LOADPIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${LOADPIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  LOADPIDS=()
}
load() {
  # Two busy processes, one per core of this 2-core machine.
  local i
  for i in 1 2; do
    (while :; do :; done) &
    LOADPIDS+=($!)
  done
}
cleanup() {
  unload
  bash "$INFRA/broker.sh" stop "$WORK/broker" >/dev/null 2>&1 || true
  if [ -n "$KEEP" ]; then rm -rf "$KEEP"; mv "$WORK" "$KEEP"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

go build -o "$WORK/kseg" .
go build -o "$WORK/whatif" ./oracle/whatif
mkdir -p "$OUT" "$WORK/runs"
rm -rf "$OUT/schedules"
g=() s=() parts=() keys=() sched=() vals=() props=()
while IFS=$'\t' read -r a b c d e f h; do
  if [ -n "$ONLY" ] && ! [[ "$a" =~ $ONLY ]]; then continue; fi
  g+=("$a") s+=("$b") parts+=("$c") keys+=("$d") sched+=("$e") vals+=("$f") props+=("$h")
done < <("$WORK/whatif" plan "$OUT" "$WORK")
[ ${#g[@]} -gt 0 ] || { echo "no group matches --only $ONLY" >&2; exit 2; }

oracle_fetch
oracle_compile
BOOT=$(bash "$INFRA/broker.sh" start "$WORK/broker")
topics=(whatif-warmup:1)
for ((i = 0; i < RUNS; i++)); do
  for cond in calm loaded; do
    for k in "${!g[@]}"; do topics+=("w-${g[$k]}-${s[$k]}-$cond-r$i:${parts[$k]}"); done
  done
done
"$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" \
  ProducerEnvelope create "$BOOT" "${topics[@]}"
echo "whatif: ${#g[@]} settings x 2 conditions x $RUNS runs, topics ready after $((SECONDS - T0)) s" >&2
# A class-data-sharing archive of the classes a producer run loads (one run on the warm-up topic
# writes it): each run's fresh JVM then starts in about half the CPU time, which on a loaded
# machine is most of a run's wall time. It changes class loading only, not the producer.
# (CDS wants jars only on the class path: the compiled classes go into one.)
jar cf "$WORK/trace.jar" -C "$ORACLE/classes" .
head -n 200 "${sched[0]}" >"$WORK/warmup.schedule"
"$JAVA" -XX:ArchiveClassesAtExit="$WORK/trace.jsa" -Xmx256m -cp "$WORK/trace.jar:$ORACLE/lib/*" \
  -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" \
  ProducerTrace "$BOOT" whatif-warmup "$WORK/warmup.schedule" "${vals[0]}" 0 "${props[0]}" "$WORK/warmup.trace.json" >"$WORK/warmup.out" 2>&1 ||
  { cat "$WORK/warmup.out" >&2; exit 1; }
CDS=(-XX:SharedArchiveFile="$WORK/trace.jsa")

loadline() { cat /proc/loadavg; grep '^some' /proc/pressure/cpu 2>/dev/null || echo "some avg10=-1"; }
: >"$WORK/index.tsv"
for ((i = 0; i < RUNS; i++)); do
  for cond in calm loaded; do
    if [ "$cond" = loaded ]; then load; sleep 2; fi
    for k in "${!g[@]}"; do
      topic="w-${g[$k]}-${s[$k]}-$cond-r$i"
      t=$SECONDS
      loadline >"$WORK/runs/$topic.load"
      "$JAVA" "${CDS[@]}" -Xmx256m -cp "$WORK/trace.jar:$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" \
        ProducerTrace "$BOOT" "$topic" "${sched[$k]}" "${vals[$k]}" "${keys[$k]}" "${props[$k]}" "$WORK/runs/$topic.trace.json" \
        >"$WORK/runs/$topic.out" 2>&1 || { cat "$WORK/runs/$topic.out" >&2; exit 1; }
      loadline >>"$WORK/runs/$topic.load"
      printf '%s\t%s\t%s\t%d\t%s\n' "${g[$k]}" "${s[$k]}" "$cond" "$i" "$topic" >>"$WORK/index.tsv"
      echo "whatif: $topic ($((SECONDS - t)) s; load before/after: $(awk 'NR==1||NR==3 {printf "%s ", $1}' "$WORK/runs/$topic.load"))" >&2
    done
    if [ "$cond" = loaded ]; then unload; fi
  done
done
bash "$INFRA/broker.sh" stop "$WORK/broker"
"$WORK/kseg" count --json "$WORK/broker/logs" | grep '"topic":"w-' >"$WORK/count.ndjson"
"$WORK/whatif" assemble "$WORK" "$OUT" "$LOGS"
provenance $(((SECONDS - T0 + 30) / 60))
echo "whatif: wrote $OUT in $((SECONDS - T0)) s ($(du -sh "$OUT" | cut -f1))" >&2
