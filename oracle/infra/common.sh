# Shared helpers for the oracle scripts. Source it; do not run it.
# ORACLE = the oracle/ folder (this file is oracle/infra/common.sh), REPO = the repository root.
# Under ORACLE: infra/ (this file, broker.sh, log4j2 configs), java/ (pom.xml, src/), and the
# git-ignored lib/ (the Kafka jars, oracle_fetch) and classes/ (oracle_compile).
ORACLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$ORACLE/.." && pwd)"
INFRA="$ORACLE/infra"
JAVA="${JAVA:-java}"
JAVAC="${JAVAC:-javac}"
# kafka-dump-log's main class: the Java rewrite org.apache.kafka.tools.DumpLogSegments (kafka-tools
# jar, Kafka 4.3 and later; 4.4.0 is pinned) or the Scala kafka.tools.DumpLogSegments (kafka_2.13
# jar, up to 4.2). Detected from the jars so that changing the pinned version is one edit.
dump_class() {
  if [ -z "${DUMP_CLASS:-}" ]; then
    if "${JAVA%java}javap" -cp "$ORACLE/lib/*" org.apache.kafka.tools.DumpLogSegments >/dev/null 2>&1; then
      DUMP_CLASS=org.apache.kafka.tools.DumpLogSegments
    else
      DUMP_CLASS=kafka.tools.DumpLogSegments
    fi
  fi
  echo "$DUMP_CLASS"
}

# port_free PORT: nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port [RESERVED]: prints a random free port on 127.0.0.1, below the kernel's ephemeral
# range (ip_local_port_range) where it can: a port in that range can be taken as the local end of
# any outgoing connection between the check and the broker's bind. With RESERVED (a file), the
# port is also not listed there and is then appended to it: ports taken in subshells, before any
# broker listens on them, are not handed out twice.
free_port() {
  local p reserved=${1:-} lo=20000 span=40000 eph
  eph=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true)
  if [ -n "$eph" ] && [ "$eph" -gt 12000 ]; then
    lo=10000 span=$((eph - 10000))
  fi
  for _ in $(seq 1 200); do
    p=$((lo + (RANDOM * 32768 + RANDOM) % span))
    port_free "$p" || continue
    if [ -n "$reserved" ]; then
      ! grep -qx "$p" "$reserved" 2>/dev/null || continue
      echo "$p" >>"$reserved"
    fi
    echo "$p"
    return 0
  done
  echo "no free port found" >&2
  return 1
}

kafka_version() {
  sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$ORACLE/java/pom.xml"
}

# fetch: copy the pinned Kafka jars into oracle/lib (skipped when lib matches the pom).
oracle_fetch() {
  local stamp="$ORACLE/lib/.stamp" want
  want="$(sha256sum "$ORACLE/java/pom.xml" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  echo "oracle: fetching Kafka $(kafka_version) from Maven Central" >&2
  rm -rf "$ORACLE/lib"
  (cd "$ORACLE/java" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$ORACLE/lib") >&2
  echo "$want" >"$stamp"
}

# compile: javac the workload programs in oracle/java/src into oracle/classes.
oracle_compile() {
  rm -rf "$ORACLE/classes"
  mkdir -p "$ORACLE/classes"
  "$JAVAC" -nowarn -encoding UTF-8 -d "$ORACLE/classes" -cp "$ORACLE/lib/*" "$ORACLE"/java/src/*.java
}

# dumplog ARGS...: run kafka-dump-log (DumpLogSegments) with log4j silent, from the current directory.
dumplog() {
  "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -cp "$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$INFRA/log4j2-quiet.properties" \
    "${DUMP_CLASS:?call dump_class first}" "$@"
}

# workload BOOTSTRAP NAME...: run workload programs against the broker.
workload() {
  "$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" \
    Workloads "$@"
}
