#!/usr/bin/env bash
# Open transactions judged by the cluster's coordinators (oracle/ci/wire.sh runs it): one KRaft
# broker on 127.0.0.1 that lets a transactional batch in without checking that its partition is in
# a transaction (transaction.partition.verification.enable=false, as brokers before KIP-890 did)
# and does not abort timed-out transactions while the test runs. cmd's TestLiveHangingTransaction
# leaves a transaction open there past its timeout and writes one under a producer id no
# coordinator knows (a hanging transaction), then requires kseg audit kafka:// and kseg report
# kafka:// to give the same findings, txn-past-timeout and txn-unknown-to-coordinator among them.
# Last line: "wire-txn: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kseg-wire-txn.XXXXXX")"
cleanup() {
  bash "$INFRA/broker.sh" stop "$WORK" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

B="$(BROKER_EXTRA_PROPS='transaction.partition.verification.enable=false
transaction.abort.timed.out.transaction.cleanup.interval.ms=3600000' bash "$INFRA/broker.sh" start "$WORK")"
echo "wire-txn: broker at $B"

PASS=0
FAIL=0
if KSEG_TXN_BROKER="$B" go test -count=1 -run '^TestLiveHangingTransaction$' -v ./cmd/ >"$WORK/test.out" 2>&1 &&
  grep -q -- '--- PASS: TestLiveHangingTransaction' "$WORK/test.out"; then
  PASS=$((PASS + 1))
  grep 'kseg audit:' "$WORK/test.out" || true
else
  FAIL=$((FAIL + 1))
  echo "FAIL TestLiveHangingTransaction:"
  tail -n 30 "$WORK/test.out"
fi
echo "wire-txn: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
