#!/usr/bin/env bash
# Regenerate testdata/segments/ from a real Kafka broker (see testdata/segments/README.md):
#   1. fetch the pinned Kafka jars (oracle/java/pom.xml) and compile oracle/java/src;
#   2. start a single-node KRaft broker in a temp dir, run every workload, stop it cleanly;
#   3. copy the partition directories into testdata/segments/<case>/<topic>-<p>/;
#   4. run kafka-dump-log (DumpLogSegments) from the repo root on every fixture file with the
#      usual option sets, store stdout/stderr under testdata/segments/golden/ and write
#      testdata/segments/MANIFEST.tsv.
# Usage: oracle/regen/segments.sh          (everything)
#        oracle/regen/segments.sh goldens  (step 4 only, on the fixtures already in testdata/segments)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"

T0=$SECONDS

# topic -> case folder
case_of() {
  case "$1" in
    u05-*) echo seed ;;
    codec-*) echo codecs ;;
    txn) echo txn ;;
    idempotent) echo idempotent ;;
    log-append-time) echo logappendtime ;;
    segments) echo segments ;;
    edge) echo edge ;;
    __consumer_offsets | __transaction_state | __cluster_metadata) echo internal ;;
    *) echo "" ;;
  esac
}

produce() {
  oracle_fetch
  oracle_compile
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/kseg-oracle.XXXXXX")"
  trap 'bash "$INFRA/broker.sh" stop "'"$work"'" >/dev/null 2>&1 || true' EXIT
  local bootstrap
  bootstrap="$(bash "$INFRA/broker.sh" start "$work")"
  echo "oracle: broker at $bootstrap in $work" >&2
  workload "$bootstrap" seed codecs idempotent logappendtime segments edge txn groups | tee "$work/workloads.out"
  bash "$INFRA/broker.sh" stop "$work"
  trap - EXIT

  # everything but the hand-written README and tiered/ (oracle/regen/tiered.sh) is regenerated
  mkdir -p "$SEG"
  find "$SEG" -mindepth 1 -maxdepth 1 ! -name README.md ! -name tiered -exec rm -rf {} +
  local d topic c
  for d in "$work"/logs/*-[0-9]*; do
    [ -d "$d" ] || continue
    topic="$(basename "$d")"
    topic="${topic%-*}"
    c="$(case_of "$topic")"
    [ -n "$c" ] || { echo "oracle: unexpected partition dir $d" >&2; exit 1; }
    # internal topics: keep only partitions that hold data
    if [ "$c" = internal ] && ! find "$d" -name '*.log' -size +0 | grep -q .; then
      continue
    fi
    mkdir -p "$SEG/$c"
    cp -r "$d" "$SEG/$c/"
  done
  # The KRaft metadata log keeps its 10 MiB preallocated index files after shutdown (the raft
  # log does not trim them); they are all zeros past the entries and would bloat the corpus.
  rm -f "$SEG"/internal/__cluster_metadata-0/*.index "$SEG"/internal/__cluster_metadata-0/*.timeindex
  chmod -R u+rwX,go+rX "$SEG"
  cp "$work/server.properties" "$SEG/.server.properties.tmp"
  sed -i "s#$work#<WORK>#g" "$SEG/.server.properties.tmp"
  mv "$SEG/.server.properties.tmp" "$SEG/server.properties"
  cp "$work/workloads.out" "$SEG/workloads.out"
  rm -rf "$work"
}

source "$ORACLE/regen/goldens.sh"

# Records-per-batch histogram of each seed partition ("8x25" = 25 batches of 8 records), counted
# from the kafka-dump-log batch lines like the seed article's run.sh (lastOffset-baseOffset+1).
seed_histograms() {
  echo "# seed workloads on disk, from golden/seed/*/00000000000000000000.log.plain.stdout"
  local f
  for f in "$GOLD"/seed/*/00000000000000000000.log.plain.stdout; do
    awk -v p="$(basename "$(dirname "$f")")" '
      /^baseOffset:/ { n = $4 - $2 + 1; c[n]++; tot += n; b++ }
      END {
        s = ""
        # most frequent batch size first, ties by larger batch first
        while (length(c) > 0) {
          best = ""
          for (k in c) if (best == "" || c[k] > c[best] || (c[k] == c[best] && k + 0 > best + 0)) best = k
          s = s " " best "x" c[best]
          delete c[best]
        }
        printf "%s: %d batches, %d records, records per batch:%s\n", p, b, tot, s
      }' "$f"
  done
}

goldens() {
  DUMP_CLASS="$(dump_class)"
  rm -rf "$GOLD"
  golden_init
  local dir
  for dir in $(find "$SEG" -mindepth 2 -maxdepth 2 -type d -not -path "$GOLD*" -not -path "$SEG/tiered/*" | sort); do
    golden_partition "$dir"
  done
  # command-line behaviour: help, version, argument errors, a missing file
  local e=$SEG/edge/edge-0/00000000000000000000
  golden args/no-args
  golden args/help --help
  golden args/version --version
  golden args/missing-files --deep-iteration
  golden args/unknown-option --files "$e.log" --xyz
  golden args/abbreviated-option --files "$e.log" --print
  golden args/equals-form "--files=$e.log" --max-bytes=2000
  golden args/max-bytes --files "$e.log" --max-bytes 2000 --deep-iteration
  golden args/missing-log-file --files "$SEG/edge/edge-0/00000000000000009999.log"
  golden args/space-after-comma --files "$e.index, $e.timeindex"
  wait
  {
    golden_header
    golden_rows
  } >"$SEG/MANIFEST.tsv"
  seed_histograms >"$SEG/SEED-HISTOGRAMS.txt"
  echo "oracle: ${#MANIFEST_ROWS[@]} goldens" >&2
  # testdata/segments/tiered/ comes from its own broker run (oracle/regen/tiered.sh); its goldens too
  if [ -d "$SEG/tiered" ]; then
    bash "$ORACLE/regen/tiered.sh" goldens
  fi
}

if [ "${1:-}" = goldens ]; then
  oracle_fetch
  goldens
else
  produce
  T1=$SECONDS
  goldens
  echo "oracle: workloads+copy $((T1 - T0)) s, goldens $((SECONDS - T1)) s, total $((SECONDS - T0)) s" >&2
fi
