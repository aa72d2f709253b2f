// ProducerCompare: drive the real KafkaProducer with given settings, so that oracle/regen/producer-compare.sh
// can compare the partitions the real broker wrote with `kseg produce` run on the same settings.
//
//   java -cp oracle/classes:oracle/lib/* ProducerCompare BOOTSTRAP CASE...
//
// A CASE is "name,key=value,key=value,...". Keys (defaults in brackets):
//   partitions [1]  records [200]  valueSize [100]  keyPrefix [""]  keyCount [0 = no key]
//   batchSize [16384]  lingerMs [5]  compression [none]  idempotence [true]  sync [false]
//   tsBase [-1]  tsStep [0]     record i gets timestamp tsBase + i*tsStep (ms); tsBase -1 leaves the
//                               timestamp to the producer's clock (ProducerRecord timestamp null)
//   intervalUs [0]              busy-wait this long between the end of one send() and the next
//   runs [1]                    repeat the case on topics name-r0, name-r1, ... (fresh producer each)
// Topics are created with the given partitions, retention.ms=-1 (explicit timestamps may be old) and
// compression.type=producer. Record i's key is keyPrefix + (i mod keyCount) (UTF-8), its value is
// valueSize 'v' bytes, as in `kseg produce`.

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class ProducerCompare {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ProducerCompare BOOTSTRAP CASE...");
            System.exit(2);
        }
        String bootstrap = args[0];
        for (String spec : Arrays.asList(args).subList(1, args.length)) {
            Map<String, String> c = parse(spec);
            int runs = Integer.parseInt(c.getOrDefault("runs", "1"));
            for (int r = 0; r < runs; r++) {
                String topic = runs == 1 ? c.get("name") : c.get("name") + "-r" + r;
                long t0 = System.nanoTime();
                run(bootstrap, topic, c);
                System.out.printf("case %s done in %d ms%n", topic, (System.nanoTime() - t0) / 1_000_000);
            }
        }
    }

    static Map<String, String> parse(String spec) {
        Map<String, String> m = new HashMap<>();
        String[] parts = spec.split(",");
        m.put("name", parts[0]);
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("bad case item " + parts[i] + " in " + spec);
            m.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        return m;
    }

    static void run(String bootstrap, String topic, Map<String, String> c) throws Exception {
        int partitions = Integer.parseInt(c.getOrDefault("partitions", "1"));
        int records = Integer.parseInt(c.getOrDefault("records", "200"));
        int valueSize = Integer.parseInt(c.getOrDefault("valueSize", "100"));
        String keyPrefix = c.getOrDefault("keyPrefix", "");
        int keyCount = Integer.parseInt(c.getOrDefault("keyCount", "0"));
        boolean sync = Boolean.parseBoolean(c.getOrDefault("sync", "false"));
        long tsBase = Long.parseLong(c.getOrDefault("tsBase", "-1"));
        long tsStep = Long.parseLong(c.getOrDefault("tsStep", "0"));
        long intervalNs = Long.parseLong(c.getOrDefault("intervalUs", "0")) * 1000L;

        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            NewTopic t = new NewTopic(topic, partitions, (short) 1)
                    .configs(Map.of("retention.ms", "-1", "compression.type", "producer"));
            Topics.create(admin, List.of(t));
        }

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, c.getOrDefault("batchSize", "16384"));
        p.put(ProducerConfig.LINGER_MS_CONFIG, c.getOrDefault("lingerMs", "5"));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, c.getOrDefault("compression", "none"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, c.getOrDefault("idempotence", "true"));

        byte[] value = new byte[valueSize];
        Arrays.fill(value, (byte) 'v');
        byte[][] keys = new byte[keyCount][];
        for (int k = 0; k < keyCount; k++) keys[k] = (keyPrefix + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);

        AtomicReference<Exception> failed = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            // Metadata first, so that no send() blocks on it (the model has no metadata wait).
            producer.partitionsFor(topic);
            for (int i = 0; i < records; i++) {
                byte[] key = keyCount == 0 ? null : keys[i % keyCount];
                Long ts = tsBase < 0 ? null : tsBase + i * tsStep;
                ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, null, ts, key, value);
                if (sync) {
                    producer.send(rec).get();
                } else {
                    producer.send(rec, (md, e) -> {
                        if (e != null) failed.compareAndSet(null, e);
                    });
                }
                if (intervalNs > 0) {
                    long until = System.nanoTime() + intervalNs;
                    while (System.nanoTime() < until) Thread.onSpinWait();
                }
            }
            producer.flush();
        }
        if (failed.get() != null) throw new RuntimeException(topic + ": send failed", failed.get());
    }
}
