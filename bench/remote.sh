#!/bin/bash
# kseg count on a ~1 GiB segment read over S3 (moto_server on loopback, laid out as
# Aiven's tiered-storage plugin writes it: plain chunks and zstd chunks) beside the
# same file read locally: MB/s (10^6 bytes of segment per second) and peak RSS.
# The segment is bench/run.sh's (kseg produce, 16 KiB batches), kept under bench/out/.
# Needs moto_server (pip install 'moto[server]') and GNU /usr/bin/time.
#   bench/remote.sh            # prints one line per reading
#   MAX_RSS_KB=131072 bench/remote.sh   # also fail if an S3 reading's peak RSS exceeds it
# Measured on the 2-core dev machine (1066803377-byte segment, kseg count --workers 1):
#   local 2667.0 MB/s, 18632 KiB; s3 plain 3.0 MB/s, 58052 KiB; s3 zstd 328.2 MB/s, 49648 KiB.
# The plain figure is moto's: each ranged GET of a 4 MiB chunk costs it ~1.4 s of copying on
# a 1 GiB object (its sys time), while the zstd object is small; kseg's own CPU is seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
mkdir -p "$out"
cd "$root"
go build -o "$out/kseg" .
go build -o "$out/aivenput" ./bench/aivenput
seg="$out/seg-16k/kseg-ref-0/00000000000000000000.log"
if [ ! -f "$seg" ]; then
  echo "generating $seg ..." >&2
  "$out/kseg" produce --out "$out/seg-16k" --force --records 9700000 --value-size 100 --batch-size 16384 \
    --compression none --segment-bytes 2000000000 >/dev/null
fi
size=$(stat -c %s "$seg")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$port" >"$out/moto.log" 2>&1 &
moto=$!
trap 'kill $moto 2>/dev/null || true; wait $moto 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
export AWS_ACCESS_KEY_ID=kseg-bench AWS_SECRET_ACCESS_KEY=kseg-bench AWS_REGION=us-east-1
ep="http://127.0.0.1:$port"

mbs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / s / 1e6 }'; }
fail=0
timed() { # NAME CMD...
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >"$out/count.txt" 2>"$out/stderr.txt" || { echo "$name failed: $(head -3 "$out/stderr.txt")" >&2; return 1; }
  read -r sec rss <"$out/time.txt"
  printf '%-34s %8s MB/s  peak RSS %6d KiB  %s\n' "$name" "$(mbs "$size" "$sec")" "$rss" "$(cut -c1-60 "$out/count.txt")"
  if [ -n "${MAX_RSS_KB:-}" ] && [ "$name" != local ] && [ "$rss" -gt "$MAX_RSS_KB" ]; then
    echo "  peak RSS $rss KiB > $MAX_RSS_KB KiB" >&2
    fail=1
  fi
}
cat "$seg" >/dev/null # page cache
echo "segment: $seg ($size bytes)"
timed local "$out/kseg" count --workers 1 "$seg"
"$out/aivenput" -endpoint "$ep" -bucket bench -prefix plain/ -file "$seg" >/dev/null
timed "s3 plain (4 MiB chunks)" "$out/kseg" count --workers 1 "s3://bench/plain/bench-0?endpoint=$ep&path-style=1"
"$out/aivenput" -endpoint "$ep" -bucket bench -prefix zstd/ -file "$seg" -compress >/dev/null
timed "s3 zstd (4 MiB chunks)" "$out/kseg" count --workers 1 "s3://bench/zstd/bench-0?endpoint=$ep&path-style=1"
exit $fail
