#!/usr/bin/env bash
# Measure the Java producer's close of one batch (MemoryRecordsBuilder.close: the codec's flush,
# the header, the CRC), the work its sender does per batch inside the drain loop, for each codec
# and batches of 1 to 1,280 records (oracle/java/src/CloseCost.java). Prints one JSON line per
# codec and batch size, then the "close-us" object of producer/profiles/drain-close.json: for each
# codec, [records section KiB, median close µs] at every size (docs/calibration.md, "The
# sender's work inside the drain and after it" and "A batch's close by its size"). Run it on a
# quiet machine: it times a CPU-bound call.
#
#   oracle/calibration/drain-close.sh [ITERATIONS]   (default 2000 up to 16 records, a quarter of it up to
#   400 and an eighth past 400)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
ITER=${1:-2000}
oracle_fetch
oracle_compile
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
# Batches of 1 to 1,280 records of the what-if data's values (0.2 to 268 KiB), every 4 records up
# to 400 and every 16 past it: gzip deflates its 16 KiB buffer as records are appended, snappy
# compresses its 32 KiB blocks, lz4 its 64 KiB and zstd its 128 KiB, so the close does what is
# left and its cost falls at each boundary; the steps are fine enough to place the falls.
measure() { # RECORDS-LIST ITERATIONS
  "$JAVA" -Xmx512m -cp "$ORACLE/classes:$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
    CloseCost "$REPO/testdata/whatif/values.txt" "$1" "$2" | tee -a "$OUT"
}
measure "$(echo 1 2 3 4 5 6 8 10 12 14 16 | tr ' ' ,)" "$ITER"
measure "$(seq 20 4 400 | paste -sd,)" "$(((ITER + 3) / 4))"
measure "$(seq 416 16 1280 | paste -sd,)" "$(((ITER + 7) / 8))"
# The curve for drain-close.json, codecs in the order CloseCost prints them.
awk -F'[:,}]' '
  { for (i = 1; i < NF; i++) { k = $i; gsub(/[{" ]/, "", k); v[k] = $(i + 1) } ;
    c = v["codec"]; gsub(/"/, "", c); if (!(c in pts)) order[++n] = c;
    pts[c] = pts[c] (pts[c] == "" ? "" : ", ") "[" v["records_kib"] ", " v["close_us_p50"] "]" }
  END { print "\"close-us\": {"; for (i = 1; i <= n; i++) printf "  \"%s\": [%s]%s\n", order[i], pts[order[i]], (i < n ? "," : ""); print "}" }
' "$OUT"
