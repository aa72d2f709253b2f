#!/bin/bash
# kseg throughput beside the machine's limits and kafka-dump-log, on a
# ~1 GiB segment written by `kseg produce` (kept under bench/out/, which is
# gitignored, and reused on later runs).
#
#   bench/run.sh                 # all figures
#   KAFKA_SLICE=134217728 bench/run.sh   # bytes of the files kafka-dump-log reads (--max-bytes; default "all":
#                                # the whole files, with the whole outputs compared with cmp)
#   CMP=0 bench/run.sh           # skip the cmp of the whole outputs (it runs both tools once more)
#   KAFKA_LIB=/path/to/kafka/libs bench/run.sh   # default: the repo's oracle/lib (oracle_fetch, needs mvn)
#   KSEG_BEFORE=/path/to/old/kseg bench/run.sh   # also time the CLI rows with an older binary, in the same run
#   CODEC_MB=200 bench/run.sh    # MB of records in each realistic codec file
#   CODEC_ROUNDS=10 bench/run.sh # interleaved rounds of codec alone / deep (best of each)
#   DRIVER_BEFORE=/path/to/old/driver bench/run.sh  # also the codec rows with a driver built from older
#                                # library code (copy today's bench/driver into the old tree to build it)
#   MANY_PARTITIONS=1 MEMORY=1 bench/run.sh      # also 10,000 partitions, and peak RSS on 10 GB / 1M findings
#   PARTS_1K=1 bench/run.sh      # also audit of 1,000 partitions of ~1 MB beside the same bytes in one segment
#   WARM=0 bench/run.sh          # do not read the two 1 GiB files again before each timed run (by default
#                                # they are: a shared machine's reclaim can drop their pages between runs,
#                                # and a run that reads from disk times the disk)
#
# MB/s are 10^6 bytes per second of segment file. Needs /usr/bin/time (GNU).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
# shellcheck source=../oracle/infra/common.sh
source "$root/oracle/infra/common.sh" # ORACLE, JAVA, oracle_fetch
slice=${KAFKA_SLICE:-all}
if [ -n "${KAFKA_LIB:-}" ]; then
  lib=$KAFKA_LIB
else
  lib=$ORACLE/lib # the pinned Kafka jars; fetched (or found current) here
  if command -v mvn >/dev/null; then
    oracle_fetch || echo "oracle_fetch failed: kafka-dump-log will be skipped" >&2
  fi
fi
# kafka-dump-log as bin/kafka-dump-log.sh runs it: kafka-run-class.sh's
# default KAFKA_HEAP_OPTS and KAFKA_JVM_PERFORMANCE_OPTS, log4j kept quiet.
kafka_dump_log=("$JAVA" -Xmx256M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true
  -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" -cp "$lib/*"
  "${DUMP_CLASS:-org.apache.kafka.tools.DumpLogSegments}")
mkdir -p "$out"
cd "$root"
go build -o "$out/kseg" .
go build -o "$out/driver" ./bench/driver
kseg="$out/kseg"; drv="$out/driver"
before=${KSEG_BEFORE:-}
before_drv=${DRIVER_BEFORE:-}
[ -n "$before" ] && [ ! -x "$before" ] && { echo "KSEG_BEFORE=$before is not executable" >&2; exit 2; }

# 1 GiB: 9.7M records of 100-byte values in 16 KiB batches (148 records each),
# and the same bytes in 1 KiB batches (9 records each) for the per-batch cost.
gen() { # name batch-size records [compression]
  local dir="$out/$1"
  if [ ! -f "$dir/kseg-ref-0/00000000000000000000.log" ]; then
    echo "generating $dir ..." >&2
    "$kseg" produce --out "$dir" --force --records "$3" --value-size 100 --batch-size "$2" \
      --compression "${4:-none}" --segment-bytes 2000000000 >/dev/null
  fi
  echo "$dir/kseg-ref-0/00000000000000000000.log"
}
big=$(gen seg-16k 16384 9700000)
small=$(gen seg-1k 1024 9000000)
size=$(stat -c %s "$big")
cat "$big" "$small" >/dev/null # page cache

mbs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / s / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# timed NAME BYTES CMD...: runs CMD with stdout to /dev/null, prints MB/s and peak RSS
timed() {
  local name=$1 bytes=$2; shift 2
  [ "${WARM:-1}" != 0 ] && [ -n "${big:-}" ] && cat "$big" "${small:-$big}" >/dev/null
  /usr/bin/time -f "%e %M %U %S" -o "$out/time.txt" "$@" >/dev/null 2>"$out/stderr.txt" || { echo "$name failed: $(head -3 "$out/stderr.txt")" >&2; return 1; }
  read -r sec rss usr sys <"$out/time.txt"
  sec=$(awk -v s="$sec" 'BEGIN { if (s < 0.01) s = 0.01; print s }')
  last_cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  printf "%-44s %8.1f MB/s  %7.2f s  %6.2f CPU-s  peak RSS %6.1f MiB\n" "$name" "$(mbs "$bytes" "$sec")" "$sec" "$last_cpu" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
  last_mbs=$(mbs "$bytes" "$sec"); last_rss=$rss; last_sec=$sec
}
# cli NAME BYTES ARGS...: times kseg ARGS, and with KSEG_BEFORE the older
# binary on the same arguments right after; sets $kseg_sec (and $before_sec).
cli() {
  local name=$1 bytes=$2; shift 2
  timed "$name" "$bytes" "$kseg" "$@"; kseg_sec=$last_sec; kseg_rss=$last_rss; kseg_cpu=$last_cpu
  before_sec=
  if [ -n "$before" ]; then
    timed "  before: $name" "$bytes" "$before" "$@"; before_sec=$last_sec
    echo "  after/before speed: $(ratio "$before_sec" "$kseg_sec")x wall, $(ratio "$last_cpu" "$kseg_cpu")x CPU"
  fi
}
drv() { # mode file: prints the driver's figure, sets $rate
  local line label; label="$1 ($(basename "$(dirname "$(dirname "$2")")"))"
  [ -d "$2" ] && label="$1 ($(basename "$2"))"
  line=$("$drv" "$1" "$2"); set -- $line
  printf "%-44s %8.1f MB/s  %7.2f s\n" "driver $label" "$4" "$3"
  rate=$4
}

[ "$slice" = all ] && slice=$size
echo "segment: $big ($size bytes, $(nproc) CPUs, $(uname -r))"
echo "== machine limits (same bytes)"
drv read "$big"; read_mbs=$rate
drv crc "$big"; crc_mbs=$rate
drv crcmem "$big"; crcmem_mbs=$rate
dd_line=$(dd if="$big" of=/dev/null bs=1M 2>&1 | tail -1); echo "dd bs=1M: $dd_line"

echo "== kseg library paths (bench/driver)"
drv headers "$big"; hdr_mbs=$rate
drv headers "$small"; hdr1k_mbs=$rate
drv crcscan "$big"; crcscan_mbs=$rate
drv crcmmap "$big"; crcmmap_mbs=$rate      # the CRC path without a copy: mmap (4 KiB page faults)
drv crcmmappop "$big"                       # ... with MAP_POPULATE
echo "-- what bounds the CRC scan, one run (bench/driver crcpath)"
"$drv" crcpath "$big" 5 | sed 1d
echo "CRC over reads / over mmap:     $(ratio "$crcscan_mbs" "$crcmmap_mbs")  (above 1: reads stay the better choice)"
drv deep "$big"; deep_drv_mbs=$rate

small_size=$(stat -c %s "$small")
echo "== kseg CLI (stdout to /dev/null)${before:+; each row also with KSEG_BEFORE=$before}"
cli "kseg count, 1 KiB batches" "$small_size" count "$small"; count_sec=$kseg_sec; count_before=$before_sec
cli "kseg audit (CRC), 16 KiB batches" "$size" audit "$(dirname "$big")"; audit_sec=$kseg_sec; audit_before=$before_sec
cli "kseg dump (batch lines), 1 KiB batches" "$small_size" dump --files "$small"; lines_sec=$kseg_sec; lines_before=$before_sec
cli "kseg dump (batch lines), 16 KiB batches" "$size" dump --files "$big"
cli "kseg dump --format json (batches)" "$size" dump --format json "$big"
cli "kseg dump --deep-iteration --print-data-log" "$size" dump --files "$big" --deep-iteration --print-data-log
deep_sec=$kseg_sec; deep_before=$before_sec; deep_rss=$kseg_rss; deep_cpu=$kseg_cpu
cli "kseg dump --format json --deep-iteration --print-data-log" "$size" dump --format json --files "$big" --deep-iteration --print-data-log
json_deep_sec=$kseg_sec; json_deep_cpu=$kseg_cpu

# Whole files by default: the slice of the 16 KiB file and of the 1 KiB file.
big_slice=$slice small_slice=$slice
if [ "$slice" = "$size" ]; then small_slice=$small_size; fi
maxb=(--max-bytes "$slice")
[ "${KAFKA_SLICE:-all}" = all ] && maxb=()
what="the whole files"; [ ${#maxb[@]} -gt 0 ] && what="the first $slice bytes (--max-bytes $slice)"
echo "== kafka-dump-log 4.4.0 vs kseg on $what; kseg before and after kafka-dump-log, ratio to their mean"
mean() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (a + b) / 2 }'; }
kafka_mbs=
if [ -d "$lib" ]; then
  timed "kseg --deep-iteration --print-data-log" "$big_slice" "$kseg" dump --files "$big" --deep-iteration --print-data-log "${maxb[@]}"
  k1=$last_sec; k1_cpu=$last_cpu
  timed "kafka-dump-log --deep-iteration --print-data-log" "$big_slice" \
    "${kafka_dump_log[@]}" --files "$big" --deep-iteration --print-data-log "${maxb[@]}"
  kafka_mbs=$last_mbs; kafka_deep_sec=$last_sec; kafka_cpu=$last_cpu
  timed "kseg --deep-iteration --print-data-log" "$big_slice" "$kseg" dump --files "$big" --deep-iteration --print-data-log "${maxb[@]}"
  kseg_deep_mean=$(mean "$k1" "$last_sec")
  # CPU seconds beside the wall: on a shared machine the wall ratio follows the load.
  echo "  kafka-dump-log / kseg: $(ratio "$kafka_deep_sec" "$kseg_deep_mean")x wall, $(ratio "$kafka_cpu" "$(mean "$k1_cpu" "$last_cpu")")x CPU (load $(cut -d' ' -f1 /proc/loadavg))"
  timed "kseg (batch lines), 1 KiB batches" "$small_slice" "$kseg" dump --files "$small" "${maxb[@]}"
  k1=$last_sec; k1_cpu=$last_cpu
  timed "kafka-dump-log (batch lines), 1 KiB batches" "$small_slice" "${kafka_dump_log[@]}" --files "$small" "${maxb[@]}"
  kafka_lines_mbs=$last_mbs; kafka_lines_sec=$last_sec; kafka_cpu=$last_cpu
  timed "kseg (batch lines), 1 KiB batches" "$small_slice" "$kseg" dump --files "$small" "${maxb[@]}"
  kseg_lines_mean=$(mean "$k1" "$last_sec")
  echo "  kafka-dump-log / kseg: $(ratio "$kafka_lines_sec" "$kseg_lines_mean")x wall, $(ratio "$kafka_cpu" "$(mean "$k1_cpu" "$last_cpu")")x CPU (load $(cut -d' ' -f1 /proc/loadavg))"
  if [ "${CMP:-1}" != 0 ]; then
    cmp <("$kseg" dump --files "$big" --deep-iteration --print-data-log "${maxb[@]}") \
      <("${kafka_dump_log[@]}" --files "$big" --deep-iteration --print-data-log "${maxb[@]}") &&
      echo "deep --print-data-log, $what: kseg and kafka-dump-log output identical (cmp)" || echo "deep --print-data-log: OUTPUT DIFFERS"
    cmp <("$kseg" dump --files "$small" "${maxb[@]}") <("${kafka_dump_log[@]}" --files "$small" "${maxb[@]}") &&
      echo "batch lines, $what: kseg and kafka-dump-log output identical (cmp)" || echo "batch lines: OUTPUT DIFFERS"
  fi
else
  echo "no Kafka jars at $lib: kafka-dump-log skipped"
fi

codec_mb=${CODEC_MB:-200}
codec_rounds=${CODEC_ROUNDS:-10}
echo "== per codec: kseg deep iteration vs the codec library alone ($codec_mb MB of records each: JSON-like events, text, random bytes)"
echo "   (bench/driver codecdeep: the library's fastest API on preloaded payloads vs segment.Stream + Batch.Records + every record;"
echo "    best of $codec_rounds interleaved rounds; CPU seconds of the process, then wall; target ratio >= 0.70)"
codec_rows=
for c in gzip snappy lz4 zstd; do
  f="$out/real-$c-$codec_mb/00000000000000000000.log"
  if [ ! -f "$f" ]; then
    mkdir -p "$(dirname "$f")"
    "$drv" realistic "$c" "$f" "$codec_mb" >&2
  fi
  cat "$f" >/dev/null
  "$drv" codecdeep "$f" "$codec_rounds" 2>/dev/null | tee "$out/codecdeep.txt"
  if [ -n "$before_drv" ]; then
    echo "  before ($before_drv):"; "$before_drv" codecdeep "$f" "$codec_rounds" 2>/dev/null | sed 1d
  fi
  codec=$(awk '/codec alone/ { for (i = 1; i <= NF; i++) if ($i == "MB/s") { print $(i-1); exit } }' "$out/codecdeep.txt")
  deep=$(awk '/deep iteration:/ { for (i = 1; i <= NF; i++) if ($i == "MB/s") { print $(i-1); exit } }' "$out/codecdeep.txt")
  codec_rows+="| deep iteration, $c (realistic values) | $deep MB/s per CPU second | — | codec alone $codec MB/s per CPU second ($(ratio "$deep" "$codec")) |"$'\n'
done

if [ -d "$out/parts-10k" ] || [ -n "${MANY_PARTITIONS:-}" ]; then
  echo "== many partitions: $out/parts-10k (10,000 partitions; made on first use when MANY_PARTITIONS=1)"
  if [ ! -d "$out/parts-10k" ]; then
    "$kseg" produce --out "$out/parts-10k" --partitions 10000 --records 2000000 \
      --value-size 100 --key-count 500000 --key-prefix k >/dev/null
  fi
  # produce's peak RSS does not grow with partitions (a shared write budget): 10,000 against 1
  for n in 10000 1; do
    timed "kseg produce, $n partition(s), 2 M keyed records" 1 "$kseg" produce --out "$out/produce-rss" --force \
      --partitions "$n" --records 2000000 --value-size 100 --key-count 500000 --key-prefix k
  done
  rm -rf "$out/produce-rss"
  pfiles=("$out"/parts-10k/*/*.log)
  pbytes=$(cat "${pfiles[@]}" | wc -c)
  echo "${#pfiles[@]} logs, $pbytes bytes; in one process, fastest of 5 rounds (bench/driver parts):"
  "$drv" parts "$out/parts-10k/"
  for w in 1 2; do
    timed "kseg count --workers $w (10,000 partitions)" "$pbytes" "$kseg" count --workers "$w" "$out/parts-10k"
    echo "  $(awk -v s="$last_sec" 'BEGIN { printf "%.0f", 10000 / s }') partitions/s"
    timed "kseg audit --workers $w (10,000 partitions)" "$pbytes" "$kseg" audit --workers "$w" "$out/parts-10k"
    echo "  $(awk -v s="$last_sec" 'BEGIN { printf "%.0f", 10000 / s }') partitions/s"
  done
fi

if [ -n "${PARTS_1K:-}" ]; then
  echo "== audit: 1,000 partitions of ~1 MB beside the same records in one segment (16 KiB batches)"
  if [ ! -d "$out/parts-1k" ]; then
    "$kseg" produce --out "$out/parts-1k" --partitions 1000 --records 9700000 --value-size 100 --batch-size 16384 >/dev/null
  fi
  p1k=$(cat "$out"/parts-1k/*/*.log | wc -c)
  cat "$out"/parts-1k/*/*.log >/dev/null
  for _ in 1 2; do
    cli "kseg audit, 1,000 partitions" "$p1k" audit "$out/parts-1k"; many_sec=$kseg_sec
    cli "kseg audit, one segment" "$size" audit "$(dirname "$big")"; one_sec=$kseg_sec
    echo "  per byte, 1,000 partitions / one segment: $(awk -v a="$many_sec" -v b="$one_sec" -v pa="$p1k" -v pb="$size" 'BEGIN { printf "%.2f", (a / pa) / (b / pb) }') (target <= 1.5)"
  done
fi

if [ -n "${MEMORY:-}" ]; then
  echo "== peak RSS on a ~10.6 GB log directory (hard links: 5 x each 1 GiB segment) and on a million audit findings"
  ld="$out/logdir-10g"
  for i in 0 1 2 3 4 5 6 7 8 9; do
    src=$(dirname "$big"); [ $((i % 2)) = 1 ] && src=$(dirname "$small")
    mkdir -p "$ld/big-$i"; ln -f "$src"/* "$ld/big-$i/"
  done
  logs=$(ls "$ld"/*/*.log | paste -sd,)
  lsize=$(cat "$ld"/*/*.log | wc -c)
  timed "count (10 GB)" "$lsize" "$kseg" count "$ld"
  timed "audit (10 GB)" "$lsize" "$kseg" audit "$ld"
  timed "dump batch lines (10 GB)" "$lsize" "$kseg" dump --files "$logs"
  timed "dump --deep-iteration --print-data-log (10 GB)" "$lsize" "$kseg" dump --files "$logs" --deep-iteration --print-data-log
  timed "dump --format json deep (10 GB)" "$lsize" "$kseg" dump --format json --files "$logs" --deep-iteration --print-data-log
  timed "diff (10 GB against itself)" "$lsize" "$kseg" diff "$ld" "$ld"
  f1m="$out/findings-1m/f-0/00000000000000000000.log"
  [ -f "$f1m" ] || { mkdir -p "$(dirname "$f1m")"; "$drv" findings "$f1m" 1000002 >&2; }
  timed "audit, 1,000,000 findings" "$(stat -c %s "$f1m")" "$kseg" audit "$(dirname "$f1m")" || true
  timed "audit --json, 1,000,000 findings" "$(stat -c %s "$f1m")" "$kseg" audit --json "$(dirname "$f1m")" || true
fi

echo "== against the targets"
echo "header scan / sequential read:  $(ratio "$hdr_mbs" "$read_mbs")  (target >= 0.60; 1 KiB batches: $(ratio "$hdr1k_mbs" "$read_mbs"))"
echo "CRC scan / raw CRC-32C:         $(ratio "$crcscan_mbs" "$crc_mbs")  (target >= 0.70; vs CRC streaming from RAM: $(ratio "$crcscan_mbs" "$crcmem_mbs"))"
[ -n "$kafka_mbs" ] && echo "deep+print-data-log vs kafka:   $(ratio "$kafka_deep_sec" "$kseg_deep_mean")x on $what (target >= 40x)"
[ -n "${kafka_lines_mbs:-}" ] && echo "batch lines vs kafka:           $(ratio "$kafka_lines_sec" "$kseg_lines_mean")x on $what, 1 KiB batches (target >= 25x)"
echo "audit / CRC-32C in cache:       $(awk -v s="$size" -v r="$crc_mbs" -v a="$audit_sec" 'BEGIN { printf "%.2f", s / r / 1e6 / a }')  (CRC seconds / audit seconds, 2 CPUs; target >= 0.45)"
echo "JSON deep / text deep:          $(ratio "$json_deep_sec" "$deep_sec") wall, $(ratio "$json_deep_cpu" "$deep_cpu") CPU  (target <= 2)"
echo "peak RSS, deep+print, 1 GiB:    $(awk -v k="$deep_rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB (target < 64 MiB)"

# The issue's table: seconds for the whole file; kafka-dump-log's figure is
# its rate on the slice scaled to the whole file.
secs() { awk -v b="$1" -v r="$2" 'BEGIN { if (r == "") print "—"; else printf "%.1f s", b / r / 1e6 }'; }
bef() { [ -n "$1" ] && printf " (before %s s)" "$1"; }
echo
echo "| work | kseg | kafka-dump-log | limit on this machine (bench/driver) |"
echo "| --- | --- | --- | --- |"
echo "| \`--deep-iteration --print-data-log\`, 16 KiB batches | $deep_sec s$(bef "$deep_before") | $(secs "$size" "${kafka_mbs:-}") | record decoding alone $deep_drv_mbs MB/s |"
echo "| batch lines only, 1 KiB batches | $lines_sec s$(bef "$lines_before") | $(secs "$small_size" "${kafka_lines_mbs:-}") | header scan $hdr1k_mbs MB/s, read $read_mbs MB/s |"
echo "| \`count\`, 1 KiB batches | $count_sec s$(bef "$count_before") | — | header scan $hdr1k_mbs MB/s |"
echo "| \`audit\` (CRC-32C), 16 KiB batches | $audit_sec s$(bef "$audit_before") | — | CRC-32C in cache $crc_mbs MB/s; from memory $crcmem_mbs MB/s |"
printf "%s" "$codec_rows"
echo "allocations per batch, header path: 0 (TestScanHeadersZeroAllocsPerBatch, TestDumpBatchLinesZeroAllocsPerBatch)"
