// ProducerTrace: one run of the real KafkaProducer in a fresh JVM, sending records at a fixed
// arrival schedule, for oracle/regen/whatif-data.sh (the what-if validation data: testdata/whatif/).
//
//   java -cp oracle/classes:oracle/lib/* ProducerTrace BOOTSTRAP TOPIC SCHEDULE VALUES KEYS PROPS OUT
//
// SCHEDULE: one arrival per line, nanoseconds since the first send (non-decreasing); record i is
// sent at t0 + SCHEDULE[i], t0 = when the first send starts. The thread sleeps in between
// (parkNanos, a spin only for the last 150 µs, as ProducerEnvelope does); when it has fallen
// behind it sends at once, so a late thread sends the records it owes back to back.
// VALUES: one value per line ('\n' ends a line), record i gets line i mod lines.
// KEYS: 0 = no key (the sticky partitioner), K > 0: record i has the key "key-" + (i mod K).
// PROPS: a producer.properties file (linger.ms, batch.size, compression.type, acks, ...);
// bootstrap.servers and the byte-array serializers are set here. No record carries a timestamp:
// every CreateTime is the producer's clock at send().
//
// OUT (JSON, one object): how far the application thread fell behind its schedule (lateness of
// each send's start: p50, p99, max, how many more than 1 ms late), the sending span (first send to
// last send returned), flush time, JVM start to first send, and a few producer metrics.
//
// With KSEG_TRACE_ESTIMATE=1 in the environment and a compression.type, OUT.estimate gets the
// producer's compression ratio estimate for the topic (CompressionRatioEstimator) after each
// send, one line per record: what a batch created then was sized by.

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
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.record.internal.CompressionRatioEstimator;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class ProducerTrace {
    static final String[] METRICS = {
        "record-queue-time-avg", "request-latency-avg", "request-latency-max", "batch-size-avg", "records-per-request-avg",
        "request-total", "record-retry-total", "record-error-total", "io-wait-ratio",
    };

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: ProducerTrace BOOTSTRAP TOPIC SCHEDULE VALUES KEYS PROPS OUT");
            System.exit(2);
        }
        long jvmStart = System.nanoTime();
        String bootstrap = args[0], topic = args[1];
        long[] at = schedule(Path.of(args[2]));
        byte[][] vals = lines(Path.of(args[3]));
        int keyCount = Integer.parseInt(args[4]);
        byte[][] keys = new byte[keyCount][];
        for (int k = 0; k < keyCount; k++) keys[k] = ("key-" + k).getBytes(StandardCharsets.UTF_8);

        Properties p = new Properties();
        try (var r = Files.newBufferedReader(Path.of(args[5]))) {
            p.load(r);
        }
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());

        int n = at.length;
        long[] late = new long[n];
        CompressionType codec = CompressionType.forName(p.getProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none"));
        float[] estimate = "1".equals(System.getenv("KSEG_TRACE_ESTIMATE")) && codec != CompressionType.NONE ? new float[n] : null;
        AtomicReference<Exception> failed = new AtomicReference<>();
        Map<String, Double> metrics = new HashMap<>();
        long t0, lastEnd, flushNs;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            // Metadata first, so that no send() blocks on it.
            producer.partitionsFor(topic);
            t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long until = t0 + at[i];
                for (long now; (now = System.nanoTime()) < until; ) {
                    if (until - now > 150_000) LockSupport.parkNanos(until - now - 100_000);
                    else Thread.onSpinWait();
                }
                late[i] = System.nanoTime() - until;
                byte[] key = keyCount == 0 ? null : keys[i % keyCount];
                producer.send(new ProducerRecord<>(topic, key, vals[i % vals.length]), (md, e) -> {
                    if (e != null) failed.compareAndSet(null, e);
                });
                if (estimate != null) estimate[i] = CompressionRatioEstimator.estimation(topic, codec);
            }
            lastEnd = System.nanoTime();
            long f0 = System.nanoTime();
            producer.flush();
            flushNs = System.nanoTime() - f0;
            for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
                MetricName m = e.getKey();
                if (!m.group().equals("producer-metrics")) continue;
                for (String w : METRICS) {
                    if (m.name().equals(w) && e.getValue().metricValue() instanceof Double d) metrics.put(w, d);
                }
            }
        }
        if (failed.get() != null) throw new RuntimeException(topic + ": send failed", failed.get());

        long[] sorted = late.clone();
        Arrays.sort(sorted);
        int over1ms = 0;
        for (long l : late) if (l > 1_000_000) over1ms++;
        StringBuilder j = new StringBuilder("{");
        j.append(String.format(Locale.ROOT, "\"java\":\"%s\",\"records\":%d,\"jvm_to_first_send_ns\":%d,\"span_ns\":%d,\"flush_ns\":%d,",
                System.getProperty("java.version"), n, t0 - jvmStart, lastEnd - t0, flushNs));
        j.append(String.format(Locale.ROOT, "\"late_ns_p50\":%d,\"late_ns_p99\":%d,\"late_ns_max\":%d,\"late_over_1ms\":%d,\"metrics\":{",
                pct(sorted, 50), pct(sorted, 99), sorted[n - 1], over1ms));
        boolean first = true;
        for (String w : METRICS) {
            Double v = metrics.get(w);
            if (v == null || v.isNaN() || v.isInfinite()) continue;
            j.append(first ? "" : ",").append(String.format(Locale.ROOT, "\"%s\":%.6g", w, v));
            first = false;
        }
        j.append("}}\n");
        Files.writeString(Path.of(args[6]), j.toString());
        if (estimate != null) {
            StringBuilder es = new StringBuilder();
            for (float f : estimate) es.append(f).append('\n');
            Files.writeString(Path.of(args[6] + ".estimate"), es.toString());
        }
    }

    static long[] schedule(Path file) throws Exception {
        List<String> ls = Files.readAllLines(file);
        long[] at = new long[ls.size()];
        int n = 0;
        for (String l : ls) {
            l = l.strip();
            if (l.isEmpty()) continue;
            at[n] = Long.parseLong(l);
            if (at[n] < 0 || (n > 0 && at[n] < at[n - 1])) throw new IllegalArgumentException(file + ": line " + (n + 1) + ": offsets must be non-negative and non-decreasing");
            n++;
        }
        if (n == 0) throw new IllegalArgumentException(file + ": no arrivals");
        return Arrays.copyOf(at, n);
    }

    static byte[][] lines(Path file) throws Exception {
        byte[] all = Files.readAllBytes(file);
        List<byte[]> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '\n') {
                out.add(Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        if (start < all.length) out.add(Arrays.copyOfRange(all, start, all.length));
        if (out.isEmpty()) throw new IllegalArgumentException(file + ": no values");
        return out.toArray(new byte[0][]);
    }

    static long pct(long[] sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
