// Workloads for the kafka:// parity check (oracle/ci/wire.sh), beside Workloads.java's:
//
//   java -cp oracle/classes:oracle/lib/* WireWorkloads BOOTSTRAP WORKLOAD...
//
//   compacted  a compacted topic whose older segments the log cleaner has rewritten (waits for it)
//   big        a topic holding one batch of about 3 MiB between small ones (fetch-size tests)
//   many N     a topic of N partitions (default 1000), one record in each

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class WireWorkloads {
    static String bootstrap;

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: WireWorkloads BOOTSTRAP WORKLOAD...");
            System.exit(2);
        }
        bootstrap = args[0];
        for (int i = 1; i < args.length; i++) {
            long start = System.nanoTime();
            String w = args[i];
            switch (w) {
                case "compacted": compacted(); break;
                case "big": big(); break;
                case "many": {
                    int n = 1000;
                    if (i + 1 < args.length && args[i + 1].matches("\\d+")) n = Integer.parseInt(args[++i]);
                    many(n);
                    break;
                }
                default:
                    System.err.println("unknown workload " + w);
                    System.exit(2);
            }
            System.out.printf("wire workload %s done in %d ms%n", w, (System.nanoTime() - start) / 1_000_000);
        }
    }

    static Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    static void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        Topics.create(bootstrap, List.of(new NewTopic(name, partitions, (short) 1).configs(configs)));
    }

    static KafkaProducer<byte[], byte[]> producer(Map<String, String> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    static byte[] b(String s) { return s.getBytes(java.nio.charset.StandardCharsets.UTF_8); }

    static long logSize(Admin a, TopicPartition tp) throws Exception {
        long n = 0;
        for (Map<String, LogDirDescription> byDir : a.describeLogDirs(List.of(1)).allDescriptions().get().values()) {
            for (LogDirDescription d : byDir.values()) {
                ReplicaInfo r = d.replicaInfos().get(tp);
                if (r != null) n += r.size();
            }
        }
        return n;
    }

    // Keys overwritten over several rolled segments, then waited on until the cleaner has
    // shrunk the log: the cleaned segments hold batches with gaps in their offsets.
    static void compacted() throws Exception {
        String topic = "wire-compacted";
        createTopic(topic, 1, Map.of("cleanup.policy", "compact", "segment.ms", "300",
                "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0",
                "delete.retention.ms", "0", "file.delete.delay.ms", "0"));
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> p = producer(Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"))) {
            for (int round = 0; round < 4; round++) {
                List<Future<RecordMetadata>> fs = new ArrayList<>();
                for (int k = 0; k < 20; k++) {
                    if (k % (round + 1) != 0) continue; // later rounds overwrite fewer keys: cleaned batches keep gaps
                    fs.add(p.send(new ProducerRecord<>(topic, b("key-" + k), b("round " + round + " value " + k))));
                }
                if (round == 2) fs.add(p.send(new ProducerRecord<>(topic, b("key-3"), null))); // a tombstone
                for (Future<RecordMetadata> f : fs) f.get();
                Thread.sleep(400); // the next append rolls the segment
            }
            p.send(new ProducerRecord<>(topic, b("last"), b("rolls the last dirty segment"))).get();
        }
        try (Admin a = admin()) {
            long before = logSize(a, tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (logSize(a, tp) >= before) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the log cleaner did not run in 90 s");
                Thread.sleep(500);
            }
            Thread.sleep(1000); // let the cleaner finish its pass
        }
    }

    // One batch of about 3 MiB (incompressible values) between small batches.
    static void big() throws Exception {
        String topic = "wire-big";
        createTopic(topic, 1, Map.of("max.message.bytes", "8388608"));
        Random rnd = new Random(42);
        try (KafkaProducer<byte[], byte[]> p = producer(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "8388608",
                ProducerConfig.BATCH_SIZE_CONFIG, "4194304", ProducerConfig.LINGER_MS_CONFIG, "200"))) {
            p.send(new ProducerRecord<>(topic, b("small-before"), b("x"))).get();
            List<Future<RecordMetadata>> fs = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                byte[] v = new byte[100_000];
                rnd.nextBytes(v);
                fs.add(p.send(new ProducerRecord<>(topic, b("big-" + i), v)));
            }
            for (Future<RecordMetadata> f : fs) f.get();
            p.send(new ProducerRecord<>(topic, b("small-after"), b("y"))).get();
        }
    }

    static void many(int n) throws Exception {
        String topic = "wire-many";
        createTopic(topic, n, Map.of());
        try (KafkaProducer<byte[], byte[]> p = producer(Map.of())) {
            List<Future<RecordMetadata>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) fs.add(p.send(new ProducerRecord<>(topic, i, null, b("partition " + i))));
            for (Future<RecordMetadata> f : fs) f.get();
        }
    }
}
