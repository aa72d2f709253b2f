#!/usr/bin/env bash
# Measure the Java producer's close of one batch (MemoryRecordsBuilder.close: the codec's flush,
# the header, the CRC), the work its sender does per batch inside the drain loop, for each codec
# (oracle/java/src/CloseCost.java). Prints one JSON line per codec and batch size; the median
# close_us_per_kib of the 85-record batches is what producer/profiles/drain-close.json holds
# (docs/calibration.md, "The sender's work inside the drain and after it"). Run it on a quiet
# machine: it times a CPU-bound call.
#
#   oracle/calibration/drain-close.sh [ITERATIONS]   (default 3000)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
ITER=${1:-3000}
oracle_fetch
oracle_compile
# 85 records of the what-if data's values are 17 KiB (a linger-cut batch at 4 records/ms and
# linger.ms=20), 320 records 64 KiB (a full batch at batch.size=65536).
for n in 85 320; do
  "$JAVA" -Xmx512m -cp "$ORACLE/classes:$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
    CloseCost "$REPO/testdata/whatif/values.txt" "$n" "$ITER"
done
