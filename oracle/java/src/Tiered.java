// Tiered-storage and share-group workloads for the kseg oracle (oracle/regen/tiered.sh). The broker runs
// with remote storage enabled (LocalTieredStorage); these programs drive it with the real clients.
//
//   java -cp oracle/classes:oracle/lib/* Tiered BOOTSTRAP LOGDIR WORKLOAD...
//
// Workloads:
//   tiered  topic "tiered" (remote.storage.enable, 16 KiB segments, local retention 1 s): produce,
//           wait until older segments were copied to remote storage and deleted locally, then
//           read everything back from offset 0 (the oldest records come from remote storage).
//   share   share group "kseg-share" (KIP-932) on topic "shared": explicit acknowledgement,
//           most records accepted, some released and redelivered, some rejected.

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class Tiered {
    private static String bootstrap;
    private static File logDir;

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: Tiered BOOTSTRAP LOGDIR WORKLOAD...");
            System.exit(2);
        }
        bootstrap = args[0];
        logDir = new File(args[1]);
        for (int i = 2; i < args.length; i++) {
            long start = System.nanoTime();
            switch (args[i]) {
                case "tiered": tiered(); break;
                case "share": share(); break;
                default:
                    System.err.println("unknown workload " + args[i]);
                    System.exit(2);
            }
            System.out.printf("workload %s done in %d ms%n", args[i], (System.nanoTime() - start) / 1_000_000);
        }
    }

    static Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    static void createTopic(String name, Map<String, String> configs) throws Exception {
        Topics.create(bootstrap, List.of(new NewTopic(name, 1, (short) 1).configs(configs)));
    }

    static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
        return new KafkaProducer<>(p);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static long firstLocalOffset(String partitionDir) {
        File[] logs = new File(logDir, partitionDir).listFiles((d, n) -> n.endsWith(".log"));
        long min = Long.MAX_VALUE;
        if (logs != null) {
            for (File f : logs) min = Math.min(min, Long.parseLong(f.getName().substring(0, 20)));
        }
        return min;
    }

    // ---------------------------------------------------------------- tiered

    static void tiered() throws Exception {
        String topic = "tiered";
        Map<String, String> cfg = new HashMap<>();
        cfg.put("remote.storage.enable", "true");
        cfg.put("internal.segment.bytes", "16384");
        cfg.put("index.interval.bytes", "1500");
        cfg.put("local.retention.ms", "1000");
        cfg.put("retention.ms", "-1");
        cfg.put("file.delete.delay.ms", "0");
        createTopic(topic, cfg);
        int n = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.partitionsFor(topic);
            for (int round = 0; round < 16; round++) {
                for (int i = 0; i < 25; i++, n++) {
                    producer.send(new ProducerRecord<>(topic, b("t-" + n), b(("tiered record " + n + " ").repeat(5)))).get();
                }
                Thread.sleep(10);
            }
        }
        // Wait until some older segments exist only in remote storage.
        long deadline = System.currentTimeMillis() + 90_000;
        long first;
        while ((first = firstLocalOffset(topic + "-0")) == 0 || first == Long.MAX_VALUE) {
            if (System.currentTimeMillis() > deadline) throw new RuntimeException("no segment was tiered and deleted locally");
            Thread.sleep(500);
        }
        System.out.println("tiered: first local offset " + first + " of " + n);
        // Stop copying now: a later copy would race the fixture snapshot. Local retention off.
        try (Admin admin = admin()) {
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            admin.incrementalAlterConfigs(Map.of(r, List.of(
                    new AlterConfigOp(new ConfigEntry("local.retention.ms", "-2"), AlterConfigOp.OpType.SET))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        // Read back from offset 0: the records below the first local offset come from remote storage.
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        int got = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seek(tp, 0);
            long expect = 0;
            deadline = System.currentTimeMillis() + 60_000;
            while (got < n && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.offset() != expect) throw new RuntimeException("read back offset " + r.offset() + ", want " + expect);
                    expect++;
                    got++;
                }
            }
        }
        if (got != n) throw new RuntimeException("read back " + got + " of " + n + " records");
        System.out.println("tiered: read back " + got + " records from offset 0");
    }

    // ---------------------------------------------------------------- share group

    static void share() throws Exception {
        String topic = "shared";
        createTopic(topic, Map.of());
        try (Admin admin = admin()) {
            // share groups start at the latest offset by default; read from the start
            ConfigResource g = new ConfigResource(ConfigResource.Type.GROUP, "kseg-share");
            admin.incrementalAlterConfigs(Map.of(g, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        int n = 60;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(topic, b("s-" + i), b("share record " + i)));
            }
            producer.flush();
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "kseg-share");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put("share.acknowledgement.mode", "explicit");
        int accepted = 0, rejected = 0, released = 0;
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60_000;
            while (accepted + rejected < n && System.currentTimeMillis() < deadline) {
                ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    long o = r.offset();
                    if (o % 10 == 3) {
                        c.acknowledge(r, AcknowledgeType.REJECT);
                        rejected++;
                    } else if (o % 10 == 7 && r.deliveryCount().orElse((short) 1) < 2) {
                        c.acknowledge(r, AcknowledgeType.RELEASE); // redelivered later
                        released++;
                    } else {
                        c.acknowledge(r, AcknowledgeType.ACCEPT);
                        accepted++;
                    }
                }
                if (!recs.isEmpty()) c.commitSync();
            }
        }
        if (accepted + rejected != n) throw new RuntimeException("share group settled " + (accepted + rejected) + " of " + n);
        System.out.printf("share: accepted %d, rejected %d, released %d%n", accepted, rejected, released);
    }
}
