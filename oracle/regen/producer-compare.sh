#!/usr/bin/env bash
# Compare kseg's reference producer (`kseg produce`) with the real Java producer + broker.
#
#   oracle/regen/producer-compare.sh [--quick] [--out FILE] [--fixtures DIR] [--keep DIR]
#
# Starts a broker in a temp dir, runs every case of the matrix with the real KafkaProducer
# (oracle/java/src/ProducerCompare.java), stops the broker cleanly, then runs `kseg produce` on the same
# settings and compares, per case kind:
#   bytes   size-cut regime (async, long linger, explicit timestamps): the batch layout of every
#           partition must be equal, and .log/.index/.timeindex bytes identical once kseg is given
#           the producer id, epoch and partition leader epoch read from the real log. PASS/FAIL.
#   layout  compressed, size-cut: records per batch compared (bytes are codec-dependent). Reported
#           as the share of batches at equal positions with equal counts; PASS when layouts are equal,
#           NEAR otherwise (informational, not a failure).
#   spread  time-cut regimes (sync, small linger, slow sender): the real producer runs several
#           times; the real layouts' histograms are listed next to the model's (informational).
# --quick runs the CI subset. --out writes the report (default: stdout only). --fixtures DIR copies
# the real partition dirs of the bytes cases (.log/.index/.timeindex) plus a case.txt holding the
# kseg produce arguments to DIR/<case>/. --keep DIR keeps the work tree there; --reuse DIR compares
# against the real logs of such a kept tree (DIR/broker/logs) without running Java again.
# The last line is "producer-oracle: N passed, M failed"; the exit status is 1 when M > 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"

QUICK=0 OUTFILE="" FIXTURES="" KEEP="" REUSE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --out) OUTFILE=$2; shift ;;
    --fixtures) FIXTURES=$2; shift ;;
    --keep) KEEP=$2; shift ;;
    --reuse) REUSE=$2; shift ;;
    *) echo "usage: $0 [--quick] [--out FILE] [--fixtures DIR] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift
done

# The fixed record timestamp origin (ms), kseg's DefaultStartTime; topics get retention.ms=-1.
TSBASE=1794025632481

# kind|name|spec (ProducerCompare keys, see the Java file). Names are topic names.
CASES_FULL=(
  "bytes|u-v10-b1024|records=300,valueSize=10,batchSize=1024,lingerMs=5000,tsStep=1"
  "bytes|u-v10-b4096|records=1000,valueSize=10,batchSize=4096,lingerMs=5000,tsStep=1"
  "bytes|u-v10-b16384|records=2000,valueSize=10,batchSize=16384,lingerMs=5000,tsStep=1"
  "bytes|u-v100-b1024|records=200,valueSize=100,batchSize=1024,lingerMs=5000,tsStep=1"
  "bytes|u-v100-b16384-ts0|records=400,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=0"
  "bytes|u-v100-b4096-noidem|records=300,valueSize=100,batchSize=4096,lingerMs=5000,tsStep=2,idempotence=false"
  "bytes|u-v1000-b4096|records=40,valueSize=1000,batchSize=4096,lingerMs=5000,tsStep=1"
  "bytes|u-v1000-b16384|records=40,valueSize=1000,batchSize=16384,lingerMs=5000,tsStep=3"
  "bytes|k3-v100-b1024|partitions=3,records=600,valueSize=100,keyPrefix=key-,keyCount=10,batchSize=1024,lingerMs=5000,tsStep=1"
  "bytes|k4-v10-b4096|partitions=4,records=2000,valueSize=10,keyPrefix=k,keyCount=7,batchSize=4096,lingerMs=5000,tsStep=1"
  "bytes|k2-v1000-b16384|partitions=2,records=80,valueSize=1000,keyPrefix=user-,keyCount=5,batchSize=16384,lingerMs=5000,tsStep=1"
  "layout|z-gzip-v100|records=3000,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=1,compression=gzip"
  "layout|z-snappy-v100|records=3000,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=1,compression=snappy"
  "layout|z-lz4-v100|records=3000,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=1,compression=lz4"
  "layout|z-zstd-v100|records=3000,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=1,compression=zstd"
  "layout|z-gzip-v1000-b4096|records=1000,valueSize=1000,batchSize=4096,lingerMs=5000,tsStep=1,compression=gzip"
  "layout|z-snappy-v1000-b4096|records=1000,valueSize=1000,batchSize=4096,lingerMs=5000,tsStep=1,compression=snappy"
  "layout|z-lz4-v1000-b4096|records=1000,valueSize=1000,batchSize=4096,lingerMs=5000,tsStep=1,compression=lz4"
  "layout|z-zstd-v1000-b4096|records=1000,valueSize=1000,batchSize=4096,lingerMs=5000,tsStep=1,compression=zstd"
  "spread|t-sync-l0|records=100,valueSize=100,lingerMs=0,sync=true,runs=3"
  "spread|t-async-l0|records=1000,valueSize=100,lingerMs=0,runs=3"
  "spread|t-async-l5|records=2000,valueSize=100,lingerMs=5,runs=3"
  "spread|t-slow1ms-l5|records=300,valueSize=100,lingerMs=5,intervalUs=1000,runs=3"
  "spread|t-slow2ms-l1000-b1024|records=200,valueSize=100,batchSize=1024,lingerMs=1000,intervalUs=2000,runs=3"
)
CASES_QUICK=(
  "bytes|u-v10-b4096|records=1000,valueSize=10,batchSize=4096,lingerMs=5000,tsStep=1"
  "bytes|u-v100-b1024|records=200,valueSize=100,batchSize=1024,lingerMs=5000,tsStep=1"
  "bytes|u-v1000-b16384|records=40,valueSize=1000,batchSize=16384,lingerMs=5000,tsStep=3"
  "bytes|k3-v100-b1024|partitions=3,records=600,valueSize=100,keyPrefix=key-,keyCount=10,batchSize=1024,lingerMs=5000,tsStep=1"
  "layout|z-lz4-v100|records=3000,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=1,compression=lz4"
  "layout|z-zstd-v100|records=3000,valueSize=100,batchSize=16384,lingerMs=5000,tsStep=1,compression=zstd"
)
if [ "$QUICK" = 1 ]; then CASES=("${CASES_QUICK[@]}"); else CASES=("${CASES_FULL[@]}"); fi

# spec_get SPEC KEY DEFAULT
spec_get() {
  local v
  v=$(tr ',' '\n' <<<"$1" | sed -n "s/^$2=//p" | tail -n 1)
  echo "${v:-$3}"
}

# kseg_args NAME SPEC: the kseg produce flags for a case (without --out and producer state).
kseg_args() {
  local name=$1 spec=$2 a=()
  a+=(--topic "$name" --partitions "$(spec_get "$spec" partitions 1)")
  a+=(--records "$(spec_get "$spec" records 200)" --value-size "$(spec_get "$spec" valueSize 100)")
  local kc; kc=$(spec_get "$spec" keyCount 0)
  if [ "$kc" != 0 ]; then a+=(--key-prefix "$(spec_get "$spec" keyPrefix '')" --key-count "$kc"); fi
  a+=(--batch-size "$(spec_get "$spec" batchSize 16384)" --linger-ms "$(spec_get "$spec" lingerMs 5)")
  a+=(--compression "$(spec_get "$spec" compression none)" --idempotence="$(spec_get "$spec" idempotence true)")
  [ "$(spec_get "$spec" sync false)" = true ] && a+=(--sync)
  local base; base=$(spec_get "$spec" tsBase "$TSBASE")
  if [[ "$spec" == *tsStep=* ]]; then
    a+=(--start-time "$base" --timestamp-step-ms "$(spec_get "$spec" tsStep 0)")
  fi
  local iv; iv=$(spec_get "$spec" intervalUs 0)
  [ "$iv" != 0 ] && a+=(--send-interval "${iv}us")
  printf '%s\n' "${a[@]}"
}

# java_spec NAME SPEC: the ProducerCompare case string.
java_spec() {
  local spec=$2
  if [[ "$spec" == *tsStep=* && "$spec" != *tsBase=* ]]; then spec="$spec,tsBase=$TSBASE"; fi
  echo "$1,$spec"
}

# layout DIR: records per batch of one partition dir, space separated.
layout() { "$KSEG" dump "$1" --format json | jq -r 'select(.type=="batch") | .count' | paste -sd' ' -; }
# histo "LAYOUT": kseg count's "NxM" form (M batches of N records, in first-seen order).
histo() {
  tr ' ' '\n' <<<"$1" | awk 'NF{if(!($1 in c))o[n++]=$1;c[$1]++} END{for(i=0;i<n;i++)printf "%s%sx%d",(i?" ":""),o[i],c[o[i]];print ""}'
}
# agree "A" "B": batches at equal positions with equal record counts / max(batches).
agree() {
  awk -v a="$1" -v b="$2" 'BEGIN{na=split(a,x," ");nb=split(b,y," ");m=na>nb?na:nb;s=0;
    for(i=1;i<=m;i++) if(i<=na&&i<=nb&&x[i]==y[i]) s++; printf "%d/%d", s, m}'
}
first_batch() { "$KSEG" dump "$1" --format json | jq -r "select(.type==\"batch\") | .$2" | head -n 1; }

WORK=$(mktemp -d /tmp/kseg-prodcmp.XXXXXX)
BROKER="$WORK/broker"
KSEG="$WORK/bin/kseg"
cleanup() {
  bash "$INFRA/broker.sh" stop "$BROKER" >/dev/null 2>&1 || true
  if [ -n "$KEEP" ]; then rm -rf "$KEEP"; mv "$WORK" "$KEEP"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

(cd "$REPO" && go build -o "$KSEG" .)
if [ -z "$REUSE" ]; then oracle_fetch; oracle_compile; fi

# ---------------------------------------------------------------- real producer
if [ -n "$REUSE" ]; then
  REAL="$REUSE/broker/logs"
else
BOOT=$(bash "$INFRA/broker.sh" start "$BROKER")
specs=()
for c in "${CASES[@]}"; do
  IFS='|' read -r kind name spec <<<"$c"
  specs+=("$(java_spec "$name" "$spec")")
done
"$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
  -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" \
  ProducerCompare "$BOOT" "${specs[@]}" >"$WORK/java.out" 2>&1 || { cat "$WORK/java.out" >&2; exit 1; }
bash "$INFRA/broker.sh" stop "$BROKER"
REAL="$BROKER/logs"
fi

# ---------------------------------------------------------------- compare
PASS=0 FAIL=0
REPORT="$WORK/report.txt"
{
  echo "# kseg produce vs the real Java producer + broker (Kafka $(kafka_version)), generated by oracle/regen/producer-compare.sh$([ "$QUICK" = 1 ] && echo ' --quick')"
  echo "# record timestamps: explicit ($TSBASE + i*tsStep ms) where tsStep is given, else the producer's clock"
  echo "# layout = records per batch in order; histogram NxM = M batches of N records"
} >"$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }

for c in "${CASES[@]}"; do
  IFS='|' read -r kind name spec <<<"$c"
  parts=$(spec_get "$spec" partitions 1)
  mapfile -t args < <(kseg_args "$name" "$spec")
  say ""
  say "== $kind $name: $spec"
  case "$kind" in
  bytes|layout)
    pd="$REAL/$name-0"
    pid=$(first_batch "$pd" producer_id)
    epoch=$(first_batch "$pd" producer_epoch)
    lep=$(first_batch "$pd" partition_leader_epoch)
    state=(--producer-id "$(( pid < 0 ? 0 : pid ))" --producer-epoch "$(( epoch < 0 ? 0 : epoch ))" --leader-epoch "$lep")
    say "   kseg produce ${args[*]} ${state[*]}"
    "$KSEG" produce --out "$WORK/kseg/$name" "${args[@]}" "${state[@]}" >/dev/null
    ok=1
    for ((p = 0; p < parts; p++)); do
      r="$REAL/$name-$p" k="$WORK/kseg/$name/$name-$p"
      rl=$(layout "$r") kl=$(layout "$k")
      if [ "$rl" = "$kl" ]; then
        say "   p$p layout equal: $(histo "$rl")"
      else
        ok=0
        say "   p$p layout DIFFERS ($(agree "$rl" "$kl") batches agree)"
        say "      real: $(histo "$rl")   [$rl]"
        say "      kseg: $(histo "$kl")   [$kl]"
      fi
      if [ "$kind" = bytes ]; then
        for f in "$r"/*.log "$r"/*.index "$r"/*.timeindex "$r"/*.snapshot; do
          [ -e "$f" ] || continue
          b=$(basename "$f")
          if [ ! -e "$k/$b" ]; then
            ok=0; say "   p$p $b: missing in kseg's output (kseg has: $(cd "$k" && ls | tr '\n' ' '))"
          elif cmp -s "$f" "$k/$b"; then
            say "   p$p $b identical ($(stat -c %s "$f") bytes)"
          else
            ok=0; say "   p$p $b DIFFERS: real $(stat -c %s "$f") bytes, kseg $(stat -c %s "$k/$b") bytes, $(cmp "$f" "$k/$b" 2>&1 | head -n 1)"
          fi
        done
        if [ -n "$FIXTURES" ]; then
          mkdir -p "$FIXTURES/$name/$name-$p"
          for f in "$r"/*.log "$r"/*.index "$r"/*.timeindex "$r"/*.snapshot; do
            [ -e "$f" ] && cp "$f" "$FIXTURES/$name/$name-$p/"
          done
        fi
      fi
    done
    if [ "$kind" = bytes ] && [ -n "$FIXTURES" ]; then
      printf '%s\n' "${args[@]}" "${state[@]}" >"$FIXTURES/$name/case.txt"
    fi
    if [ "$ok" = 1 ]; then PASS=$((PASS + 1)); say "   PASS";
    elif [ "$kind" = bytes ]; then FAIL=$((FAIL + 1)); say "   FAIL";
    else say "   NEAR (compressed layouts are informational)"; fi
    ;;
  spread)
    "$KSEG" produce --out "$WORK/kseg/$name" "${args[@]}" >/dev/null
    for ((p = 0; p < parts; p++)); do
      kl=$(layout "$WORK/kseg/$name/$name-$p")
      say "   p$p model: $(histo "$kl")   ($(wc -w <<<"$kl") batches)"
      runs=$(spec_get "$spec" runs 1)
      for ((i = 0; i < runs; i++)); do
        rl=$(layout "$REAL/$name-r$i-$p")
        say "   p$p real r$i: $(histo "$rl")   ($(wc -w <<<"$rl") batches, $(agree "$rl" "$kl") positions agree with the model)"
      done
    done
    ;;
  esac
done
[ -z "$OUTFILE" ] || cp "$REPORT" "$OUTFILE"
echo "producer-oracle: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
