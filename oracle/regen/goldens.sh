# kafka-dump-log golden helpers shared by oracle/regen/segments.sh and oracle/regen/tiered.sh. Source it after
# oracle/infra/common.sh, from the repo root, with DUMP_CLASS set (dump_class).
SEG=testdata/segments
GOLD=$SEG/golden

# shell-quote one argument only when needed
q() {
  if [[ "$1" =~ ^[A-Za-z0-9_./,=:+-]+$ ]]; then printf '%s' "$1"; else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}

MANIFEST_ROWS=()
RCDIR=""
JOBS="${ORACLE_JOBS:-2}"

golden_init() {
  MANIFEST_ROWS=()
  RCDIR="$(mktemp -d "${TMPDIR:-/tmp}/kseg-rc.XXXXXX")"
}

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

# golden_decoder TOPIC: kafka-dump-log's decoder option for an internal topic, or nothing
golden_decoder() {
  case "$1" in
    __consumer_offsets) echo --offsets-decoder ;;
    __transaction_state) echo --transaction-log-decoder ;;
    __cluster_metadata) echo --cluster-metadata-decoder ;;
    __remote_log_metadata) echo --remote-log-metadata-decoder ;;
    __share_group_state) echo --share-group-state-decoder ;;
  esac
}

# golden_partition DIR: the goldens of every file of one fixture partition directory
golden_partition() {
  local dir="$1" rel c topic decoder f base ext
  rel="${dir#"$SEG"/}"
  c="${rel%%/*}"
  topic="$(basename "$dir")"
  topic="${topic%-*}"
  decoder="$(golden_decoder "$topic")"
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
}

golden_header() {
  printf '# kafka-dump-log goldens from Apache Kafka %s (class %s), run from the repo root.\n' "$(kafka_version)" "$DUMP_CLASS"
  printf '# Columns (tab-separated): golden stdout file, golden stderr file, exit code, arguments (shell-quoted).\n'
  printf '# All paths are relative to the repo root. In the goldens, ${REPO} stands for the absolute path of the\n'
  printf '# repo root where Kafka printed an absolute path (e.g. "Mismatches in :${REPO}/testdata/...");\n'
  printf '# substitute it (or replace your own absolute prefix with ${REPO}) before comparing.\n'
  printf '# Exit code 1 rows (golden/args/: usage errors and crashes) end stderr with a JVM stack trace whose\n'
  printf '# java.base frames depend on the JDK that ran the tool (OpenJDK 17): compare the first stderr line.\n'
  printf '# Regenerate with: make oracle (oracle/regen/segments.sh). See testdata/segments/README.md.\n'
}

# golden_rows: the manifest rows of the goldens made since golden_init (call after wait)
golden_rows() {
  local i
  for i in "${!MANIFEST_ROWS[@]}"; do
    printf '%s\n' "${MANIFEST_ROWS[$i]/@RC@/$(cat "$RCDIR/$i")}"
  done
  rm -rf "$RCDIR"
}

# golden_merge_manifest PREFIX: replace the MANIFEST.tsv rows whose stdout starts with PREFIX by
# the rows made since golden_init (call after wait); the other rows stay as they are.
golden_merge_manifest() {
  local prefix="$1" tmp
  tmp="$(mktemp)"
  {
    awk -F'\t' -v p="$prefix" 'index($1, p) != 1' "$SEG/MANIFEST.tsv"
    golden_rows
  } >"$tmp"
  mv "$tmp" "$SEG/MANIFEST.tsv"
  echo "oracle: ${#MANIFEST_ROWS[@]} goldens under $prefix" >&2
}
