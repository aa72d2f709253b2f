// Workload programs for the kseg oracle: they drive the real Kafka Java clients against a
// broker started by oracle/infra/broker.sh, so that testdata/segments/ holds bytes written by Kafka.
//
//   java -cp oracle/classes:oracle/lib/* Workloads BOOTSTRAP WORKLOAD...
//
// Workloads: seed codecs idempotent logappendtime segments edge txn groups live
// Every workload creates its own topics (1 partition unless said otherwise).

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class Workloads {
    private static String bootstrap;

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: Workloads BOOTSTRAP WORKLOAD...");
            System.exit(2);
        }
        bootstrap = args[0];
        for (String w : Arrays.asList(args).subList(1, args.length)) {
            long start = System.nanoTime();
            switch (w) {
                case "seed": seed(); break;
                case "codecs": codecs(); break;
                case "idempotent": idempotent(); break;
                case "logappendtime": logAppendTime(); break;
                case "segments": segments(); break;
                case "edge": edge(); break;
                case "txn": txn("txn", "kseg-txn"); break;
                case "groups": groups(); break;
                case "live": live(); break;
                case "killed-txn": killedTxn(); break;
                default:
                    System.err.println("unknown workload " + w);
                    System.exit(2);
            }
            System.out.printf("workload %s done in %d ms%n", w, (System.nanoTime() - start) / 1_000_000);
        }
    }

    // ---------------------------------------------------------------- helpers

    static void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        Topics.create(bootstrap, List.of(new NewTopic(name, partitions, (short) 1).configs(configs)));
    }

    static void createTopic(String name) throws Exception {
        createTopic(name, 1, Map.of());
    }

    static Properties producerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    static byte[] b(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** Collects the first asynchronous send failure; check() rethrows it. */
    static final class Errors {
        final AtomicReference<Exception> first = new AtomicReference<>();

        org.apache.kafka.clients.producer.Callback cb() {
            return (md, e) -> {
                if (e != null) first.compareAndSet(null, e);
            };
        }

        void check(String what) {
            if (first.get() != null) throw new RuntimeException(what + ": send failed", first.get());
        }
    }

    // ---------------------------------------------------------------- seed (example 1-1 and 1-2)

    /** The seed article's Batching.java: count 100-byte values under one producer setting. */
    static void batching(String topic, int count, int lingerMs, int batchSize, boolean sync, boolean withKey)
            throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(lingerMs));
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(batchSize));
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        String value = "v".repeat(100);
        Errors errs = new Errors();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            producer.partitionsFor(topic);
            CountDownLatch done = new CountDownLatch(count);
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                String key = withKey ? "key-" + (i % 10) : null;
                ProducerRecord<String, String> rec = new ProducerRecord<>(topic, key, value);
                if (sync) {
                    producer.send(rec).get();
                    done.countDown();
                } else {
                    producer.send(rec, (md, e) -> {
                        if (e != null) errs.first.compareAndSet(null, e);
                        done.countDown();
                    });
                }
            }
            long loop = System.nanoTime();
            done.await(120, TimeUnit.SECONDS);
            long acked = System.nanoTime();
            System.out.printf("%s: linger.ms=%d batch.size=%d %s -> send() loop %d ms, all acked %d ms%n",
                    topic, lingerMs, batchSize, sync ? "sync" : "async",
                    (loop - start) / 1_000_000, (acked - start) / 1_000_000);
        }
        errs.check(topic);
    }

    static void seed() throws Exception {
        for (String t : List.of("u05-sync", "u05-small", "u05-large", "u05-default")) createTopic(t);
        batching("u05-sync", 200, 0, 16384, true, false);
        batching("u05-small", 200, 1000, 1024, false, false);
        batching("u05-large", 200, 1000, 16384, false, false);
        batching("u05-default", 200, 5, 16384, false, false);
        createTopic("u05-sticky", 3, Map.of());
        createTopic("u05-keyed", 3, Map.of());
        batching("u05-sticky", 600, 1000, 1024, false, false);
        batching("u05-keyed", 600, 1000, 1024, false, true);
    }

    // ---------------------------------------------------------------- codecs

    static void codecs() throws Exception {
        for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
            String topic = "codec-" + codec;
            createTopic(topic, 1, Map.of("compression.type", "producer"));
            Properties p = producerProps();
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
            Errors errs = new Errors();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                producer.partitionsFor(topic);
                for (int round = 0; round < 2; round++) {
                    for (int i = round * 30; i < round * 30 + 30; i++) {
                        byte[] key = i % 7 == 6 ? null : b("key-" + i);
                        byte[] value = i % 5 == 4 ? null : b(("value-" + i + " ").repeat(1 + i % 9));
                        List<Header> headers = new ArrayList<>();
                        if (i % 3 == 0) {
                            headers.add(new RecordHeader("trace-id", b("t-" + i)));
                            headers.add(new RecordHeader("codec", b(codec)));
                        }
                        producer.send(new ProducerRecord<>(topic, null, key, value, headers), errs.cb());
                    }
                    producer.flush();
                }
                // one single-record compressed batch
                producer.send(new ProducerRecord<>(topic, b("single"), b(codec.repeat(50)))).get();
            }
            errs.check(topic);
        }
    }

    // ---------------------------------------------------------------- idempotent restart

    static void idempotent() throws Exception {
        String topic = "idempotent";
        createTopic(topic);
        for (int run = 0; run < 2; run++) {
            Properties p = producerProps();
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
            Errors errs = new Errors();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                producer.partitionsFor(topic);
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < 5; i++) {
                        producer.send(new ProducerRecord<>(topic, b("run" + run + "-k" + i),
                                b("run " + run + " round " + round + " record " + i)), errs.cb());
                    }
                    producer.flush();
                }
            }
            errs.check(topic);
        }
        // a non-idempotent producer: producerId -1, baseSequence -1
        Properties p = producerProps();
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 4; i++) {
                producer.send(new ProducerRecord<>(topic, b("plain-" + i), b("not idempotent " + i)));
            }
            producer.flush();
        }
    }

    // ---------------------------------------------------------------- LogAppendTime

    static void logAppendTime() throws Exception {
        String topic = "log-append-time";
        createTopic(topic, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        for (String codec : List.of("none", "gzip")) {
            Properties p = producerProps();
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
            Errors errs = new Errors();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                producer.partitionsFor(topic);
                for (int i = 0; i < 10; i++) {
                    // the client's CreateTime is replaced by the broker's clock
                    producer.send(new ProducerRecord<>(topic, null, 1_600_000_000_000L + i,
                            b(codec + "-" + i), b("appended " + i)), errs.cb());
                }
                producer.flush();
            }
            errs.check(topic);
        }
    }

    // ---------------------------------------------------------------- several segments

    static void segments() throws Exception {
        String topic = "segments";
        Map<String, String> cfg = new HashMap<>();
        cfg.put("internal.segment.bytes", "16384");
        cfg.put("index.interval.bytes", "1500");
        createTopic(topic, 1, cfg);
        Properties p = producerProps();
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
        Errors errs = new Errors();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(topic);
            int n = 0;
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 25; i++, n++) {
                    producer.send(new ProducerRecord<>(topic, b("seg-" + n),
                            b(("segment record " + n + " ").repeat(5))), errs.cb());
                }
                producer.flush();
                Thread.sleep(15);
            }
        }
        errs.check(topic);
    }

    // ---------------------------------------------------------------- edge cases

    static void edge() throws Exception {
        String topic = "edge";
        createTopic(topic);
        Properties p = producerProps();
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "1024");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        Errors errs = new Errors();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(topic);
            // a record larger than batch.size: it gets a batch of its own
            producer.send(new ProducerRecord<>(topic, b("big"), b("B".repeat(5000))), errs.cb());
            producer.send(new ProducerRecord<>(topic, b("empty-value"), new byte[0]), errs.cb());
            producer.send(new ProducerRecord<>(topic, new byte[0], b("empty-key")), errs.cb());
            producer.send(new ProducerRecord<>(topic, new byte[0], new byte[0]), errs.cb());
            producer.send(new ProducerRecord<>(topic, null, null), errs.cb());
            producer.flush();
            producer.send(new ProducerRecord<>(topic, b("ключ-키-鍵-🔑"), b("값 ✓ ünïcödé")), errs.cb());
            producer.send(new ProducerRecord<>(topic, b("e\u0301"), b("decomposed e-acute key")), errs.cb());
            producer.send(new ProducerRecord<>(topic, b("newline"), b("line1\nline2")), errs.cb());
            byte[] bad = {'a', (byte) 0xE2, (byte) 0x82, 'b', (byte) 0xFF, (byte) 0xC0, (byte) 0xAF, 'c',
                    (byte) 0xF0, (byte) 0x9F, (byte) 0x94, 'd', (byte) 0xED, (byte) 0xA0, (byte) 0x80, 'e'};
            producer.send(new ProducerRecord<>(topic, b("bad-utf8"), bad), errs.cb());
            producer.flush();
            List<Header> many = new ArrayList<>();
            for (int i = 0; i < 40; i++) many.add(new RecordHeader(String.format("h-%02d", i), b("v" + i)));
            many.add(new RecordHeader("dup", b("first")));
            many.add(new RecordHeader("dup", b("second")));
            many.add(new RecordHeader("null-value", null));
            many.add(new RecordHeader("", b("empty header key")));
            many.add(new RecordHeader("헤더-ключ", b("unicode header key")));
            producer.send(new ProducerRecord<>(topic, null, b("many-headers"), b("45 headers"), many), errs.cb());
            producer.send(new ProducerRecord<>(topic, null, 1_000_000_000_000L, b("old-timestamp"),
                    b("timestamp 2001-09-09")), errs.cb());
            producer.flush();
        }
        errs.check(topic);
    }

    // ---------------------------------------------------------------- transactions

    @SuppressWarnings("removal") // ConsumerGroupMetadata(String): the simplest way to name a group here
    static void txn(String topic, String txnId) throws Exception {
        createTopic(topic);
        Properties p = producerProps();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) producer.send(new ProducerRecord<>(topic, b("c1-" + i), b("committed " + i)));
            producer.commitTransaction();

            producer.beginTransaction();
            for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, b("a1-" + i), b("aborted " + i)));
            producer.flush();
            producer.abortTransaction();

            // a committed transaction that also commits consumer offsets (transactional offset commit)
            producer.beginTransaction();
            for (int i = 0; i < 4; i++) producer.send(new ProducerRecord<>(topic, b("c2-" + i), b("with offsets " + i)));
            if (topic.equals("txn")) {
                producer.sendOffsetsToTransaction(
                        Map.of(new TopicPartition("codec-gzip", 0), new OffsetAndMetadata(10, "txn-meta")),
                        new ConsumerGroupMetadata("kseg-txn-group"));
            }
            producer.commitTransaction();

            // an aborted transaction interleaved with non-transactional writes (lastStableOffset < lastOffset)
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, b("a2-0"), b("aborted, open"))).get();
            Properties q = producerProps();
            try (KafkaProducer<byte[], byte[]> plain = new KafkaProducer<>(q)) {
                plain.send(new ProducerRecord<>(topic, b("plain-0"), b("written while a transaction is open"))).get();
            }
            producer.send(new ProducerRecord<>(topic, b("a2-1"), b("aborted, last"))).get();
            producer.abortTransaction();
        }
        // the same transactional.id again: same producerId, bumped epoch
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, b("c3-" + i), b("new epoch " + i)));
            producer.commitTransaction();
        }
    }

    // ---------------------------------------------------------------- consumer groups (__consumer_offsets)

    static Properties consumerProps(String group) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-client");
        return c;
    }

    static int consumeAll(KafkaConsumer<byte[], byte[]> consumer, int want) {
        int got = 0;
        long deadline = System.currentTimeMillis() + 60_000;
        while (got < want && System.currentTimeMillis() < deadline) {
            ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(500));
            got += recs.count();
            if (recs.count() > 0) consumer.commitSync();
        }
        return got;
    }

    static void groups() throws Exception {
        // classic protocol: GroupMetadata records (type 2) and offset commits
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps("kseg-classic"))) {
            consumer.subscribe(List.of("u05-small", "codec-gzip"));
            int got = consumeAll(consumer, 200 + 61);
            consumer.commitSync(Map.of(new TopicPartition("u05-small", 0), new OffsetAndMetadata(150, "checkpoint-150")));
            System.out.println("kseg-classic consumed " + got);
        }
        // new consumer protocol (KIP-848): ConsumerGroup* records
        Properties np = consumerProps("kseg-consumer");
        np.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(np)) {
            consumer.subscribe(List.of("u05-sticky"));
            int got = consumeAll(consumer, 600);
            System.out.println("kseg-consumer consumed " + got);
        }
        // simple (manually assigned) consumer committing offsets for an unused group
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps("kseg-simple"))) {
            TopicPartition tp = new TopicPartition("edge", 0);
            consumer.assign(List.of(tp));
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(3)));
        }
        // deleting a committed offset writes a tombstone
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.deleteConsumerGroupOffsets("kseg-classic", Set.of(new TopicPartition("codec-gzip", 0)))
                    .all().get(60, TimeUnit.SECONDS);
        }
    }

    // ---------------------------------------------------------------- short workload for CI

    static void live() throws Exception {
        String topic = "live-zstd";
        createTopic(topic, 1, Map.of("compression.type", "producer"));
        Properties p = producerProps();
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        Errors errs = new Errors();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(topic);
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 20; i++) {
                    List<Header> h = i % 4 == 0 ? List.of(new RecordHeader("h", b("x" + i))) : List.of();
                    producer.send(new ProducerRecord<>(topic, null, i % 6 == 5 ? null : b("k" + i),
                            i % 5 == 4 ? null : b(("live " + i + " ").repeat(3)), h), errs.cb());
                }
                producer.flush();
            }
        }
        errs.check(topic);
        txn("live-txn", "kseg-live-txn");
    }

    // A transactional producer that dies mid-transaction: the JVM halts after the records are
    // acknowledged, so no COMMIT/ABORT marker follows them (until the coordinator times the
    // transaction out, which a broker stopped soon after never does). kseg audit must report it.
    static void killedTxn() throws Exception {
        String topic = "live-killed";
        createTopic(topic);
        Properties p = producerProps();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "kseg-killed");
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, b("k0"), b("committed"))).get();
        producer.commitTransaction();
        producer.beginTransaction();
        for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, b("k" + i), b("never committed " + i))).get();
        System.out.println("workload killed-txn: halting with an open transaction");
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
