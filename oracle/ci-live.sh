#!/usr/bin/env bash
# Live oracle check for CI (.ci/run calls it): fetch Kafka, start a real KRaft broker in a temp
# dir, run a short workload (a zstd topic and a transactional topic), stop the broker, then run
# kafka-dump-log on the fresh files with the usual option sets.
# If ./kseg exists and has a `dump` subcommand (its help mentions --files), run `./kseg dump` with the same arguments and
# require identical stdout, stderr and exit code. Otherwise check that the harness worked.
# Last line: "oracle-live: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"

T0=$SECONDS
oracle_fetch
oracle_compile
DUMP_CLASS="$(dump_class)"
echo "oracle-live: Kafka $(kafka_version), kafka-dump-log = $DUMP_CLASS"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kseg-live.XXXXXX")"
cleanup() {
  bash "$ORACLE/broker.sh" stop "$WORK" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

BOOTSTRAP="$(bash "$ORACLE/broker.sh" start "$WORK")"
echo "oracle-live: broker at $BOOTSTRAP"
workload "$BOOTSTRAP" live
workload "$BOOTSTRAP" killed-txn # halts the JVM with a transaction open
bash "$ORACLE/broker.sh" stop "$WORK"

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

# check ARG...: one kafka-dump-log run (and one kseg run when comparing)
check() {
  n=$((n + 1))
  local k="$OUT/$n" rc=0 krc=0
  dumplog "$@" >"$k.kafka.out" 2>"$k.kafka.err" || rc=$?
  if [ $COMPARE = 1 ]; then
    ./kseg dump "$@" >"$k.kseg.out" 2>"$k.kseg.err" || krc=$?
    if [ "$rc" = "$krc" ] && cmp -s "$k.kafka.out" "$k.kseg.out" && cmp -s "$k.kafka.err" "$k.kseg.err"; then
      PASS=$((PASS + 1))
    else
      FAIL=$((FAIL + 1))
      echo "FAIL: kseg dump $* (exit kafka=$rc kseg=$krc)"
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
