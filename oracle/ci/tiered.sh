#!/usr/bin/env bash
# Tiered-storage step for CI (.ci/run calls it):
#   1. install the S3 API server the remote tests use (moto_server, from PyPI) when missing,
#      and run the remote package's tests requiring it (S3 layouts: plain, zstd, AES-GCM);
#   2. live: a broker with LocalTieredStorage and a share group (oracle/infra/tiered.sh's
#      workloads) in a temp dir; then on the fresh files kafka-dump-log and ./kseg dump
#      must print the same bytes with --remote-log-metadata-decoder and
#      --share-group-state-decoder, and kseg count over lts:// (the remote segments, checked
#      against __remote_log_metadata, then the local ones) must equal kseg count on a copy of
#      every segment on local disk.
# Last line: "oracle-tiered: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"

if ! command -v moto_server >/dev/null 2>&1; then
  echo "oracle-tiered: installing moto[server] (S3 API server for the remote tests)"
  python3 -m pip install -q 'moto[server]'
fi
KSEG_REQUIRE_S3=1 go test -count=1 ./internal/remote/

[ -x ./kseg ] || go build -o kseg .
source "$INFRA/tiered.sh" # tiered_broker_start, tiered_workload
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kseg-tiered-live.XXXXXX")"
cleanup() {
  bash "$INFRA/broker.sh" stop "$WORK" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
BOOTSTRAP="$(tiered_broker_start "$WORK")"
echo "oracle-tiered: broker with LocalTieredStorage at $BOOTSTRAP"
tiered_workload "$BOOTSTRAP" "$WORK/logs" tiered share
bash "$INFRA/broker.sh" stop "$WORK"
DUMP_CLASS="$(dump_class)"

PASS=0
FAIL=0
n=0
check() { # ARG...: kafka-dump-log and ./kseg dump, same stdout, stderr and exit code
  n=$((n + 1))
  local k="$WORK/out.$n" rc=0 krc=0
  dumplog "$@" >"$k.kafka.out" 2>"$k.kafka.err" || rc=$?
  ./kseg dump "$@" >"$k.kseg.out" 2>"$k.kseg.err" || krc=$?
  if [ "$rc" = "$krc" ] && cmp -s "$k.kafka.out" "$k.kseg.out" && cmp -s "$k.kafka.err" "$k.kseg.err"; then
    PASS=$((PASS + 1))
  else
    FAIL=$((FAIL + 1))
    echo "oracle-tiered: DIFFERS: kafka-dump-log $* (exit $rc vs $krc)"
    diff "$k.kafka.out" "$k.kseg.out" | head -5 || true
    diff "$k.kafka.err" "$k.kseg.err" | head -5 || true
  fi
}
for f in "$WORK"/logs/__remote_log_metadata-*/*.log; do
  [ -s "$f" ] || continue
  check --files "$f" --remote-log-metadata-decoder
  check --files "$f" --remote-log-metadata-decoder --skip-record-metadata
done
for f in "$WORK"/logs/__share_group_state-*/*.log; do
  [ -s "$f" ] || continue
  check --files "$f" --share-group-state-decoder
  check --files "$f" --share-group-state-decoder --skip-record-metadata
done
# one history across remote and local storage
copy="$WORK/copy/tiered-0"
mkdir -p "$copy"
for f in "$WORK"/remote/kafka-tiered-storage/tiered-0-*/*.log; do
  b="$(basename "$f")"
  cp "$f" "$copy/$(printf '%020d' "$((10#${b%%-*}))").log"
done
cp "$WORK"/logs/tiered-0/*.log "$copy/"
./kseg count "$copy" >"$WORK/count.local"
./kseg count "lts://$WORK/remote?local=$WORK/logs/tiered-0&metadata=$WORK/logs" >"$WORK/count.lts"
n=$((n + 1))
if [ "$(ls "$WORK"/remote/kafka-tiered-storage/tiered-0-*/*.log | wc -l)" -ge 1 ] && cmp -s "$WORK/count.local" "$WORK/count.lts"; then
  PASS=$((PASS + 1))
else
  FAIL=$((FAIL + 1))
  echo "oracle-tiered: kseg count over lts:// differs from a local copy:"
  cat "$WORK/count.local" "$WORK/count.lts"
fi
echo "oracle-tiered: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
