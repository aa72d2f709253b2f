// Compatibility shim for the tiered-storage oracle (oracle/regen/tiered.sh), on the broker's classpath only.
// Maven Central serves no 4.4.0 test jar of kafka-storage, so LocalTieredStorage comes from the 4.3.1
// one; it was compiled against LogContext's old package, which Kafka 4.4 moved to
// org.apache.kafka.common.utils.internals. This subclass restores the old name with the same API.
package org.apache.kafka.common.utils;

public class LogContext extends org.apache.kafka.common.utils.internals.LogContext {
    public LogContext(String logPrefix) {
        super(logPrefix);
    }

    public LogContext() {
        super();
    }
}
