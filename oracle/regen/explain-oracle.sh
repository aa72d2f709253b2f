#!/usr/bin/env bash
# Known-answer logs for `kseg explain`: the real Java producer (oracle/java/src/ProducerCompare.java)
# writes one topic per case with known settings to a broker on 127.0.0.1; the .log files are copied
# to testdata/explain-oracle/<case>/<topic>-<p>/ and the settings to testdata/explain-oracle/cases.tsv.
# internal/explain/oracle_test.go checks that explain's intervals contain the true batch.size and linger.ms
# (or say "not enough evidence").
#
#   oracle/regen/explain-oracle.sh      regenerate testdata/explain-oracle
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"

# name|spec (ProducerCompare keys). Record timestamps come from the producer's clock.
CASES=(
  "e-none-b1024-l1000|records=300,batchSize=1024,lingerMs=1000"
  "e-none-b4096-l20-i1000|records=200,batchSize=4096,lingerMs=20,intervalUs=1000"
  "e-none-l5-i200|records=400,lingerMs=5,intervalUs=200"
  "e-none-b2048-l100-i500|records=300,batchSize=2048,lingerMs=100,intervalUs=500"
  "e-none-l50-i5000|records=120,lingerMs=50,intervalUs=5000"
  "e-gzip-b4096-l1000|records=600,batchSize=4096,lingerMs=1000,compression=gzip"
  "e-snappy-b4096-l1000|records=600,batchSize=4096,lingerMs=1000,compression=snappy"
  "e-lz4-b4096-l1000|records=600,batchSize=4096,lingerMs=1000,compression=lz4"
  "e-zstd-b4096-l1000|records=600,batchSize=4096,lingerMs=1000,compression=zstd"
  "e-gzip-l10-i500|records=400,lingerMs=10,intervalUs=500,compression=gzip"
  "e-zstd-k3-l20-i1000|partitions=3,records=300,keyPrefix=key-,keyCount=10,lingerMs=20,intervalUs=1000,compression=zstd"
  "e-lz4-k3-l50-i200|partitions=3,records=600,keyPrefix=key-,keyCount=10,lingerMs=50,intervalUs=200,compression=lz4"
  "e-snappy-s3-l20-i300|partitions=3,records=400,lingerMs=20,intervalUs=300,compression=snappy"
  "e-k3-b1024-l1000|partitions=3,records=600,keyPrefix=key-,keyCount=10,batchSize=1024,lingerMs=1000"
  "e-k3-b2048-l10-i300|partitions=3,records=600,keyPrefix=key-,keyCount=10,batchSize=2048,lingerMs=10,intervalUs=300"
  "e-s3-b1024-l1000|partitions=3,records=600,batchSize=1024,lingerMs=1000"
  "e-s3-b4096-l5-i200|partitions=3,records=600,batchSize=4096,lingerMs=5,intervalUs=200"
  "e-sync-l0|records=100,lingerMs=0,sync=true"
  "e-sync-l5|records=100,lingerMs=5,sync=true"
  "e-sync-k3-l0|partitions=3,records=100,keyPrefix=key-,keyCount=10,lingerMs=0,sync=true"
  "e-async-l0-i2000|records=100,lingerMs=0,intervalUs=2000"
  "e-noidem-b1024-l1000|records=300,batchSize=1024,lingerMs=1000,idempotence=false"
  "e-none-b512-v1000|records=60,batchSize=512,valueSize=1000,lingerMs=1000"
  "e-zstd-l5|records=1000,lingerMs=5,compression=zstd"
)

OUT="$REPO/testdata/explain-oracle"
WORK=$(mktemp -d /tmp/kseg-explain-oracle.XXXXXX)
BROKER="$WORK/broker"
cleanup() {
  bash "$INFRA/broker.sh" stop "$BROKER" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

oracle_fetch
oracle_compile
BOOT=$(bash "$INFRA/broker.sh" start "$BROKER")
specs=()
for c in "${CASES[@]}"; do
  IFS='|' read -r name spec <<<"$c"
  specs+=("$name,$spec")
done
"$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
  -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" \
  ProducerCompare "$BOOT" "${specs[@]}" >"$WORK/java.out" 2>&1 || { cat "$WORK/java.out" >&2; exit 1; }
bash "$INFRA/broker.sh" stop "$BROKER"

get() { local v; v=$(tr ',' '\n' <<<"$1" | sed -n "s/^$2=//p" | tail -n 1); echo "${v:-$3}"; }
rm -rf "$OUT"
mkdir -p "$OUT"
{
  echo "# Known-answer logs for kseg explain, written by the Java producer of Kafka $(kafka_version) (oracle/regen/explain-oracle.sh)."
  echo "# Columns: case, partitions, keyed, batch.size, linger.ms, compression, sync, send interval (us), records, value size, idempotence"
  for c in "${CASES[@]}"; do
    IFS='|' read -r name spec <<<"$c"
    parts=$(get "$spec" partitions 1)
    for ((p = 0; p < parts; p++)); do
      mkdir -p "$OUT/$name/$name-$p"
      cp "$BROKER/logs/$name-$p"/*.log "$OUT/$name/$name-$p/"
    done
    keyed=false; [ "$(get "$spec" keyCount 0)" != 0 ] && keyed=true
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$parts" "$keyed" "$(get "$spec" batchSize 16384)" \
      "$(get "$spec" lingerMs 5)" "$(get "$spec" compression none)" "$(get "$spec" sync false)" "$(get "$spec" intervalUs 0)" \
      "$(get "$spec" records 200)" "$(get "$spec" valueSize 100)" "$(get "$spec" idempotence true)"
  done
} >"$OUT/cases.tsv"
cp "$WORK/java.out" "$OUT/java.out"
echo "wrote $OUT ($(du -sh "$OUT" | cut -f1))"
