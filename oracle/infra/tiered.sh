# Tiered-storage broker helpers, shared by oracle/regen/tiered.sh (the fixtures of
# testdata/segments/tiered/) and oracle/ci/tiered.sh (the live CI check). Source it after
# oracle/infra/common.sh; do not run it.
#   tiered_props DIR         broker settings for LocalTieredStorage under DIR/remote
#   tiered_broker_start DIR  fetch, compile, start such a broker in DIR; prints the bootstrap address
#   tiered_workload ARGS...  run oracle/java/src/Tiered.java against it

# tiered_props DIR: the broker settings for tiered storage with remote storage under DIR/remote
tiered_props() {
  cat <<PROPS
remote.log.storage.system.enable=true
remote.log.storage.manager.class.name=org.apache.kafka.server.log.remote.storage.LocalTieredStorage
remote.log.storage.manager.impl.prefix=rsm.config.
rsm.config.dir=$1/remote
remote.log.metadata.manager.impl.prefix=rlmm.config.
rlmm.config.remote.log.metadata.topic.replication.factor=1
rlmm.config.remote.log.metadata.topic.num.partitions=1
remote.log.metadata.manager.listener.name=PLAINTEXT
remote.log.manager.task.interval.ms=500
log.retention.check.interval.ms=1000
share.coordinator.state.topic.num.partitions=1
PROPS
}

# tiered_broker_start DIR: start a tiered-storage broker in DIR; prints the bootstrap address
tiered_broker_start() {
  oracle_fetch
  oracle_compile
  "$JAVAC" -nowarn -d "$ORACLE/classes" -cp "$ORACLE/lib/*" "$ORACLE"/java/src/shim/org/apache/kafka/common/utils/LogContext.java
  BROKER_EXTRA_PROPS="$(tiered_props "$1")" BROKER_EXTRA_CP="$ORACLE/classes" bash "$INFRA/broker.sh" start "$1"
}

tiered_workload() {
  "$JAVA" -Xmx256m -cp "$ORACLE/classes:$ORACLE/lib/*" \
    -Dlog4j2.configurationFile="$INFRA/log4j2-client.properties" Tiered "$@"
}
