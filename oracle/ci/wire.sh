#!/usr/bin/env bash
# kafka:// parity for CI (.ci/run calls it): produce the oracle workloads to a real KRaft broker,
# run `kseg count --json` and `kseg dump --format json` against kafka://, stop the broker, run the
# same commands on its log directory, and require identical output apart from the source and
# position fields, for every partition (codecs, transactions with aborts and an open transaction,
# idempotent and not, LogAppendTime, compacted, a batch larger than the fetch size, a topic of
# 1,000 partitions). The wire reads
# are repeated with a fetch size small enough to split batches across responses. Then the error
# cases: a missing topic and an unreachable broker give one error line and exit 3; then
# oracle/ci/wire-secure.sh (SASL_PLAINTEXT and SASL_SSL listeners), oracle/ci/wire-cluster.sh (a
# 3-node cluster losing a node mid-run) and oracle/ci/wire-txn.sh (hanging transactions: audit and
# report judge them alike).
# Last line: "oracle-wire: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"

oracle_fetch
oracle_compile

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kseg-wire.XXXXXX")"
cleanup() {
  bash "$INFRA/broker.sh" stop "$WORK" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

KSEG="$WORK/kseg"
go build -o "$KSEG" .

wire_workload() {
  "$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" WireWorkloads "$@"
}

B="$(bash "$INFRA/broker.sh" start "$WORK")"
echo "oracle-wire: broker at $B"
workload "$B" seed codecs idempotent logappendtime edge txn groups
wire_workload "$B" big compacted many 1000
workload "$B" killed-txn # last: halts its JVM with a transaction open

PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }

OUT="$WORK/out"
mkdir -p "$OUT"
SRC="kafka://$B/.*"
"$KSEG" count --json "$SRC" >"$OUT/count.wire"
"$KSEG" count --json --fetch-bytes 300 "$SRC" >"$OUT/count.wire300"
"$KSEG" dump --format json --deep-iteration --print-data-log "$SRC" >"$OUT/dump.wire"
"$KSEG" dump --format json --deep-iteration --fetch-bytes 300 "$SRC" >"$OUT/dump.wire300"
# A named partition and an offset range read the same batches as the files from that offset.
"$KSEG" dump --format json --from 50 --to 120 "kafka://$B/u05-small/0" >"$OUT/range.wire"
# A range that cuts a batch: over the wire only the records in [from, to) are printed, the cut
# batch's line says so, and the source keeps its kafka:// form (not cleaned to "kafka:/" as a path).
"$KSEG" dump --deep-iteration --from 50 --to 52 "kafka://$B/u05-small/0" >"$OUT/cut.wire" 2>"$OUT/cut.wire.err"
"$KSEG" dump --format json --deep-iteration --from 50 --to 52 "kafka://$B/u05-small/0" >"$OUT/cut.wire.json" 2>"$OUT/cut.wire.json.err"

# The CI check of batching the README shows, with no files: count over the wire with an expected
# histogram (the one the wire count itself found) passes, and a wrong one exits 1.
hist=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("topic") == "u05-small" and o.get("partition") == 0:
        print(o["histogram"])' "$OUT/count.wire")
rc=0
"$KSEG" count "kafka://$B/u05-small/0" --expect-histogram "$hist" >"$OUT/expect.ok" 2>&1 || rc=$?
if [ -n "$hist" ] && [ "$rc" = 0 ]; then pass; else fail "count --expect-histogram '$hist' over the wire: exit $rc: $(cat "$OUT/expect.ok")"; fi
rc=0
"$KSEG" count "kafka://$B/u05-small/0" --expect-histogram "1x1" >"$OUT/expect.bad" 2>&1 || rc=$?
if [ "$rc" = 1 ]; then pass; else fail "count --expect-histogram 1x1 over the wire: exit $rc, want 1"; fi

# Audit over the wire: the killed producer's transaction is open in the log and at its coordinator
# (600 s timeout): unterminated-transaction (exit 1), and neither txn-unknown-to-coordinator nor
# txn-past-timeout, which a failed coordinator lookup would give.
rc=0
"$KSEG" audit --json "kafka://$B/live-killed" >"$OUT/audit.killed" 2>&1 || rc=$?
if [ "$rc" = 1 ] && grep -q '"unterminated-transaction"' "$OUT/audit.killed" && ! grep -q '"txn-' "$OUT/audit.killed"; then
  pass
else
  fail "audit live-killed over the wire: exit $rc: $(head -c 600 "$OUT/audit.killed")"
fi

# whatif over the wire (read below from the broker's directories too, once it has stopped): the
# settings each seed topic was written with, and one change.
whatif_case() { # NAME SOURCE... : kseg whatif with the case's settings, stdout/stderr/exit in OUT
  local name=$1 rc=0
  shift
  case "$name" in
    u05-default) set -- "$@" --was linger.ms=5 --was batch.size=16384 --set linger.ms=20 ;;
    u05-sticky) set -- "$@" --was linger.ms=1000 --was batch.size=1024 --set batch.size=16384 ;;
  esac
  "$KSEG" whatif "$@" --runs 20 --json >"$OUT/whatif-$name.$WHERE" 2>"$OUT/whatif-$name.$WHERE.err" || rc=$?
  echo "$rc" >"$OUT/whatif-$name.$WHERE.rc"
}
WHERE=wire
whatif_case u05-default "kafka://$B/u05-default"
whatif_case u05-sticky "kafka://$B/u05-sticky"

# Error cases: one line on stderr, exit 3.
errcase() {
  local name=$1 want=$2
  shift 2
  local rc=0
  "$KSEG" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
  if [ "$rc" = 3 ] && [ "$(grep -c '^kseg: error:' "$OUT/$name.err")" = 1 ] && grep -q -- "$want" "$OUT/$name.err"; then
    pass
  else
    fail "$name: exit $rc, stderr: $(cat "$OUT/$name.err")"
  fi
}
errcase missing-topic "no such topic" count "kafka://$B/no-such-topic"
errcase missing-partition "has no partition 7" count "kafka://$B/u05-small/7"
DEAD="127.0.0.1:$(( $(echo "$B" | cut -d: -f2) + 1 ))"
errcase unreachable "cannot reach the cluster" count "kafka://$DEAD/u05-small"

bash "$INFRA/broker.sh" stop "$WORK"
LOGS="$WORK/logs"
"$KSEG" count --json "$LOGS" >"$OUT/count.files"
"$KSEG" dump --format json --deep-iteration --print-data-log "$LOGS" >"$OUT/dump.files"
"$KSEG" dump --format json --deep-iteration "$LOGS" >"$OUT/dump.files300"

WHERE=files
whatif_case u05-default "$LOGS"/u05-default-*
whatif_case u05-sticky "$LOGS"/u05-sticky-*

cmpcase() {
  local kind=$1 w=$2 f=$3
  if python3 "$ORACLE/ci/wire-compare.py" "$kind" "$w" "$f" >"$w.cmp"; then
    pass
    tail -n 1 "$w.cmp"
  else
    fail "$kind $(basename "$w"): $(head -n 5 "$w.cmp")"
  fi
}
cmpcase count "$OUT/count.wire" "$OUT/count.files"
cmpcase count "$OUT/count.wire300" "$OUT/count.files"
cmpcase dump "$OUT/dump.wire" "$OUT/dump.files"
cmpcase dump "$OUT/dump.wire300" "$OUT/dump.files300"
# The range: the files' batches of u05-small-0 that hold offsets 50..119.
PYTHONPATH="$ORACLE/ci" python3 - "$OUT/dump.files" "$OUT/range.files" <<'PY'
import json, sys
from dumpjson import objs_of
with open(sys.argv[2], "w") as out:
    for o in objs_of(open(sys.argv[1])):
        if o.get("type") == "batch" and "/u05-small-0/" in o["file"] and o["last_offset"] >= 50 and o["base_offset"] < 120:
            out.write(json.dumps(o) + "\n")
PY
cmpcase dump "$OUT/range.wire" "$OUT/range.files"
# The cut range (see cut.wire above): records 50 and 51 only; every batch the files show around
# them that holds an offset outside 50..51 carries the note, text and JSON alike.
if PYTHONPATH="$ORACLE/ci" python3 - "$B" "$OUT/dump.files" "$OUT/cut.wire" "$OUT/cut.wire.json" "$OUT/cut.wire.err" "$OUT/cut.wire.json.err" >"$OUT/cut.cmp" <<'PY'
import json, re, sys
from dumpjson import objs_of
b, files, text, js = sys.argv[1:5]
errs = "".join(open(f).read() for f in sys.argv[5:])
bad = []
# Batches of u05-small-0 in the files that hold offset 50 or 51; those that also hold others are cut.
want = [(o["base_offset"], o["last_offset"]) for o in objs_of(open(files))
        if o.get("type") == "batch" and "/u05-small-0/" in o["file"] and o["last_offset"] >= 50 and o["base_offset"] < 52]
cut = {w for w in want if w[0] < 50 or w[1] > 51}
if not want:
    bad.append("the files have no batch of u05-small-0 holding offsets 50..51")
t = open(text).read()
if re.search(r"kafka:/(?!/)", t + errs):
    bad.append("a kafka:/ with a single slash (the URL cleaned as a path)")
dumping = [l for l in t.splitlines() if l.startswith("Dumping ")]
if not dumping or any(not l.startswith("Dumping kafka://" + b + "/") for l in dumping):
    bad.append("Dumping lines %r, want kafka://%s/..." % (dumping, b))
recs = [int(m) for m in re.findall(r"(?m)^\| offset: (\d+) ", t)]
if recs != [50, 51]:
    bad.append("text: record offsets %r, want [50, 51]" % recs)
note = " kseg-shown: records at offsets 50..51 only (--from/--to)"
for m in re.finditer(r"(?m)^baseOffset: (\d+) lastOffset: (\d+) .*$", t):
    w = (int(m.group(1)), int(m.group(2)))
    if (w in cut) != (note in m.group(0)):
        bad.append("text: batch %d..%d: %s note: %s" % (w + ("want a" if w in cut else "no", m.group(0))))
if {(int(m.group(1)), int(m.group(2))) for m in re.finditer(r"(?m)^baseOffset: (\d+) lastOffset: (\d+) ", t)} != set(want):
    bad.append("text: batches differ from the files' %r" % want)
objs = list(objs_of(open(js)))
recs = [o["offset"] for o in objs if o.get("type") == "record"]
if recs != [50, 51]:
    bad.append("json: record offsets %r, want [50, 51]" % recs)
batches = [o for o in objs if o.get("type") == "batch"]
if {(o["base_offset"], o["last_offset"]) for o in batches} != set(want):
    bad.append("json: batches differ from the files' %r" % want)
for o in batches:
    w = (o["base_offset"], o["last_offset"])
    shown = (o.get("shown_from"), o.get("shown_to"))
    if shown != ((50, 52) if w in cut else (None, None)):
        bad.append("json: batch %d..%d: shown_from/shown_to %r" % (w + (shown,)))
    if not o.get("file", "").startswith("kafka://" + b + "/"):
        bad.append("json: file %r" % o.get("file"))
print("\n".join(bad) or "cut range: records 50..51 of %d batch(es), %d cut" % (len(want), len(cut)))
sys.exit(1 if bad else 0)
PY
then
  pass
  tail -n 1 "$OUT/cut.cmp"
else
  fail "dump --from 50 --to 52 over the wire: $(head -n 5 "$OUT/cut.cmp")"
fi

# The same answer from the broker as from its files (the same seed, so the same runs), and a real
# one: a prediction for every partition, not a refusal made alike on both sides.
for t in u05-default u05-sticky; do
  w="$OUT/whatif-$t.wire" f="$OUT/whatif-$t.files"
  parts=$(grep -c '"type":"whatif"' "$f" || true)
  if [ "$(cat "$w.rc")" = 0 ] && [ "$(cat "$f.rc")" = 0 ] && cmp -s "$w" "$f" && [ "$parts" -ge 1 ]; then
    pass
    echo "oracle-wire: whatif $t: kafka:// and the files agree ($parts partition predictions)"
  else
    fail "whatif $t: exit $(cat "$w.rc") over the wire, $(cat "$f.rc") on the files; $(diff "$w" "$f" | head -n 4); $(head -c 300 "$w.err" "$f.err")"
  fi
done

# Every kind of partition the issue names was read (a workload that silently produced nothing
# would otherwise pass).
many=$(grep -c '"topic":"wire-many"' "$OUT/count.wire" || true)
if [ "$many" = 1000 ]; then pass; else fail "wire-many: $many partitions read over the wire, want 1000"; fi
for t in codec-gzip codec-zstd txn live-killed idempotent log-append-time wire-compacted wire-big u05-keyed; do
  if grep -q "\"topic\":\"$t\"" "$OUT/count.wire"; then pass; else fail "topic $t not read over the wire"; fi
done

# Secured listeners: SASL_PLAINTEXT/PLAIN and SASL_SSL/SCRAM-SHA-512 with certificates made here.
if bash "$ORACLE/ci/wire-secure.sh" "$KSEG" >"$OUT/secure.log" 2>&1; then
  pass
  tail -n 1 "$OUT/secure.log"
else
  fail "wire-secure: $(grep FAIL "$OUT/secure.log" | head -n 5; tail -n 3 "$OUT/secure.log")"
fi

# A 3-node cluster with a node stopped mid-run (SIGTERM, then SIGKILL of another).
if bash "$ORACLE/ci/wire-cluster.sh" "$KSEG" >"$OUT/cluster.log" 2>&1; then
  pass
  grep '^wire-cluster: ' "$OUT/cluster.log" | tail -n 3
else
  fail "wire-cluster: $(grep FAIL "$OUT/cluster.log" | head -n 5; tail -n 3 "$OUT/cluster.log")"
fi

# Hanging transactions: kseg audit and kseg report judge them alike against the coordinators.
if bash "$ORACLE/ci/wire-txn.sh" >"$OUT/txn.log" 2>&1; then
  pass
  tail -n 1 "$OUT/txn.log"
else
  fail "wire-txn: $(grep -A 20 FAIL "$OUT/txn.log" | head -n 25; tail -n 3 "$OUT/txn.log")"
fi

echo "oracle-wire: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
