#!/bin/bash
# Calibration of producer.DefaultTiming against the real Java producer's runs
# (testdata/producer-envelope/*.json, from oracle/regen/producer-envelope.sh): scores
# each candidate set of timing flags with cmd's TestFitTiming and prints one
# line per candidate, best (lowest score) first.
#
#   oracle/calibration/fit-timing.sh 'default' '--idle-wake-latency=0' ...   # candidates as arguments
#   oracle/calibration/fit-timing.sh < candidates.txt                        # or one per line
#   RUNS=100 CASES=t-slow1ms-l5,t-slow2ms-l5 oracle/calibration/fit-timing.sh ...
#
# score = 10 x (real partition runs outside the model's min–max over RUNS runs)
#       + 10 x (checks whose model median, over MEDIAN_RUNS runs (default 1000),
#               is more than 5% off the real median)
#       + 100 x (sum of those median errors beyond 5%);
# 0 meets issue 11's criterion on every case. The defaults come from
# oracle/calibration/fit-search.py, a seeded random search scored the same way at three seeds
# (docs/calibration.md, "The sender, fitted"); this script compares a few
# hand-picked candidates at one seed.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-200}
median_runs=${MEDIAN_RUNS:-1000}
cases=${CASES:-}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/cmd.test" ./cmd >/dev/null
cands=("$@")
if [ ${#cands[@]} -eq 0 ]; then
  while IFS= read -r l; do [ -n "$l" ] && cands+=("$l"); done
fi
out=$bin/scores
for c in "${cands[@]}"; do
  (cd cmd && KSEG_FIT="$c" KSEG_FIT_RUNS=$runs KSEG_FIT_MEDIAN_RUNS=$median_runs KSEG_FIT_CASES=$cases "$bin/cmd.test" -test.run '^TestFitTiming$' -test.v) \
    | grep '^FIT ' | tee -a "$out" >&2 || true
done
sort -t= -k2 -g "$out"
