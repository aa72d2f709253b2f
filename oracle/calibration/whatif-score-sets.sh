#!/usr/bin/env bash
# Score one kseg on every what-if data set and, given an earlier run's directory, list the items
# whose verdict changed. No Java needed.
#
#   oracle/calibration/whatif-score-sets.sh --out DIR [--kseg PATH] [--sets "idle busy ..."]
#                                           [--runs N] [--against DIR]
#
# For each set (idle is testdata/whatif, any other name testdata/whatif-NAME; default all six:
# idle busy long heldout heldout2 heldout3) it runs whatif-score.sh with one kseg binary, keeps
# the table in DIR/SET.log and the predictions in DIR/SET/, and prints the set's figures (both
# conditions) and a totals line: medians within tolerance, real runs inside p5-p95, self-checks.
# A model change is judged on all six sets at once (docs/calibration.md), and one set takes 1 to
# 10 minutes on a 2-core machine.
#
#   --out DIR      where the tables and predictions go (created; a set's old results replaced)
#   --kseg PATH    the kseg scored (default: built once from this tree into DIR/kseg)
#   --sets LIST    the sets, space-separated
#   --runs N       kseg whatif --runs (default 200)
#   --against DIR  an earlier run's --out: after the totals, every item whose median or
#                  self-check verdict differs between DIR (A) and this run (B), by set, with both
#                  lines and a count of gains and losses
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="" KSEG_BIN="" SETS="idle busy long heldout heldout2 heldout3" RUNS=200 AGAINST=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift ;;
    --kseg) KSEG_BIN=$2; shift ;;
    --sets) SETS=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --against) AGAINST=$2; shift ;;
    *) sed -n '5,6p' "$0" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$OUT" ] || { sed -n '5,6p' "$0" >&2; exit 2; }
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
cd "$REPO"
if [ -z "$KSEG_BIN" ]; then
  go build -o "$OUT/kseg" .
  KSEG_BIN="$OUT/kseg"
fi
go build -o "$OUT/whatif" ./oracle/whatif
data_of() { if [ "$1" = idle ]; then echo testdata/whatif; else echo "testdata/whatif-$1"; fi; }

# figures prints a table's "all both" line as: medians runs-in-band self-checks (each n/of)
figures() { awk '$1 == "all" && $2 == "both" { print $4, $6, $8 }' "$1"; }

for s in $SETS; do
  data=$(data_of "$s")
  [ -d "$data" ] || { echo "whatif-score-sets: no data set $data" >&2; exit 2; }
  if ! KSEG="$KSEG_BIN" bash oracle/calibration/whatif-score.sh --data "$data" --runs "$RUNS" \
      --keep "$OUT/$s" >"$OUT/$s.log" 2>&1; then
    echo "whatif-score-sets: $s failed; the end of $OUT/$s.log:" >&2
    tail -5 "$OUT/$s.log" >&2
    exit 1
  fi
  read -r med band self < <(figures "$OUT/$s.log")
  printf '%-9s medians %-9s runs in the band %-11s self-checks %s\n' "$s" "$med" "$band" "$self"
done
for s in $SETS; do figures "$OUT/$s.log"; done | awk '
  { for (i = 1; i <= 3; i++) { split($i, f, "/"); n[i] += f[1]; d[i] += f[2] } }
  END { printf "%-9s medians %d/%d  runs in the band %d/%d  self-checks %d/%d\n", "all", n[1], d[1], n[2], d[2], n[3], d[3] }'

[ -n "$AGAINST" ] || exit 0
# items lists a prediction directory's scored items (WHATIF_ITEMS) as KEY<TAB>VERDICT<TAB>LINE,
# the key being group, condition, from→to, run and partition
items() {
  WHATIF_ITEMS=1 "$OUT/whatif" score "$1" "$2" | awk '
    /^group +cond +from/ { on = 1; next }
    on && NF > 0 {
      v = ""
      if ($0 ~ / MEDIAN/) v = v "MEDIAN"
      if ($0 ~ / REPLAY/) v = v " REPLAY"
      printf "%s %s %s %s %s\t%s\t%s\n", $1, $2, $3, $4, $5, v, $0
    }'
}
echo
for s in $SETS; do
  [ -d "$AGAINST/$s" ] || { echo "$s: no $AGAINST/$s to compare with"; continue; }
  data=$(data_of "$s")
  awk -F'\t' -v set="$s" '
    NR == FNR { verdict[$1] = $2; line[$1] = $3; next }
    ($1 in verdict) && verdict[$1] != $2 {
      a = verdict[$1] ~ /MEDIAN/; b = $2 ~ /MEDIAN/
      if (a && !b) gains++
      if (!a && b) losses++
      printf "%s\n  A: %s\n  B: %s\n", set, line[$1], $3
    }
    END { printf "%s: medians gained %d, lost %d (A %s, B this run)\n", set, gains, losses, "'"$AGAINST"'" }
  ' <(items "$data" "$AGAINST/$s") <(items "$data" "$OUT/$s")
done
