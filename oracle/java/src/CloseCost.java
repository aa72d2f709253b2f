// Measures what the Java producer's sender does per batch inside its drain loop:
// ProducerBatch.close() is MemoryRecordsBuilder.close() (the codec's flush, the batch header,
// the CRC), run for each drained batch between taking it from its deque and visiting the next
// partition. The rest of a batch's sender work (the produce request, metrics) comes after the
// drain. kseg's trace replays put the close cost measured here, by the batch's size, inside the
// drain (producer/profiles/drain-close.json; oracle/calibration/drain-close.sh runs this).
//
//   CloseCost VALUES_FILE RECORDS[,RECORDS...] ITERATIONS
//
// For each size, builds ITERATIONS batches of RECORDS records (values cycled from VALUES_FILE,
// one per line, no key, CreateTime) with each codec at its default level, as the producer builds
// them, and prints one JSON line per codec: the batch's records section in KiB (what kseg's model
// calls a batch's uncompressed bytes) and the median close() time, after a warm-up round of the
// same size (JIT). The close does what the codec left undone while records were appended (gzip
// deflates its 16 KiB buffer as it fills, snappy and lz4 compress each full block), so its cost
// is not proportional to the batch's size.

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

public final class CloseCost {
    private CloseCost() {}

    // The v2 batch header MemoryRecordsBuilder counts in uncompressedBytesWritten.
    private static final int BATCH_HEADER_BYTES = 61;

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: CloseCost VALUES_FILE RECORDS[,RECORDS...] ITERATIONS");
            System.exit(2);
        }
        List<byte[]> values = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            values.add(line.getBytes(StandardCharsets.UTF_8));
        }
        int iterations = Integer.parseInt(args[2]);
        String[] codecs = {"none", "gzip", "snappy", "lz4", "zstd"};
        for (String size : args[1].split(",")) {
            int records = Integer.parseInt(size);
            for (int round = 0; round < 2; round++) {
                for (String codec : codecs) {
                    Compression compression = switch (codec) {
                        case "gzip" -> Compression.gzip().build();
                        case "snappy" -> Compression.snappy().build();
                        case "lz4" -> Compression.lz4().build();
                        case "zstd" -> Compression.zstd().build();
                        default -> Compression.NONE;
                    };
                    long[] closeNs = new long[iterations];
                    long raw = 0, stored = 0, section = 0;
                    int next = 0;
                    for (int it = 0; it < iterations; it++) {
                        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
                        MemoryRecordsBuilder b = MemoryRecords.builder(buf, RecordBatch.CURRENT_MAGIC_VALUE, compression,
                            TimestampType.CREATE_TIME, 0L);
                        for (int i = 0; i < records; i++) {
                            byte[] v = values.get(next++ % values.size());
                            b.append(1_000L + i, null, v);
                            raw += v.length;
                        }
                        section += b.uncompressedBytesWritten() - BATCH_HEADER_BYTES;
                        long t0 = System.nanoTime();
                        b.close();
                        closeNs[it] = System.nanoTime() - t0;
                        stored += b.build().sizeInBytes();
                    }
                    if (round == 0) {
                        continue; // warm-up
                    }
                    Arrays.sort(closeNs);
                    double kib = raw / (double) iterations / 1024;
                    System.out.printf("{\"codec\":\"%s\",\"records\":%d,\"kib\":%.2f,\"records_kib\":%.3f,\"stored_ratio\":%.3f,"
                            + "\"close_us_p10\":%.2f,\"close_us_p50\":%.2f,\"close_us_p90\":%.2f}%n",
                        codec, records, kib, section / (double) iterations / 1024, stored / (double) raw,
                        closeNs[iterations / 10] / 1e3, closeNs[iterations / 2] / 1e3, closeNs[iterations * 9 / 10] / 1e3);
                }
            }
        }
    }
}
