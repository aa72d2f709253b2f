#!/usr/bin/env bash
# Tiered-storage and share-group fixtures from a real broker, and their kafka-dump-log goldens.
#   oracle/regen/tiered.sh          run the broker with LocalTieredStorage (oracle/infra/tiered.sh),
#                                   the Tiered workloads (oracle/java/src/Tiered.java), copy the
#                                   fixtures into testdata/segments/tiered/, then the goldens step
#   oracle/regen/tiered.sh goldens  only (re)write the goldens of testdata/segments/tiered/ and
#                                   their rows in MANIFEST.tsv (the other rows are kept as they are)
# Fixtures (testdata/segments/tiered/):
#   __remote_log_metadata-0/   the RLMM topic: segment copy started/finished, deletes
#   __share_group_state-0/     share-coordinator state (ShareSnapshot / ShareUpdate records)
#   tiered-0/                  the partition's local segments (the oldest ones were deleted locally)
#   remote/                    LocalTieredStorage's directory: <topic>-<partition>-<topicId>/
#                              <startOffset>-<segmentId>.{log,index,timeindex,snapshot,...}
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"

SEG=testdata/segments
OUT=$SEG/tiered

source "$INFRA/tiered.sh" # tiered_props, tiered_broker_start, tiered_workload

produce() {
  local work bootstrap
  work="$(mktemp -d "${TMPDIR:-/tmp}/kseg-tiered.XXXXXX")"
  trap 'bash "$INFRA/broker.sh" stop "'"$work"'" >/dev/null 2>&1 || true' EXIT
  bootstrap="$(tiered_broker_start "$work")"
  echo "oracle: tiered broker at $bootstrap in $work" >&2
  tiered_workload "$bootstrap" "$work/logs" tiered share | tee "$work/workloads.out"
  bash "$INFRA/broker.sh" stop "$work"
  trap - EXIT
  rm -rf "$OUT"
  mkdir -p "$OUT"
  local d
  for d in "$work"/logs/__remote_log_metadata-* "$work"/logs/__share_group_state-* "$work"/logs/tiered-0; do
    if find "$d" -name '*.log' -size +0 | grep -q .; then
      cp -r "$d" "$OUT/"
    fi
  done
  cp -r "$work/remote/kafka-tiered-storage" "$OUT/remote"
  chmod -R u+rwX,go+rX "$OUT"
  cp "$work/workloads.out" "$OUT/workloads.out"
  rm -rf "$work"
}

goldens() {
  source "$ORACLE/regen/goldens.sh"
  DUMP_CLASS="$(dump_class)"
  golden_init
  rm -rf "$GOLD/tiered"
  local dir
  for dir in $(find "$OUT" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*' | sort); do
    golden_partition "$dir"
  done
  # the remote copies are plain segments: dump each with the default options
  local f rel
  for f in $(find "$OUT/remote" -type f -name '*.log' | sort); do
    rel="${f#"$SEG"/}"
    golden "$rel.plain" --files "$f"
    golden "$rel.deep" --files "$f" --deep-iteration
  done
  wait
  golden_merge_manifest "$GOLD/tiered/"
}

if [ "${1:-}" = goldens ]; then
  oracle_fetch
  goldens
else
  produce
  goldens
fi
