#!/bin/bash
# --from/--to on a ~20 GB partition (issue 30): the time to the first batch line and the bytes
# read by `kseg dump PART --from OFFSET --to OFFSET+10` and `--from @TIME` for a point in the
# middle, beside `kseg count` over the whole partition (a full scan). Page cache warm: each is
# run twice and the second run is printed.
#
# The partition is built from one `kseg produce` run (the reference producer's broker-style
# writer: ~1.17 GB in a 1 GiB segment and a 100 MB one, real .index/.timeindex files), copied
# COPIES times with offsets and timestamps shifted (bench/seekbench grow; CRCs recomputed),
# so it has 2*COPIES segments as a broker with segment.bytes=1 GiB would. It needs about
# 1.2 GB * (COPIES+1) of disk (check with df -h), and is deleted afterwards unless KEEP=1.
#   bench/seek.sh              # COPIES=18: 21 GB, 36 segments
#   COPIES=2 bench/seek.sh     # a quick run
# Measured on the 2-core dev machine (COPIES=18: 21,194,646,528 bytes of log, 36 segments):
#   dump --from OFFSET --to OFFSET+10   first line 0.89-1.06 ms, read 65,634 bytes
#   dump --from @TIME --to OFFSET+10    first line 2.35 ms, read 202,247 bytes
#   count (whole partition)             71,203 ms, read 21,000,958,458 bytes
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out="${OUT:-$here/out}"
copies="${COPIES:-18}"
mkdir -p "$out"
cd "$root"
go build -o "$out/kseg" .
go build -o "$out/seekbench" ./bench/seekbench
src="$out/seek-src"
if [ ! -f "$src/kseg-ref-0/00000000000000000000.log" ]; then
  "$out/kseg" produce --out "$src" --force --records 9700000 --value-size 100 --batch-size 16384 \
    --compression none --segment-bytes 1073741824 --key-prefix order- --key-count 100000 \
    --timestamp-step-ms 1 >/dev/null
fi
big="$out/seek-big/kseg-ref-0"
rm -rf "$out/seek-big"
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$out/seek-big"' EXIT
"$out/seekbench" grow "$src/kseg-ref-0" "$big" "$copies" 2>/dev/null
du -sh "$big"
# The middle: offset and time of record copies*9700000/2 (timestamps step 1 ms from the
# producer's start time, which the first batch's base timestamp gives).
mid=$((copies * 9700000 / 2))
start=$("$out/kseg" dump "$src/kseg-ref-0/00000000000000000000.log" --format json --max-bytes 4096 |
  sed -n 's/.*"base_timestamp":\([0-9]*\).*/\1/p' | head -1)
"$out/seekbench" measure "$big" "$mid" "$((start + mid))"
