#!/usr/bin/env bash
# Parity on files kseg did not write: runs kafka-dump-log and `./kseg dump` with the same
# arguments on every Kafka file of the real-world corpus (a directory beside the repository, or
# $KSEG_REALWORLD: brokers from 0.10 to 3.6, magic 1 logs, KRaft metadata, compacted offsets,
# follower indexes) and requires identical stdout, stderr and exit status. Where Kafka crashes
# (an index without its .log), stdout and a non-zero exit must match; the stack trace is not
# compared. Skips when the corpus is absent. Last line: "realworld-parity: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
cd "$REPO"
CORPUS="${KSEG_REALWORLD:-$REPO/../shared/realworld}/segments"
if [ ! -d "$CORPUS" ]; then
  echo "realworld-parity: no corpus at $CORPUS, skipped"
  exit 0
fi
oracle_fetch
dump_class >/dev/null
KSEG="$REPO/kseg"
[ -x "$KSEG" ] || go build -o "$KSEG" .
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kseg-rw.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PASS=0 FAIL=0 n=0
check() {
  n=$((n + 1))
  local k="$WORK/$n" krc=0 grc=0
  dumplog "$@" >"$k.k.out" 2>"$k.k.err" || krc=$?
  "$KSEG" dump "$@" >"$k.g.out" 2>"$k.g.err" || grc=$?
  local same=0
  if cmp -s "$k.k.out" "$k.g.out"; then
    if [ "$krc" = 0 ] && [ "$grc" = 0 ] && cmp -s "$k.k.err" "$k.g.err"; then
      same=1
    elif [ "$krc" != 0 ] && [ "$grc" != 0 ]; then
      same=1
    fi
  fi
  if [ $same = 1 ]; then
    PASS=$((PASS + 1))
  else
    FAIL=$((FAIL + 1))
    echo "FAIL: kseg dump $* (exit kafka=$krc kseg=$grc)"
    diff "$k.k.out" "$k.g.out" | head -n 6 | sed 's/^/  stdout /' || true
    diff "$k.k.err" "$k.g.err" | head -n 6 | sed 's/^/  stderr /' || true
  fi
}
cd "$CORPUS"
while IFS= read -r f; do
  case "$f" in
    *__consumer_offsets*.log) check --files "$f"; check --files "$f" --offsets-decoder ;;
    *__remote_log_metadata*.log) check --files "$f"; check --files "$f" --remote-log-metadata-decoder ;;
    *__share_group_state*.log) check --files "$f"; check --files "$f" --share-group-state-decoder ;;
    *__cluster_metadata*.log|*.checkpoint) check --files "$f" --deep-iteration; check --files "$f" --cluster-metadata-decoder ;;
    *.log) check --files "$f"; check --files "$f" --deep-iteration; check --files "$f" --print-data-log ;;
    *.index|*.timeindex) check --files "$f"; check --files "$f" --verify-index-only ;;
    *.snapshot|*.txnindex) check --files "$f" ;;
  esac
done < <(find . -type f -size -4M \( -name '*.log' -o -name '*.checkpoint' -o -name '*.index' -o -name '*.timeindex' -o -name '*.snapshot' -o -name '*.txnindex' \) | sed 's#^\./##' | sort)
# Several files in one run: the end-of-run summaries come in kafka-dump-log's HashMap order of
# their absolute paths. Every log of a project, then its logs with the indexes that have one.
for d in */; do
  d="${d%/}"
  logs="$(find "$d" -type f -size -4M -name '*.log' | sort)"
  [ "$(echo "$logs" | grep -c .)" -ge 2 ] || continue
  check --files "$(echo "$logs" | paste -sd, -)" --deep-iteration
  with="$(for l in $logs; do for e in log index timeindex; do if [ -f "${l%.log}.$e" ]; then echo "${l%.log}.$e"; fi; done; done)"
  check --files "$(echo "$with" | paste -sd, -)" --deep-iteration
done
echo "realworld-parity: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
