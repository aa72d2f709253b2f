#!/usr/bin/env python3
"""Seeded random local search over the sender's timing settings of `kseg produce`.

The fitting half of the calibration behind producer.DefaultTiming (docs/calibration.md, "The sender,
fitted"). Each candidate is scored by cmd's TestFitTiming (see oracle/calibration/fit-timing.sh
for the score) at each of --seeds (default 1, 7 and 11), and the mean is kept: the range
over --runs model runs per case (default 200, the test's), the model's median over
--median-runs (default 1000, the test's; with 200 the median of a partition of a few batches
sits on one side of a one-batch boundary or the other by the seed). A step
multiplies one to three settings by exp(N(0, 0.35)) within their bounds and is kept when the
mean score does not get worse. The application thread's settings are not searched here: they
are fitted first to its progress through the real bursts (KSEG_FIT_BURST=1, the PROGRESS lines
and the FIT line's progress=).

    oracle/calibration/fit-search.py --start FILE.json [--iters N] [--rng N] [--best FILE.json]
                        [--runs N] [--median-runs N] [--seeds 1,7,11] [--cases A,B]

--start is a JSON object of the settings to search and where to start them, {"wake-latency":
6000, ...} (durations in microseconds; a setting of SEARCHED that it leaves out keeps its
default and is not searched; oracle/calibration/fit-search-defaults.json holds the defaults); the best state
so far is written to --best.
Needs go and python3; runs in the repository's cmd/ directory.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# name: (lower bound, upper bound, unit); durations in microseconds.
SEARCHED = {
    "wake-latency": (500, 30000, "us"),
    "cold-close": (1000, 60000, "us"),
    "loop-cost": (100, 4000, "us"),
    "close-cost": (30, 1500, "us"),
    "cold-rtt": (1000, 80000, "us"),
    "first-rtt": (0, 90000, "us"),
    "cold-close-decay": (0.2, 4.0, ""),
    "sender-run-jitter": (0.1, 1.6, ""),
    "sender-jitter": (0.2, 1.6, ""),
    "cold-jitter": (0.2, 2.2, ""),
    "rtt-jitter": (0.05, 1.2, ""),
    "idle-sender-factor": (0.005, 0.6, ""),
    "idle-rtt-factor": (0.1, 1.0, ""),
    "idle-sender-jitter": (0.2, 1.6, ""),
    "idle-sender-run-jitter": (0.05, 1.6, ""),
    "cold-close-compressed": (0, 30000, "us"),
    "idle-pause-every": (20, 2000, ""),
    "idle-wake-latency": (0, 3000, "us"),
    "pause-mean": (200, 8000, "us"),
}


def flags(state):
    out = []
    for k, v in sorted(state.items()):
        unit = SEARCHED[k][2]
        out.append(f"--{k}={int(round(v))}{unit}" if unit else f"--{k}={v:.3g}")
    return " ".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--start", required=True)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--rng", type=int, default=1)
    ap.add_argument("--best", default="fit-search-best.json")
    ap.add_argument("--runs", type=int, default=200, help="model runs per case and seed that give the range")
    ap.add_argument("--median-runs", type=int, default=1000, help="model runs that give the model's median")
    ap.add_argument("--seeds", default="1,7,11", help="seeds whose scores are averaged")
    ap.add_argument("--cases", default="", help="comma-separated cases to score (default all)")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    tmp = tempfile.mkdtemp()
    binary = os.path.join(tmp, "cmd.test")
    subprocess.run(["go", "test", "-c", "-o", binary, "./cmd"], cwd=root, check=True)
    state = json.load(open(a.start))
    unknown = sorted(set(state) - set(SEARCHED))
    if unknown:
        sys.exit(f"--start: not searched settings: {unknown}")
    searched = sorted(state)

    def score1(fl, seed):
        env = dict(os.environ, KSEG_FIT=(fl + f" --seed {seed}").strip(), KSEG_FIT_RUNS=str(a.runs),
                   KSEG_FIT_MEDIAN_RUNS=str(a.median_runs), KSEG_FIT_CASES=a.cases)
        r = subprocess.run([binary, "-test.run", "^TestFitTiming$"], cwd=os.path.join(root, "cmd"),
                           env=env, capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if line.startswith("FIT "):
                return float(line.split()[1].split("=")[1]), line
        sys.exit("TestFitTiming gave no score:\n" + r.stdout[-2000:] + r.stderr[-2000:])

    pool = ThreadPoolExecutor(2)

    seeds = [int(x) for x in a.seeds.split(",")]

    def score(st):
        fl = flags(st)
        res = list(pool.map(lambda s: score1(fl, s), seeds))
        return sum(r[0] for r in res) / len(res), [r[1] for r in res]

    best, lines = score(state)
    print(f"START {best:.1f} {flags(state)}", flush=True)
    rng = random.Random(a.rng)
    for it in range(a.iters):
        cand = dict(state)
        for k in rng.sample(searched, min(len(searched), rng.choice([1, 1, 2, 3]))):
            lo, hi, _ = SEARCHED[k]
            v = cand[k] if cand[k] > 0 else hi / 100  # a setting at 0 (off) first steps from 1% of its range
            cand[k] = min(hi, max(lo, v * math.exp(rng.gauss(0, 0.35))))
        s, lines = score(cand)
        print(f"IT {it} {s:.1f} (best {best:.1f})", flush=True)
        if s <= best:
            best, state = s, cand
            with open(a.best, "w") as f:
                json.dump(state, f)
            print(f"IT {it} BEST {best:.1f} {flags(state)}", flush=True)
            for line in lines:
                print("   ", line[:160], flush=True)
    print(f"END {best:.1f} {flags(state)}", flush=True)


if __name__ == "__main__":
    main()
