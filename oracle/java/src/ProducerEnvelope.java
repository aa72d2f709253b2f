// ProducerEnvelope: one run of one workload with the real KafkaProducer in a fresh JVM, timed, for
// oracle/regen/producer-envelope.sh (the data behind `kseg produce --runs`: testdata/producer-envelope/).
//
//   java -cp oracle/classes:oracle/lib/* ProducerEnvelope create BOOTSTRAP TOPIC:PARTITIONS...
//       create the topics (compression.type=producer) and wait until the broker leads every
//       partition, then send one record to the first TOPIC (a warm-up topic); done once for all
//       runs, so that a run's JVM loads only the producer
//   java -cp oracle/classes:oracle/lib/* ProducerEnvelope run BOOTSTRAP OUT TOPIC,key=value,...
//       run the workload on TOPIC; write OUT.timing.json and OUT.records.tsv
//
// Workload keys (defaults in brackets), as in ProducerCompare:
//   records [200]  valueSize [100]  valueFile [none]  keyPrefix [""]  keyCount [0 = no key]
//   batchSize [16384]  lingerMs [5]  compression [none]  idempotence [true]
//   tsBase [-1]  tsStep [0]   record i gets timestamp tsBase + i*tsStep (ms); -1: the producer's clock
//   intervalUs [0]            send i starts at t0 + i*intervalUs, t0 = the first send; the thread
//                             sleeps in between (parkNanos; a spin only for the last 150 µs), as an
//                             application waiting for work would, leaving the CPU to the sender
// valueFile: one value per line ('\n' ends a line; a final '\n' does not start an empty value),
// record i gets line i mod lines; otherwise the value is valueSize 'v' bytes. Record i's key is
// keyPrefix + (i mod keyCount) in UTF-8.
//
// OUT.records.tsv: one line per record: i, partition, offset, send start, send end, ack (ns since
// the first send started; ack = when the callback ran). OUT.timing.json: per-send wall time
// (System.nanoTime around send()), the first 50 sends of this cold JVM, when the producer id
// arrived (pid_ready_ns, since the first send started; negative: before it; nothing is drained
// before it), and producer metrics read after flush().

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class ProducerEnvelope {
    static final int FIRST_SENDS = 50;
    static final String[] METRICS = {
        "record-queue-time-avg", "record-queue-time-max", "request-latency-avg", "request-latency-max",
        "batch-size-avg", "batch-size-max", "compression-rate-avg", "records-per-request-avg",
        "produce-throttle-time-avg", "request-total", "batch-split-total", "record-retry-total",
        "record-error-total", "bufferpool-wait-time-ns-total", "io-wait-ratio",
    };

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("create")) {
            create(args[1], Arrays.asList(args).subList(2, args.length));
        } else if (args.length == 4 && args[0].equals("run")) {
            run(args[1], args[2], args[3]);
        } else {
            System.err.println("usage: ProducerEnvelope create BOOTSTRAP TOPIC:PARTITIONS... | run BOOTSTRAP OUT SPEC");
            System.exit(2);
        }
    }

    static void create(String bootstrap, List<String> topics) throws Exception {
        List<NewTopic> nts = new ArrayList<>();
        for (String t : topics) {
            int colon = t.lastIndexOf(':');
            String name = t.substring(0, colon);
            int parts = Integer.parseInt(t.substring(colon + 1));
            nts.add(new NewTopic(name, parts, (short) 1).configs(Map.of("compression.type", "producer")));
        }
        Topics.create(bootstrap, nts);
        // One idempotent send first, so that no run is the broker's first InitProducerId (that one
        // waits for a producer-id block: COORDINATOR_LOAD_IN_PROGRESS and a retry backoff).
        String warm = topics.get(0).substring(0, topics.get(0).lastIndexOf(':'));
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(warm, new byte[] {'w'})).get(60, TimeUnit.SECONDS);
        }
        Thread.sleep(500);
    }

    static Map<String, String> parse(String spec) {
        Map<String, String> m = new HashMap<>();
        String[] parts = spec.split(",");
        m.put("topic", parts[0]);
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("bad item " + parts[i] + " in " + spec);
            m.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        return m;
    }

    static byte[][] values(Map<String, String> c) throws Exception {
        String file = c.get("valueFile");
        if (file == null) {
            byte[] v = new byte[Integer.parseInt(c.getOrDefault("valueSize", "100"))];
            Arrays.fill(v, (byte) 'v');
            return new byte[][] {v};
        }
        byte[] all = Files.readAllBytes(Path.of(file));
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '\n') {
                lines.add(Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        if (start < all.length) lines.add(Arrays.copyOfRange(all, start, all.length));
        if (lines.isEmpty()) throw new IllegalArgumentException(file + ": no values");
        return lines.toArray(new byte[0][]);
    }

    static void run(String bootstrap, String out, String spec) throws Exception {
        long jvmStart = System.nanoTime();
        Map<String, String> c = parse(spec);
        String topic = c.get("topic");
        int records = Integer.parseInt(c.getOrDefault("records", "200"));
        String keyPrefix = c.getOrDefault("keyPrefix", "");
        int keyCount = Integer.parseInt(c.getOrDefault("keyCount", "0"));
        long tsBase = Long.parseLong(c.getOrDefault("tsBase", "-1"));
        long tsStep = Long.parseLong(c.getOrDefault("tsStep", "0"));
        long intervalNs = Long.parseLong(c.getOrDefault("intervalUs", "0")) * 1000L;
        byte[][] vals = values(c);
        byte[][] keys = new byte[keyCount][];
        for (int k = 0; k < keyCount; k++) keys[k] = (keyPrefix + k).getBytes(StandardCharsets.UTF_8);

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, c.getOrDefault("batchSize", "16384"));
        p.put(ProducerConfig.LINGER_MS_CONFIG, c.getOrDefault("lingerMs", "5"));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, c.getOrDefault("compression", "none"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, c.getOrDefault("idempotence", "true"));

        int[] part = new int[records];
        long[] off = new long[records], sendStart = new long[records], sendEnd = new long[records], ack = new long[records];
        AtomicReference<Exception> failed = new AtomicReference<>();
        Map<String, Double> metrics = new HashMap<>();
        long initNs, metaNs, flushNs, t0;
        long c0 = System.nanoTime();
        AtomicLong pidAt = new AtomicLong(Long.MIN_VALUE);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            initNs = System.nanoTime() - c0;
            Thread pidWatch = watchProducerId(producer, pidAt);
            // Metadata first, so that no send() blocks on it (the model has no metadata wait).
            long m0 = System.nanoTime();
            producer.partitionsFor(topic);
            metaNs = System.nanoTime() - m0;
            t0 = System.nanoTime();
            for (int i = 0; i < records; i++) {
                if (intervalNs > 0) {
                    long until = t0 + i * intervalNs;
                    for (long now; (now = System.nanoTime()) < until; ) {
                        if (until - now > 150_000) LockSupport.parkNanos(until - now - 100_000);
                        else Thread.onSpinWait();
                    }
                }
                byte[] key = keyCount == 0 ? null : keys[i % keyCount];
                Long ts = tsBase < 0 ? null : tsBase + i * tsStep;
                ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, null, ts, key, vals[i % vals.length]);
                final int idx = i;
                long s = System.nanoTime();
                producer.send(rec, (md, e) -> {
                    ack[idx] = System.nanoTime();
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    } else {
                        part[idx] = md.partition();
                        off[idx] = md.offset();
                    }
                });
                sendEnd[i] = System.nanoTime();
                sendStart[i] = s;
            }
            long f0 = System.nanoTime();
            producer.flush();
            flushNs = System.nanoTime() - f0;
            pidWatch.join(1000);
            for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (!n.group().equals("producer-metrics")) continue;
                for (String w : METRICS) {
                    if (n.name().equals(w) && e.getValue().metricValue() instanceof Double d) metrics.put(w, d);
                }
            }
        }
        if (failed.get() != null) throw new RuntimeException(topic + ": send failed", failed.get());

        long[] sendNs = new long[records];
        for (int i = 0; i < records; i++) sendNs[i] = sendEnd[i] - sendStart[i];
        long[] sorted = sendNs.clone();
        Arrays.sort(sorted);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(out + ".records.tsv")))) {
            for (int i = 0; i < records; i++) {
                w.printf("%d\t%d\t%d\t%d\t%d\t%d%n", i, part[i], off[i], sendStart[i] - t0, sendEnd[i] - t0, ack[i] - t0);
            }
        }
        StringBuilder j = new StringBuilder("{");
        j.append(String.format(Locale.ROOT, "\"java\":\"%s\",\"cpus\":%d,", System.getProperty("java.version"), Runtime.getRuntime().availableProcessors()));
        j.append(String.format(Locale.ROOT, "\"jvm_to_first_send_ns\":%d,\"producer_init_ns\":%d,\"metadata_ns\":%d,", t0 - jvmStart, initNs, metaNs));
        j.append(String.format(Locale.ROOT, "\"burst_ns\":%d,\"flush_ns\":%d,", sendEnd[records - 1] - t0, flushNs));
        if (pidAt.get() != Long.MIN_VALUE) j.append(String.format(Locale.ROOT, "\"pid_ready_ns\":%d,", pidAt.get() - t0));
        j.append(String.format(Locale.ROOT, "\"send_ns_p50\":%d,\"send_ns_p90\":%d,\"send_ns_p99\":%d,\"send_ns_max\":%d,\"send_ns_mean\":%d,",
                pct(sorted, 50), pct(sorted, 90), pct(sorted, 99), sorted[records - 1], Arrays.stream(sendNs).sum() / records));
        j.append("\"first_sends_ns\":[");
        for (int i = 0; i < Math.min(FIRST_SENDS, records); i++) j.append(i == 0 ? "" : ",").append(sendNs[i]);
        j.append("],\"metrics\":{");
        boolean first = true;
        for (String w : METRICS) {
            Double v = metrics.get(w);
            if (v == null || v.isNaN() || v.isInfinite()) continue;
            j.append(first ? "" : ",").append(String.format(Locale.ROOT, "\"%s\":%.6g", w, v));
            first = false;
        }
        j.append("}}\n");
        Files.writeString(Path.of(out + ".timing.json"), j.toString());
    }

    /**
     * Polls (every 50 µs) until the idempotent producer has its producer id and records when. The
     * sender drains nothing before that, so it bounds the first drain. Reads the producer's
     * private TransactionManager; the polling thread itself costs little CPU (it sleeps).
     */
    static Thread watchProducerId(KafkaProducer<?, ?> producer, AtomicLong at) throws Exception {
        var f = KafkaProducer.class.getDeclaredField("transactionManager");
        f.setAccessible(true);
        Object tm = f.get(producer);
        Thread t = new Thread(() -> {
            if (tm == null) return;
            try {
                var has = tm.getClass().getMethod("hasProducerId");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < deadline) {
                    if ((Boolean) has.invoke(tm)) {
                        at.set(System.nanoTime());
                        return;
                    }
                    LockSupport.parkNanos(50_000);
                }
            } catch (ReflectiveOperationException e) {
                throw new RuntimeException(e);
            }
        }, "pid-watch");
        t.setDaemon(true);
        t.start();
        return t;
    }

    static long pct(long[] sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
