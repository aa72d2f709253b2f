#!/usr/bin/env bash
# Regenerate testdata/segments/ from a real Kafka broker (see testdata/segments/README.md):
#   1. fetch the pinned Kafka jars (oracle/pom.xml) and compile oracle/src;
#   2. start a single-node KRaft broker in a temp dir, run every workload, stop it cleanly;
#   3. copy the partition directories into testdata/segments/<case>/<topic>-<p>/;
#   4. run kafka-dump-log (DumpLogSegments) from the repo root on every fixture file with the
#      usual option sets, store stdout/stderr under testdata/segments/golden/ and write
#      testdata/segments/MANIFEST.tsv.
# Usage: oracle/regen.sh            (everything)
#        oracle/regen.sh goldens    (step 4 only, on the fixtures already in testdata/segments)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"

SEG=testdata/segments
GOLD=$SEG/golden
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
  trap 'bash "$ORACLE/broker.sh" stop "'"$work"'" >/dev/null 2>&1 || true' EXIT
  local bootstrap
  bootstrap="$(bash "$ORACLE/broker.sh" start "$work")"
  echo "oracle: broker at $bootstrap in $work" >&2
  workload "$bootstrap" seed codecs idempotent logappendtime segments edge txn groups | tee "$work/workloads.out"
  bash "$ORACLE/broker.sh" stop "$work"
  trap - EXIT

  # everything but the hand-written README is regenerated
  mkdir -p "$SEG"
  find "$SEG" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
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

# shell-quote one argument only when needed
q() {
  if [[ "$1" =~ ^[A-Za-z0-9_./,=:+-]+$ ]]; then printf '%s' "$1"; else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}

MANIFEST_ROWS=()
RCDIR=""
JOBS="${ORACLE_JOBS:-2}"
# golden NAME ARG...: run kafka-dump-log ARG... (in the background, $JOBS at a time) and store
# NAME.stdout / NAME.stderr; the exit code goes to the manifest.
golden() {
  local name="$1"
  shift
  local out="$GOLD/$name.stdout" err="$GOLD/$name.stderr" id=${#MANIFEST_ROWS[@]}
  mkdir -p "$(dirname "$out")"
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  (
    rc=0
    dumplog "$@" >"$out" 2>"$err" || rc=$?
    # Kafka prints absolute paths in its summaries; make them repo-relative with a placeholder.
    sed -i "s#$REPO/#\${REPO}/#g" "$out" "$err"
    echo "$rc" >"$RCDIR/$id"
  ) &
  local args="" a
  for a in "$@"; do args+="${args:+ }$(q "$a")"; done
  MANIFEST_ROWS+=("$out"$'\t'"$err"$'\t'"@RC@"$'\t'"$args")
}

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
  RCDIR="$(mktemp -d "${TMPDIR:-/tmp}/kseg-rc.XXXXXX")"
  local dir rel c topic f base ext decoder
  for dir in $(find "$SEG" -mindepth 2 -maxdepth 2 -type d -not -path "$GOLD*" | sort); do
    rel="${dir#"$SEG"/}"
    c="${rel%%/*}"
    topic="$(basename "$dir")"
    topic="${topic%-*}"
    decoder=""
    case "$topic" in
      __consumer_offsets) decoder=--offsets-decoder ;;
      __transaction_state) decoder=--transaction-log-decoder ;;
      __cluster_metadata) decoder=--cluster-metadata-decoder ;;
    esac
    local all=()
    for f in $(find "$dir" -maxdepth 1 -type f | sort); do
      base="$(basename "$f")"
      ext="${base##*.}"
      [ "$base" = "$ext" ] && ext=""
      case "$ext" in
        log | checkpoint)
          all+=("$f")
          golden "$rel/$base.plain" --files "$f"
          golden "$rel/$base.deep" --files "$f" --deep-iteration
          golden "$rel/$base.data" --files "$f" --print-data-log
          golden "$rel/$base.data-skipmeta" --files "$f" --print-data-log --skip-record-metadata
          if [ -n "$decoder" ]; then
            golden "$rel/$base.${decoder#--}" --files "$f" "$decoder"
            golden "$rel/$base.${decoder#--}-skipmeta" --files "$f" "$decoder" --skip-record-metadata
          fi
          ;;
        index | timeindex)
          all+=("$f")
          golden "$rel/$base.plain" --files "$f"
          golden "$rel/$base.verify" --files "$f" --verify-index-only
          golden "$rel/$base.sanity" --files "$f" --index-sanity-check
          ;;
        txnindex | snapshot)
          all+=("$f")
          golden "$rel/$base.plain" --files "$f"
          ;;
        *)
          # leader-epoch-checkpoint, partition.metadata, quorum-state: only for a few dirs
          if [ "$c" = edge ] || [ "$c" = internal ]; then
            golden "$rel/$base.plain" --files "$f"
          fi
          ;;
      esac
    done
    # all segment files of the partition in one run (summaries at the end cover them all)
    local joined
    joined="$(IFS=,; echo "${all[*]}")"
    golden "$rel/ALL.plain" --files "$joined"
    golden "$rel/ALL.deep" --files "$joined" --deep-iteration
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
    printf '# kafka-dump-log goldens from Apache Kafka %s (class %s), run from the repo root.\n' "$(kafka_version)" "$DUMP_CLASS"
    printf '# Columns (tab-separated): golden stdout file, golden stderr file, exit code, arguments (shell-quoted).\n'
    printf '# All paths are relative to the repo root. In the goldens, ${REPO} stands for the absolute path of the\n'
    printf '# repo root where Kafka printed an absolute path (e.g. "Mismatches in :${REPO}/testdata/...");\n'
    printf '# substitute it (or replace your own absolute prefix with ${REPO}) before comparing.\n'
    printf '# Exit code 1 rows (golden/args/: usage errors and crashes) end stderr with a JVM stack trace whose\n'
    printf '# java.base frames depend on the JDK that ran the tool (OpenJDK 17): compare the first stderr line.\n'
    printf '# Regenerate with: make oracle (oracle/regen.sh). See testdata/segments/README.md.\n'
    local i
    for i in "${!MANIFEST_ROWS[@]}"; do
      printf '%s\n' "${MANIFEST_ROWS[$i]/@RC@/$(cat "$RCDIR/$i")}"
    done
  } >"$SEG/MANIFEST.tsv"
  rm -rf "$RCDIR"
  seed_histograms >"$SEG/SEED-HISTOGRAMS.txt"
  echo "oracle: ${#MANIFEST_ROWS[@]} goldens" >&2
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
