#!/bin/bash
# Regenerates the kafka-dump-log goldens for cmd/corrupt_test.go: writes each
# corrupt case's files (built by TestCorruptWriteFixtures from the
# real-world corpus and testdata/segments) to a temporary directory, runs
# Kafka's DumpLogSegments on them from inside that directory, and records
# stdout (<case>.stdout), the exit status (<case>.exit) and the first line
# of stderr (<case>.stderr1, for the record; the tests do not compare it).
#
# Needs the Kafka 4.4.0 jars: KAFKA_LIB (default the repository's oracle/lib, see oracle/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${KAFKA_LIB:-$root/oracle/lib}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && KSEG_CORRUPT_DIR="$work" go test -count=1 -run '^TestCorruptWriteFixtures$' ./cmd/ >/dev/null)
for dir in "$work"/*/; do
  name=$(basename "$dir")
  # The dumped file is the one TestCorruptFiles dumps: the case's first file,
  # which is the only one not named *.log unless the case has just a log.
  file=$(cd "$dir" && ls | grep -v '\.log$' | head -1 || true)
  [ -n "$file" ] || file=00000000000000000000.log
  set +e
  (cd "$dir" && java -cp "$lib/*" org.apache.kafka.tools.DumpLogSegments --files "$file" --deep-iteration --print-data-log \
     >"$here/$name.stdout" 2>"$work/$name.err")
  echo $? >"$here/$name.exit"
  set -e
  head -1 "$work/$name.err" | sed "s#$work/##g" >"$here/$name.stderr1"
  echo "$name: exit $(cat "$here/$name.exit") $(cat "$here/$name.stderr1")"
done
