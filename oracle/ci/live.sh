#!/usr/bin/env bash
# Live oracle check for CI (.ci/run calls it): fetch Kafka, start a real KRaft broker in a temp
# dir, run a short workload (a zstd topic, a transactional topic, a partition of several
# segments), stop the broker, then run kafka-dump-log on the fresh files with the usual option
# sets, and on long --files lists of copies of the segments to check the order of the end-of-run
# summaries.
# If ./kseg exists and has a `dump` subcommand (its help mentions --files), run `./kseg dump` with the same arguments and
# require identical stdout, stderr and exit code. Otherwise check that the harness worked.
# Last line: "oracle-live: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"

T0=$SECONDS
oracle_fetch
oracle_compile
DUMP_CLASS="$(dump_class)"
echo "oracle-live: Kafka $(kafka_version), kafka-dump-log = $DUMP_CLASS"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kseg-live.XXXXXX")"
cleanup() {
  bash "$INFRA/broker.sh" stop "$WORK" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

BOOTSTRAP="$(bash "$INFRA/broker.sh" start "$WORK")"
echo "oracle-live: broker at $BOOTSTRAP"
workload "$BOOTSTRAP" live
workload "$BOOTSTRAP" segments # one partition of several segments, for the summary-order cases
workload "$BOOTSTRAP" killed-txn # halts the JVM with a transaction open
bash "$INFRA/broker.sh" stop "$WORK"

COMPARE=0
# `./kseg dump -h` exits 0 even without a dump command (cobra prints the root help), so the
# help text must also mention the --files option. (`--help` exits 1, like kafka-dump-log.)
if [ -x ./kseg ] && ./kseg dump -h >"$WORK/kseg-dump-help" 2>&1 && grep -q -- '--files' "$WORK/kseg-dump-help"; then
  COMPARE=1
  echo "oracle-live: comparing ./kseg dump with kafka-dump-log"
else
  echo "oracle-live: no ./kseg with a dump subcommand; checking the harness only"
fi

PASS=0
FAIL=0
OUT="$WORK/out"
mkdir -p "$OUT"
n=0

# check ARG...: one kafka-dump-log run (and one kseg run when comparing), both from
# ${CHECK_DIR:-the repository root}
check() {
  n=$((n + 1))
  local k="$OUT/$n" rc=0 krc=0 dir="${CHECK_DIR:-$REPO}"
  (cd "$dir" && dumplog "$@") >"$k.kafka.out" 2>"$k.kafka.err" || rc=$?
  if [ $COMPARE = 1 ]; then
    (cd "$dir" && "$REPO/kseg" dump "$@") >"$k.kseg.out" 2>"$k.kseg.err" || krc=$?
    if [ "$rc" = "$krc" ] && cmp -s "$k.kafka.out" "$k.kseg.out" && cmp -s "$k.kafka.err" "$k.kseg.err"; then
      PASS=$((PASS + 1))
    else
      FAIL=$((FAIL + 1))
      echo "FAIL: kseg dump $* (in $dir; exit kafka=$rc kseg=$krc)" | cut -c1-400
      diff <(cat "$k.kafka.out") <(cat "$k.kseg.out") | head -n 10 | sed 's/^/  stdout /' || true
      diff <(cat "$k.kafka.err") <(cat "$k.kseg.err") | head -n 10 | sed 's/^/  stderr /' || true
    fi
  else
    if [ "$rc" = 0 ] && [ -s "$k.kafka.out" ] && head -n 1 "$k.kafka.out" | grep -q '^Dumping '; then
      PASS=$((PASS + 1))
    else
      FAIL=$((FAIL + 1))
      echo "FAIL: kafka-dump-log $* (exit $rc)"
      head -n 5 "$k.kafka.err" | sed 's/^/  /'
    fi
  fi
}

LOGS="$WORK/logs"
for dir in "$LOGS"/live-zstd-0 "$LOGS"/live-txn-0 "$LOGS"/__transaction_state-*; do
  [ -d "$dir" ] || continue
  # skip empty internal partitions
  find "$dir" -name '*.log' -size +0 | grep -q . || continue
  files=()
  for f in "$dir"/*.log "$dir"/*.index "$dir"/*.timeindex "$dir"/*.txnindex "$dir"/*.snapshot; do
    [ -f "$f" ] || continue
    files+=("$f")
    case "$f" in
      *.log)
        check --files "$f"
        check --files "$f" --deep-iteration
        check --files "$f" --print-data-log
        check --files "$f" --print-data-log --skip-record-metadata
        case "$dir" in */__transaction_state-*) check --files "$f" --transaction-log-decoder ;; esac
        ;;
      *.index | *.timeindex)
        check --files "$f"
        check --files "$f" --verify-index-only
        check --files "$f" --index-sanity-check
        ;;
      *) check --files "$f" ;;
    esac
  done
  check --files "$(IFS=,; echo "${files[*]}")" --deep-iteration
done

# Summary order. kafka-dump-log keeps its end-of-run summaries (non-consecutive offsets, index
# and time-index findings) in HashMaps keyed by File.getAbsolutePath() and prints them in
# HashMap order, so with several files the order depends on the absolute paths: no committed
# golden can check it. Copies of the multi-segment partition under directories of varying depth
# and name length give every summary map many keys: each segment once as written (its time
# index's first timestamp raised: timestamp mismatch, out of order) and once renamed to a base
# offset 7*i higher in the i-th directory (index mismatches, time-index offsets not found, and
# non-consecutive offsets as the records still start at the old base). Lists interleave the
# directories.
order_cases() {
  local src="$1" root="$WORK/order" i=0 d f base nb
  local dirs=(p-0 segments-1 a-much-longer-topic-name-for-the-hash-12 nested/dir/levels/t-3 x-9
    kafka-logs-2/segments-0 kafka-logs-10/segments-0 UPPER_case.topic-5)
  [ -n "$(ls "$src"/*.log 2>/dev/null)" ] || { echo "FAIL: no segments in $src"; FAIL=$((FAIL + 1)); return; }
  for d in "${dirs[@]}"; do
    i=$((i + 1))
    mkdir -p "$root/$d"
    for f in "$src"/*.log; do
      base="$(basename "$f" .log)"
      nb="$(printf '%020d' $((10#$base + 7 * i)))"
      for ext in log index timeindex; do
        cp "$src/$base.$ext" "$root/$d/$base.$ext"
        cp "$src/$base.$ext" "$root/$d/$nb.$ext"
      done
      # first time-index entry: timestamp 9999999999999 (8 bytes big-endian), offset kept
      printf '\x00\x00\x09\x18\x4e\x72\x9f\xff' | dd of="$root/$d/$base.timeindex" bs=1 conv=notrunc status=none
    done
  done
  # by_ext EXT...: the files with those extensions, segment by segment across the directories
  by_ext() {
    local e
    (cd "$root" && for e in "$@"; do find . -name "*.$e"; done) | sed 's#^\./##' |
      awk -F/ '{print $NF "\t" $0}' | sort | cut -f2 | sed "s#^#$root/#" | paste -sd, -
  }
  check --files "$(by_ext log)" --deep-iteration
  check --files "$(by_ext index)" --verify-index-only
  check --files "$(by_ext timeindex)" --verify-index-only
  check --files "$(by_ext timeindex index log)"
  check --files "$(by_ext log index timeindex)" --deep-iteration
  # a dozen files: the second segment and its renamed copy, log and index, in three partitions
  local b2 files=()
  b2="$(basename "$(ls "$src"/*.log | sed -n 2p)" .log)"
  for i in 1 3 5; do
    d="${dirs[$((i - 1))]}"
    for base in "$b2" "$(printf '%020d' $((10#$b2 + 7 * i)))"; do
      files+=("$root/$d/$base.log" "$root/$d/$base.index")
    done
  done
  check --files "$(IFS=,; echo "${files[*]}")" --deep-iteration
  # relative paths, with . and .. kept by getAbsolutePath, from a symlinked directory:
  # user.dir is the physical directory, not $PWD
  ln -s "$root" "$WORK/order-link"
  local rel
  rel="$(cd "$root" && find . -name '*.log' -o -name '*.timeindex' | sort | sed 's#^\./\(p-0\|x-9\)/#./\1/../\1/#' | paste -sd, -)"
  CHECK_DIR="$WORK/order-link" check --files "$rel" --deep-iteration
  rel="$(cd "$root/nested/dir" && find ../../x-9 ../../p-0 levels -name '*.index' -o -name '*.log' | sort | paste -sd, -)"
  CHECK_DIR="$WORK/order-link/nested/dir" check --files "$rel"
}
order_cases "$LOGS/segments-0"

# The harness itself must have produced what the workload promises.
harness_ok() {
  grep -q 'compresscodec: zstd' "$OUT"/*.kafka.out &&
    grep -q 'endTxnMarker: COMMIT' "$OUT"/*.kafka.out &&
    grep -q 'endTxnMarker: ABORT' "$OUT"/*.kafka.out &&
    grep -q '^version: 0 producerId: ' "$OUT"/*.kafka.out
}
n=$((n + 1))
if harness_ok; then PASS=$((PASS + 1)); else
  FAIL=$((FAIL + 1))
  echo "FAIL: live dumps lack a zstd batch, COMMIT/ABORT markers or a .txnindex entry"
fi

# kseg audit on what the real broker wrote: the transactional topic is clean, and the producer
# killed mid-transaction leaves an unterminated transaction that audit must name.
if [ $COMPARE = 1 ] && ./kseg audit -h >/dev/null 2>&1; then
  n=$((n + 1)); rc=0
  ./kseg audit "$LOGS/live-txn-0" >"$OUT/audit-txn.txt" 2>&1 || rc=$?
  if [ $rc = 0 ]; then PASS=$((PASS + 1)); else
    FAIL=$((FAIL + 1)); echo "FAIL: kseg audit live-txn-0 exit $rc"; sed 's/^/  /' "$OUT/audit-txn.txt" | head -20
  fi
  n=$((n + 1)); rc=0
  ./kseg audit --json "$LOGS/live-killed-0" >"$OUT/audit-killed.json" 2>&1 || rc=$?
  if [ $rc = 1 ] && grep -q '"code":"unterminated-transaction"' "$OUT/audit-killed.json"; then PASS=$((PASS + 1)); else
    FAIL=$((FAIL + 1)); echo "FAIL: kseg audit live-killed-0 (exit $rc) did not report the open transaction"; head -20 "$OUT/audit-killed.json" | sed 's/^/  /'
  fi
fi

echo "oracle-live: done in $((SECONDS - T0)) s"
echo "oracle-live: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
