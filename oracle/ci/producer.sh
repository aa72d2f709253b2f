#!/usr/bin/env bash
# CI check of kseg's reference producer against the real Java producer + broker: the --quick subset
# of oracle/regen/producer-compare.sh (size-cut cases compared byte for byte, two codecs by layout), about
# a minute on 2 cores. Prints the comparison and a final line "producer-oracle: N passed, M failed";
# exits non-zero when a case fails or the harness itself fails.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out=$(mktemp)
bash "$here/../regen/producer-compare.sh" --quick >"$out" 2>&1
rc=$?
grep -v '^Note: ' "$out"
last=$(tail -n 1 "$out")
rm -f "$out"
if [[ "$last" != producer-oracle:* ]]; then
  echo "producer-oracle: 0 passed, 1 failed (harness error, exit $rc)"
  exit 1
fi
exit "$rc"
