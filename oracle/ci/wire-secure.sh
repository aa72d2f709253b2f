#!/usr/bin/env bash
# kafka:// over secured listeners (oracle/ci/wire.sh runs it): one KRaft broker on 127.0.0.1 with
# a SASL_PLAINTEXT listener (PLAIN) and a SASL_SSL listener (SCRAM-SHA-512, a certificate from a CA
# this script makes), beside PLAINTEXT for the workload. kseg count and dump through each secured
# listener, with --command-config and with the plain flags, must equal the PLAINTEXT reads; a
# wrong password, a wrong CA and a missing topic give one error line each and exit 3, and the
# password is in no output.
# Usage: oracle/ci/wire-secure.sh KSEG   Last line: "wire-secure: N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../infra/common.sh"
KSEG="$1"

DIR="$(mktemp -d "${TMPDIR:-/tmp}/kseg-wire-secure.XXXXXX")"
PID=""
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID"
    for _ in $(seq 1 120); do kill -0 "$PID" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$PID" 2>/dev/null || true
  fi
  rm -rf "$DIR"
}
trap cleanup EXIT

# Certificates: a CA, the broker's certificate for 127.0.0.1 signed by it, and an unrelated CA.
cd "$DIR"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=kseg test CA" -keyout ca.key -out ca.pem 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=kseg other CA" -keyout other.key -out other-ca.pem 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout broker.key -out broker.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out broker.crt 2>/dev/null
# Kafka's PEM keystore wants a PKCS#8 key.
openssl pkcs8 -topk8 -nocrypt -in broker.key -out broker.p8
cat broker.p8 broker.crt >broker.pem

P0=$(free_port "$DIR/ports"); P1=$(free_port "$DIR/ports"); P2=$(free_port "$DIR/ports"); PC=$(free_port "$DIR/ports")
PASSWORD="alice-$RANDOM-secret"
cat >server.properties <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$PC
listeners=PLAINTEXT://127.0.0.1:$P0,SASL_PLAINTEXT://127.0.0.1:$P1,SASL_SSL://127.0.0.1:$P2,CONTROLLER://127.0.0.1:$PC
advertised.listeners=PLAINTEXT://127.0.0.1:$P0,SASL_PLAINTEXT://127.0.0.1:$P1,SASL_SSL://127.0.0.1:$P2
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="$PASSWORD";
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
ssl.keystore.type=PEM
ssl.keystore.location=$DIR/broker.pem
ssl.client.auth=none
log.dirs=$DIR/logs
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
PROPS
"$JAVA" -cp "$ORACLE/lib/*" -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
  kafka.tools.StorageTool format --cluster-id a3NlZy13aXJlLXNlY3VyZQ --config server.properties \
  --add-scram "SCRAM-SHA-512=[name=alice,password=$PASSWORD]" >format.out 2>&1 || { cat format.out >&2; exit 1; }
nohup "$JAVA" -Xmx384m -Xms128m -Dkafka.logs.dir="$DIR" -Dlog4j2.configurationFile="$INFRA/log4j2-broker.properties" \
  -cp "$ORACLE/lib/*" kafka.Kafka server.properties >broker.out 2>&1 </dev/null &
PID=$!
for _ in $(seq 1 120); do
  grep -q "Kafka Server started" broker.log 2>/dev/null && break
  kill -0 "$PID" 2>/dev/null || { tail -n 30 broker.out >&2; exit 1; }
  sleep 0.5
done
grep -q "Kafka Server started" broker.log || { echo "secure broker not ready" >&2; exit 1; }
echo "wire-secure: broker at PLAINTEXT $P0, SASL_PLAINTEXT $P1, SASL_SSL $P2"
workload "127.0.0.1:$P0" codecs idempotent >/dev/null

cat >plain.properties <<EOF2
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="$PASSWORD";
EOF2
cat >scram.properties <<EOF2
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="$PASSWORD";
ssl.truststore.type=PEM
ssl.truststore.location=$DIR/ca.pem
EOF2
sed "s/password=\"$PASSWORD\"/password=\"wrong-$PASSWORD-x\"/" scram.properties >wrong-password.properties
sed "s#$DIR/ca.pem#$DIR/other-ca.pem#" scram.properties >wrong-ca.properties

PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
noleak() { # FILE...: the password is in none of them
  if grep -q -- "$PASSWORD" "$@"; then fail "the password is printed in $*"; else pass; fi
}

T=".*" # every topic the workloads made
"$KSEG" count --json "kafka://127.0.0.1:$P0/$T" >count.plaintext
"$KSEG" dump --format json --deep-iteration "kafka://127.0.0.1:$P0/$T" >dump.plaintext
same() { # NAME KIND FILE
  if python3 "$ORACLE/ci/wire-compare.py" "$2" "$2.plaintext" "$3" >"$3.cmp"; then pass; else fail "$1: $(head -n 3 "$3.cmp")"; fi
}
run() { # NAME KIND ARGS...: a read that must succeed and equal the PLAINTEXT one
  local name=$1 kind=$2 rc=0
  shift 2
  "$KSEG" "$@" >"$name.out" 2>"$name.err" || rc=$?
  if [ "$rc" != 0 ]; then fail "$name: exit $rc: $(cat "$name.err")"; return; fi
  same "$name" "$kind" "$name.out"
  noleak "$name.out" "$name.err"
}
run plain-config count count --json --command-config plain.properties "kafka://127.0.0.1:$P1/$T"
run scram-config count count --json --command-config scram.properties "kafka://127.0.0.1:$P2/$T"
run scram-config-dump dump dump --format json --deep-iteration --command-config scram.properties "kafka://127.0.0.1:$P2/$T"
KSEG_SASL_PASSWORD="$PASSWORD" run scram-flags count count --json --tls --tls-ca ca.pem \
  --sasl-mechanism SCRAM-SHA-512 --sasl-user alice "kafka://127.0.0.1:$P2/$T"
KSEG_SASL_PASSWORD="$PASSWORD" run plain-flags count count --json --sasl-mechanism PLAIN --sasl-user alice "kafka://127.0.0.1:$P1/$T"

errcase() { # NAME WANT ARGS...: one error line naming WANT, exit 3, no password anywhere
  local name=$1 want=$2 rc=0
  shift 2
  "$KSEG" "$@" >"$name.out" 2>"$name.err" || rc=$?
  if [ "$rc" = 3 ] && [ "$(grep -c '^kseg: error:' "$name.err")" = 1 ] && grep -q -- "$want" "$name.err"; then
    pass
  else
    fail "$name: exit $rc, stderr: $(cat "$name.err")"
  fi
  noleak "$name.out" "$name.err"
  echo "wire-secure: $name: $(grep '^kseg: error:' "$name.err" | head -n 1)"
}
errcase wrong-password "authentication failed" count --command-config wrong-password.properties "kafka://127.0.0.1:$P2/codec-gzip"
KSEG_SASL_PASSWORD="nope-$PASSWORD" errcase wrong-password-plain "authentication failed" count --sasl-mechanism PLAIN --sasl-user alice "kafka://127.0.0.1:$P1/codec-gzip"
errcase wrong-ca "TLS handshake failed" count --command-config wrong-ca.properties "kafka://127.0.0.1:$P2/codec-gzip"
errcase missing-topic "no such topic" count --command-config scram.properties "kafka://127.0.0.1:$P2/no-such-topic"
errcase no-sasl "cannot reach\|authentication failed\|TLS" count --tls --tls-ca ca.pem "kafka://127.0.0.1:$P2/codec-gzip"

echo "wire-secure: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
