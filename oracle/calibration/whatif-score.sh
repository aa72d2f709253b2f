#!/usr/bin/env bash
# Score `kseg whatif` on the what-if validation data (testdata/whatif/, made by
# oracle/regen/whatif-data.sh with the real Kafka 4.4.0 producer). No Java needed.
#
#   oracle/calibration/whatif-score.sh [--data DIR] [--only REGEX] [--runs N] [--keep DIR]
#
# For every group, condition (calm, loaded), recorded log of a run at setting A, and every other
# setting B of the group: extract the log, run
#   kseg whatif PARTITION_DIRS... --was KEY=VALUE... --set KEY=VALUE... --runs N --json
# (--was: all of A's properties, --set: all of B's), keep its NDJSON, then print by group and
# condition: how many medians are within max(1 batch, 5%, half the real median's 95% bootstrap
# interval) of the real median at B, how many real runs at B fall inside the predicted p5–p95,
# and how many replays under A reproduce their log's batch count within max(1 batch, 5%).
# Unkeyed groups over several partitions are scored by topic total, the others per partition.
#
#   --data DIR    the data (default testdata/whatif)
#   --only REGEX  only the groups whose name matches (e.g. held-out groups)
#   --runs N      kseg whatif --runs (default 200)
#   --keep DIR    keep the predictions (one file per invocation) in DIR
# KSEG=PATH in the environment scores that kseg binary instead of one built from this tree; the
# first line says which kseg was scored (the path, its hash and build time, or the tree's commit).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA=$REPO/testdata/whatif ONLY="" RUNS=200 KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --data) DATA=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --keep) KEEP=$2; shift ;;
    *) sed -n '5,6p' "$0" >&2; exit 2 ;;
  esac
  shift
done
cd "$REPO"
WORK=$(mktemp -d /tmp/kseg-whatif-score.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Say which kseg is scored: a stale binary passed as KSEG once scored a data set with an older
# model than the one the figures were written down for.
if [ -n "${KSEG:-}" ]; then
  cp "$KSEG" "$WORK/kseg"
  echo "whatif-score: kseg is $KSEG ($(sha256sum "$KSEG" | cut -c1-12), built $(date -u -r "$KSEG" '+%Y-%m-%d %H:%M UTC'))" >&2
else
  go build -o "$WORK/kseg" .
  echo "whatif-score: kseg built from this tree at $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')" >&2
fi
go build -o "$WORK/whatif" ./oracle/whatif
mkdir -p "$WORK/preds"
T0=$SECONDS n=0 failed=0
while IFS=$'\t' read -r group cond a b run; do
  if [ -n "$ONLY" ] && ! [[ "$group" =~ $ONLY ]]; then continue; fi
  logs="$WORK/logs/$group/$cond/$a/run-$run"
  if [ ! -d "$logs" ]; then
    mapfile -t dirs < <("$WORK/whatif" extract "$DATA" "$group" "$cond" "$a" "$run" "$logs")
  else
    mapfile -t dirs < <(find "$logs" -mindepth 1 -maxdepth 1 -type d | sort -V)
  fi
  args=()
  while read -r kv; do args+=(--was "$kv"); done < <("$WORK/whatif" args "$DATA" "$group" "$a")
  while read -r kv; do args+=(--set "$kv"); done < <("$WORK/whatif" args "$DATA" "$group" "$b")
  out="$WORK/preds/${group}__${cond}__${a}__${b}__${run}.ndjson"
  n=$((n + 1))
  if ! "$WORK/kseg" whatif "${dirs[@]}" "${args[@]}" --runs "$RUNS" --json >"$out" 2>"$WORK/err"; then
    failed=$((failed + 1))
    echo "whatif-score: $group $cond $a -> $b run $run: kseg whatif failed: $(head -c 300 "$WORK/err")" >&2
    rm -f "$out"
  fi
done < <("$WORK/whatif" pairs "$DATA")
[ -z "$KEEP" ] || { rm -rf "$KEEP"; cp -r "$WORK/preds" "$KEEP"; }
echo "whatif-score: $n invocations ($failed failed) in $((SECONDS - T0)) s" >&2
"$WORK/whatif" score "$DATA" "$WORK/preds"
[ "$failed" -eq 0 ]
