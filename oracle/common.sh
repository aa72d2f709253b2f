# Shared helpers for the oracle scripts. Source it; do not run it.
# ORACLE = this folder, REPO = the repository root.
ORACLE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$ORACLE/.." && pwd)"
JAVA="${JAVA:-java}"
JAVAC="${JAVAC:-javac}"
# The one class that is kafka-dump-log in the pinned release (the Java rewrite, kafka-tools jar).
DUMP_CLASS=org.apache.kafka.tools.DumpLogSegments

kafka_version() {
  sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$ORACLE/pom.xml"
}

# fetch: copy the pinned Kafka jars into oracle/lib (skipped when lib matches the pom).
oracle_fetch() {
  local stamp="$ORACLE/lib/.stamp" want
  want="$(sha256sum "$ORACLE/pom.xml" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  echo "oracle: fetching Kafka $(kafka_version) from Maven Central" >&2
  rm -rf "$ORACLE/lib"
  (cd "$ORACLE" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib) >&2
  echo "$want" >"$stamp"
}

# compile: javac the workload programs in oracle/src into oracle/classes.
oracle_compile() {
  rm -rf "$ORACLE/classes"
  mkdir -p "$ORACLE/classes"
  "$JAVAC" -nowarn -encoding UTF-8 -d "$ORACLE/classes" -cp "$ORACLE/lib/*" "$ORACLE"/src/*.java
}

# dumplog ARGS...: run kafka-dump-log (DumpLogSegments) with log4j silent, from the current directory.
dumplog() {
  "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -cp "$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$ORACLE/log4j2-quiet.properties" \
    "$DUMP_CLASS" "$@"
}

# workload BOOTSTRAP NAME...: run workload programs against the broker.
workload() {
  "$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$ORACLE/log4j2-client.properties" \
    Workloads "$@"
}
