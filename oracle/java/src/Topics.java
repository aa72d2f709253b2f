// Topic creation shared by the oracle programs.
//
// CreateTopics returns once the controller has committed the topic, before the broker has made
// itself leader of the new partitions. An idempotent producer that sends at once can then lose
// its first request to NOT_LEADER_OR_FOLLOWER while a later in-flight request to the same
// partition is appended; Kafka 4.4.0 accepts any first sequence on a partition without producer
// state, so every retry of the first request fails with OUT_OF_ORDER_SEQUENCE_NUMBER until
// delivery.timeout.ms expires it (KAFKA-15591; the fix ships in Kafka 4.5). Waiting until every partition
// answers ListOffsets as leader, the same leader check Produce makes, closes that window.

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

final class Topics {
    private Topics() {}

    static final long READY_TIMEOUT_MS = 120_000;

    /** Creates the topics and returns once every partition has a leader that serves it. */
    static void create(String bootstrap, List<NewTopic> topics) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            create(admin, topics);
        }
    }

    static void create(Admin admin, List<NewTopic> topics) throws Exception {
        admin.createTopics(topics).all().get(READY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        List<TopicPartition> partitions = new ArrayList<>();
        for (NewTopic t : topics) {
            for (int i = 0; i < t.numPartitions(); i++) partitions.add(new TopicPartition(t.name(), i));
        }
        awaitLeaders(admin, partitions);
    }

    static void awaitLeaders(Admin admin, List<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartition tp : partitions) latest.put(tp, OffsetSpec.latest());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw new RuntimeException("partitions " + partitions + " have no serving leader after "
                + READY_TIMEOUT_MS + " ms", last);
    }
}
