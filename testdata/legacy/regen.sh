#!/usr/bin/env bash
# Regenerates the kafka-dump-log goldens for the legacy (magic v0/v1) fixtures in this folder.
# Kafka 4.x cannot write v0/v1, but its kafka-dump-log still reads them, so the fixture bytes are
# built from Kafka's legacy message layouts (see README.md here) and the goldens come from the real tool.
# Usage: bash testdata/legacy/regen.sh   (from anywhere; needs the oracle's jars, oracle/lib)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../oracle/infra/common.sh"
cd "$REPO"
oracle_fetch
dump_class >/dev/null
out=testdata/legacy/golden
rm -rf "$out"
mkdir -p "$out"
manifest=testdata/legacy/MANIFEST.tsv
{
  echo "# kafka-dump-log goldens (Kafka $(kafka_version), $(dump_class)) for the legacy fixtures; same columns as testdata/segments/MANIFEST.tsv."
  echo "# Rows with a non-zero exit are Kafka crashes: stdout and the exit code are compared, stderr (a Java stack trace) is not."
} >"$manifest"
for f in testdata/legacy/*/*.log; do
  name="$(basename "$(dirname "$f")")"
  for set in plain deep data data-skipmeta; do
    case $set in
      plain) args=() ;;
      deep) args=(--deep-iteration) ;;
      data) args=(--print-data-log) ;;
      data-skipmeta) args=(--print-data-log --skip-record-metadata) ;;
    esac
    base="$out/$name.$set"
    rc=0
    dumplog --files "$f" "${args[@]}" >"$base.stdout" 2>"$base.stderr" || rc=$?
    sed -i "s#$REPO#\${REPO}#g" "$base.stdout" "$base.stderr"
    printf '%s\t%s\t%s\t%s\n' "$base.stdout" "$base.stderr" "$rc" "--files $f${args:+ ${args[*]}}" >>"$manifest"
  done
done
echo "wrote $manifest"
