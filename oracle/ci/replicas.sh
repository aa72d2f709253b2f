#!/usr/bin/env bash
# kseg replicas against a real unclean leader election (Kafka 4.4.0, oracle/infra/replicas.sh: a
# controller and three brokers). rep-0 on brokers 1 2 3 (leader 1): 50 records; broker 3 stopped;
# 50 more (1, 2); broker 2 stopped; 30 more (1 only); broker 1 stopped; broker 3 started and
# elected unclean; 20 records to it; every broker's copy taken ("before"); brokers 1 and 2 started:
# they truncate and follow 3; copies taken again ("after"). Checks:
#   - on the before copies, each divergence of 3 with 1 and with 2 is at the offset and epoch the
#     rejoining broker's log says it truncated to ("Truncating partition rep-0 with
#     TruncationState(offset=O...) ... leaderEpoch=E");
#   - the only_on runs of brokers 1 and 2 are exactly the batches that vanished from them, as
#     kafka-dump-log lists the before and after copies (base offset, last offset, CRC);
#   - exit 1 before, 0 after;
#   - kafka://.../rep/0 (each replica read from its own broker) gives the same report as the
#     after copies: per copy log start and end, batches, records, epochs from the batches, the
#     pairs' verdicts; the leader's epochs (OffsetForLeaderEpoch) equal its leader-epoch-checkpoint.
# Usage: oracle/ci/replicas.sh [KSEG]   Last line: "replicas: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
source "$INFRA/replicas.sh"
KSEG="${1:-}"
if [ -z "$KSEG" ]; then
  KSEG="$REPO/kseg"
  (cd "$REPO" && go build -o kseg .)
fi
DIR="$(mktemp -d "${TMPDIR:-/tmp}/kseg-replicas-ci.XXXXXX")"
trap 'rc_stop_all; rm -rf "$DIR"' EXIT
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); echo "replicas: ok: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "replicas: FAIL: $*"; }

rc_setup
rc_create rep unclean.leader.election.enable=true
rc_wait_isr rep 3
rc_produce rep 50
sleep 2
rc_stop 3
rc_produce rep 50
sleep 2
rc_stop 2
rc_produce rep 30
sleep 1
rc_stop 1
rc_start 3
rc_elect_unclean rep 3
rc_produce rep 20
sleep 2
for i in 1 2 3; do rc_copy "$i" rep "$DIR/before/n$i"; done
rc_start 1
rc_start 2
rc_wait_isr rep 3
sleep 3
for i in 1 2 3; do rc_copy "$i" rep "$DIR/after/n$i"; done
for i in 1 2; do grep -h "Truncating partition rep-0 .*due to leader epoch" "$DIR/n$i/broker.log" | tail -n 1 >"$DIR/trunc$i"; done

rc=0
"$KSEG" replicas --json "$DIR"/before/n{1,2,3}/rep-0 >"$DIR/before.json" || rc=$?
[ "$rc" = 1 ] && pass "before: exit 1 (diverged)" || fail "before: exit $rc"
rc=0
"$KSEG" replicas --json "$DIR"/after/n{1,2,3}/rep-0 >"$DIR/after.json" || rc=$?
[ "$rc" = 0 ] && pass "after: exit 0 (agree)" || fail "after: exit $rc"
rc=0
"$KSEG" replicas --json "kafka://$(rc_boot)/rep/0" >"$DIR/live.json" 2>"$DIR/live.err" || rc=$?
[ "$rc" = 0 ] && pass "live: exit 0" || fail "live: exit $rc: $(cat "$DIR/live.err")"

dump_class >/dev/null
for i in 1 2; do
  for s in before after; do
    (cd "$DIR/$s/n$i/rep-0" && dumplog --files 00000000000000000000.log) >"$DIR/dump-$s-$i.txt"
  done
done

python3 - "$DIR" <<'EOF' || FAIL=$((FAIL + 1))
import json, re, sys, os
d = sys.argv[1]
def lines(p):
    return [json.loads(l) for l in open(p) if l.strip()]
before, after, live = lines(f"{d}/before.json"), lines(f"{d}/after.json"), lines(f"{d}/live.json")
ok = True
def check(cond, msg):
    global ok
    print(("replicas: ok: " if cond else "replicas: FAIL: ") + msg)
    ok = ok and cond
def name(p, i):
    return f"{d}/{p}/n{i}/rep-0"
def batches(p):
    out = []
    for l in open(p):
        m = re.search(r"baseOffset: (\d+) lastOffset: (\d+) .*crc: (\d+)", l)
        if m:
            out.append(tuple(int(x) for x in m.groups()))
    return out
for i in (1, 2):
    t = open(f"{d}/trunc{i}").read()
    m = re.search(r"TruncationState\(offset=(\d+).*leaderEpoch=(\d+), endOffset=(\d+)", t)
    check(m is not None, f"broker {i} logged its truncation: {t.strip()[:160]}")
    if not m:
        continue
    off, ep = int(m.group(1)), int(m.group(2))
    dv = [x for x in before if x["type"] == "divergence" and set(x["copies"]) == {name("before", i), name("before", 3)}]
    check(len(dv) == 1 and dv[0]["offset"] == off and dv[0]["epoch"] == ep and dv[0]["truncate_to"] == off,
          f"broker {i} vs 3: divergence at offset {off}, epoch {ep} (broker {i} truncated to {off}, epoch {ep}): {dv}")
    check(len(dv) == 1 and dv[0]["loses"] == name("before", i), f"broker {i} loses: {dv[0].get('loses') if dv else None}")
    vanished = sorted(set(batches(f"{d}/dump-before-{i}.txt")) - set(batches(f"{d}/dump-after-{i}.txt")))
    runs = [x for x in before if x["type"] == "only_on" and x["copy"] == name("before", i) and x["vs"] == name("before", 3)]
    got = (min(r["first_offset"] for r in runs), max(r["last_offset"] for r in runs), sum(r["batches"] for r in runs)) if runs else None
    want = (vanished[0][0], vanished[-1][1], len(vanished)) if vanished else None
    check(got == want and sum(r["records"] for r in runs) == vanished[-1][1] - vanished[0][0] + 1,
          f"broker {i}: only_on {got} = the batches that vanished from it (kafka-dump-log before/after) {want}")
# live vs files, after the rejoin
def norm(rows, names):
    out = []
    for x in rows:
        x = dict(x)
        for k in ("copy", "vs"):
            if k in x:
                x[k] = names.get(x[k], x[k])
        if "copies" in x:
            x["copies"] = sorted(names.get(c, c) for c in x["copies"])
        if x["type"] == "replica":
            x = {k: x[k] for k in ("copy", "log_start", "log_end", "batch_epochs", "first_offset", "batches", "records")}
        elif x["type"] == "pair":
            x = {k: x.get(k) for k in ("copies", "status", "common_start", "shared_batches")}
        out.append(json.dumps(x, sort_keys=True))
    return sorted(out)
fnames = {name("after", i): f"n{i}" for i in (1, 2, 3)}
lnames = {f"broker-{i}": f"n{i}" for i in (1, 2, 3)}
a, l = norm(after, fnames), norm(live, lnames)
check(a == l, "kafka:// gives the same report as the after copies" + ("" if a == l else f"\n  files: {a}\n  live:  {l}"))
lead = [x for x in live if x["type"] == "replica" and x.get("leader")]
ckpt = [x for x in after if x["type"] == "replica" and x["copy"] == name("after", 3)]
check(len(lead) == 1 and lead[0]["epochs_from"] == "OffsetForLeaderEpoch" and ckpt and lead[0]["epochs"] == ckpt[0]["epochs"],
      f"the leader's epochs over the wire equal its leader-epoch-checkpoint: {lead[0]['epochs'] if lead else None} vs {ckpt[0]['epochs'] if ckpt else None}")
sys.exit(0 if ok else 1)
EOF
[ "$FAIL" = 0 ] && PASS=$((PASS + 1))
if [ "$FAIL" != 0 ]; then
  for f in before after live; do echo "--- $f.json"; cat "$DIR/$f.json"; done
fi
echo "replicas: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
