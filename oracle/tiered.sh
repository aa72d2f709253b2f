#!/usr/bin/env bash
# Tiered-storage and share-group fixtures from a real broker, and their kafka-dump-log goldens.
#   oracle/tiered.sh            run the broker with LocalTieredStorage, the Tiered workloads
#                               (oracle/src/Tiered.java), copy the fixtures into
#                               testdata/segments/tiered/, then the goldens step
#   source oracle/tiered.sh lib  only define the functions (oracle/ci-tiered.sh)
#   oracle/tiered.sh goldens    only (re)write the goldens of testdata/segments/tiered/ and their
#                               rows in MANIFEST.tsv (the other rows are kept as they are)
# Fixtures (testdata/segments/tiered/):
#   __remote_log_metadata-0/   the RLMM topic: segment copy started/finished, deletes
#   __share_group_state-0/     share-coordinator state (ShareSnapshot / ShareUpdate records)
#   tiered-0/                  the partition's local segments (the oldest ones were deleted locally)
#   remote/                    LocalTieredStorage's directory: <topic>-<partition>-<topicId>/
#                              <startOffset>-<segmentId>.{log,index,timeindex,snapshot,...}
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"

SEG=testdata/segments
OUT=$SEG/tiered

# tiered_props DIR: the broker settings for tiered storage with remote storage under DIR/remote
tiered_props() {
  cat <<PROPS
remote.log.storage.system.enable=true
remote.log.storage.manager.class.name=org.apache.kafka.server.log.remote.storage.LocalTieredStorage
remote.log.storage.manager.impl.prefix=rsm.config.
rsm.config.dir=$1/remote
remote.log.metadata.manager.impl.prefix=rlmm.config.
rlmm.config.remote.log.metadata.topic.replication.factor=1
rlmm.config.remote.log.metadata.topic.num.partitions=1
remote.log.metadata.manager.listener.name=PLAINTEXT
remote.log.manager.task.interval.ms=500
log.retention.check.interval.ms=1000
share.coordinator.state.topic.num.partitions=1
PROPS
}

# tiered_broker_start DIR: start a tiered-storage broker in DIR; prints the bootstrap address
tiered_broker_start() {
  oracle_fetch
  oracle_compile
  "$JAVAC" -nowarn -d "$ORACLE/classes" -cp "$ORACLE/lib/*" "$ORACLE"/src/shim/org/apache/kafka/common/utils/LogContext.java
  BROKER_EXTRA_PROPS="$(tiered_props "$1")" BROKER_EXTRA_CP="$ORACLE/classes" bash "$ORACLE/broker.sh" start "$1"
}

tiered_workload() {
  "$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$ORACLE/log4j2-client.properties" Tiered "$@"
}

produce() {
  local work bootstrap
  work="$(mktemp -d "${TMPDIR:-/tmp}/kseg-tiered.XXXXXX")"
  trap 'bash "$ORACLE/broker.sh" stop "'"$work"'" >/dev/null 2>&1 || true' EXIT
  bootstrap="$(tiered_broker_start "$work")"
  echo "oracle: tiered broker at $bootstrap in $work" >&2
  tiered_workload "$bootstrap" "$work/logs" tiered share | tee "$work/workloads.out"
  bash "$ORACLE/broker.sh" stop "$work"
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
  source "$ORACLE/goldens.sh"
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

case "${1:-}" in
  lib) return 0 ;; # sourced for its functions (oracle/ci-tiered.sh)
esac
if [ "${1:-}" = goldens ]; then
  oracle_fetch
  goldens
else
  produce
  goldens
fi
