#!/usr/bin/env bash
# Regenerate testdata/producer-envelope/: what the real Java producer (Kafka 4.4.0) does, run after
# run, on the workloads where its batching depends on timing (compressed, keyed, sticky, slow
# senders, exact fits, compressibility changes). The data behind `kseg produce --runs` envelopes.
#
#   oracle/regen/producer-envelope.sh [--runs N] [--only REGEX] [--out DIR] [--keep DIR] [--reuse DIR]
#                                     [--max-pressure P]
#
# The cases are listed by `go run ./oracle/envelope cases` (oracle/envelope/cases.go). One broker
# (oracle/infra/broker.sh) serves every run; each run gets a fresh topic (<case>-r<i>) and a fresh JVM
# (oracle/java/src/ProducerEnvelope.java: a cold producer, timed per send()); runs go round-robin over
# the cases, so that a slow minute of the machine spreads over cases rather than spoiling one.
# After a clean broker shutdown, records per batch and batch sizes are read from the .log files
# with kseg's reader and written with the timings to OUT/<case>.json, and every compressed batch
# is re-compressed with kseg's encoder into OUT/codec-fidelity.json.
#
#   --runs N      runs per case (default 5)
#   --only REGEX  only the cases whose name matches (codec-fidelity.json is then not rewritten)
#   --out DIR     where the JSON goes (default testdata/producer-envelope)
#   --keep DIR    keep the work tree (broker logs, per-record times) in DIR
#   --reuse DIR   assemble from such a kept tree without running Java again; DIR:DIR2 pools
#                 the runs of several kept trees (each with --runs N runs), in that order
#   --max-pressure P  before each run, wait (up to 10 s) until less than P% of the last 10 s had a
#                 task waiting for a CPU (/proc/pressure/cpu "some avg10"; default 50): runs on
#                 a machine shared with other work then start in its calmer moments
# The value files (testdata/producer-envelope/values/) are regenerated first; `go test ./oracle/envelope/` checks that the
# committed ones are what the generator writes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"

RUNS=5 ONLY="" OUT="" KEEP="" REUSE="" MAXPRESSURE=50
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --out) OUT=$2; shift ;;
    --keep) KEEP=$2; shift ;;
    --reuse) REUSE=$2; shift ;;
    --max-pressure) MAXPRESSURE=$2; shift ;;
    *) sed -n '6,8p' "$0" >&2; exit 2 ;;
  esac
  shift
done
cd "$REPO"
OUT=${OUT:-$REPO/testdata/producer-envelope}
T0=$SECONDS

BIN=$(mktemp -d /tmp/kseg-envelope-bin.XXXXXX)
if [ -n "$REUSE" ]; then
  WORK=$REUSE
  cleanup() { rm -rf "$BIN"; }
else
  WORK=$(mktemp -d /tmp/kseg-envelope.XXXXXX)
  cleanup() {
    bash "$INFRA/broker.sh" stop "$WORK/broker" >/dev/null 2>&1 || true
    if [ -n "$KEEP" ]; then rm -rf "$KEEP"; mv "$WORK" "$KEEP"; else rm -rf "$WORK"; fi
    rm -rf "$BIN"
  }
fi
trap cleanup EXIT

go build -o "$BIN/envelope" ./oracle/envelope
"$BIN/envelope" values testdata/producer-envelope/values

names=() parts=() specs=()
while IFS=$'\t' read -r name p spec; do
  if [ -n "$ONLY" ] && ! [[ "$name" =~ $ONLY ]]; then continue; fi
  names+=("$name") parts+=("$p") specs+=("$spec")
done < <("$BIN/envelope" cases)
[ ${#names[@]} -gt 0 ] || { echo "no case matches --only $ONLY" >&2; exit 2; }

if [ -z "$REUSE" ]; then
  mkdir -p "$WORK/runs"
  oracle_fetch
  oracle_compile
  BOOT=$(bash "$INFRA/broker.sh" start "$WORK/broker")
  jrun() {
    "$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
      -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" ProducerEnvelope "$@"
  }
  topics=(envelope-warmup:1)
  for ((i = 0; i < RUNS; i++)); do
    for k in "${!names[@]}"; do topics+=("${names[$k]}-r$i:${parts[$k]}"); done
  done
  jrun create "$BOOT" "${topics[@]}"
  echo "envelope: ${#names[@]} cases x $RUNS runs, topics ready after $((SECONDS - T0)) s" >&2
  for ((i = 0; i < RUNS; i++)); do
    for k in "${!names[@]}"; do
      topic="${names[$k]}-r$i"
      if [ -r /proc/pressure/cpu ]; then
        for _ in $(seq 1 10); do
          awk -v m="$MAXPRESSURE" '/^some/ {split($2, a, "="); exit !(a[2] < m)}' /proc/pressure/cpu && break
          sleep 1
        done
      fi
      { cat /proc/loadavg; grep '^some' /proc/pressure/cpu 2>/dev/null || true; } >"$WORK/runs/$topic.load"
      t=$SECONDS
      jrun run "$BOOT" "$WORK/runs/$topic" "${specs[$k]/TOPIC/$topic}" >"$WORK/runs/$topic.out" 2>&1 ||
        { cat "$WORK/runs/$topic.out" >&2; exit 1; }
      echo "envelope: $topic ($((SECONDS - t)) s; at its start: $(tr '\n' ' ' <"$WORK/runs/$topic.load"))" >&2
    done
  done
  bash "$INFRA/broker.sh" stop "$WORK/broker"
fi

ONLYARG=()
[ -z "$ONLY" ] || ONLYARG=("$ONLY")
"$BIN/envelope" assemble "$WORK" "$OUT" "$(kafka_version)" "$RUNS" "${ONLYARG[@]}"
if [ -z "$ONLY" ]; then
  "$BIN/envelope" codec "$WORK" "$OUT" "$(kafka_version)" "$RUNS"
fi
echo "envelope: wrote $OUT in $((SECONDS - T0)) s" >&2
