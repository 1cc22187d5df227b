package dev.tributary.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * The Paimon Java peer of the table benchmark (bench/table/README.md).
 *
 * <pre>
 * java -jar paimon-table-bench.jar write WAREHOUSE append|pk ROWS CHUNK [warm]
 *     creates bench.paimon_java_KIND, writes rows 0..ROWS-1 of the formula in bench/table/orders.ts
 *     with BatchTableWrite (GenericRow, CHUNK rows generated, then written) and commits once. With
 *     {@code warm}, the same rows go first into bench.paimon_java_KIND_warmup in the same JVM, timed
 *     and reported as the cold write, so the timed write runs on a warmed JIT.
 * java -jar paimon-table-bench.jar count WAREHOUSE DATABASE TABLE
 *     reads the latest snapshot of any table and prints its row count and column sums.
 * </pre>
 *
 * Each prints one JSON line on stdout.
 */
public final class PaimonTableBench {
  private static final long STARTED_NANOS = System.nanoTime();
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final BinaryString[] STATUSES = {
    BinaryString.fromString("pending"),
    BinaryString.fromString("paid"),
    BinaryString.fromString("shipped"),
    BinaryString.fromString("delivered"),
    BinaryString.fromString("cancelled"),
  };

  private PaimonTableBench() {}

  public static void main(String[] args) throws Exception {
    if ((args.length == 5 || (args.length == 6 && args[5].equals("warm"))) && args[0].equals("write")) {
      String warehouse = args[1];
      String kind = args[2];
      int rows = Integer.parseInt(args[3]);
      int chunk = Integer.parseInt(args[4]);
      Written cold = args.length == 6 ? write(warehouse, kind, "paimon_java_" + kind + "_warmup", rows, chunk) : null;
      Written timed = write(warehouse, kind, "paimon_java_" + kind, rows, chunk);
      System.out.println(
          "{\"peer\":\"paimon-java\",\"table\":\"" + kind + "\",\"path\":\"bench.db/paimon_java_" + kind
              + "\",\"rows\":" + rows + ",\"files\":" + timed.files
              + ",\"writeSeconds\":" + seconds(timed.writeNanos)
              + ",\"writeCpuSeconds\":" + seconds(timed.writeCpuNanos)
              + ",\"generateSeconds\":" + seconds(timed.generateNanos)
              + (cold == null ? "" : ",\"coldWriteSeconds\":" + seconds(cold.writeNanos) + ",\"coldWriteCpuSeconds\":" + seconds(cold.writeCpuNanos))
              + ",\"totalSeconds\":" + seconds(System.nanoTime() - STARTED_NANOS)
              + ",\"peakRssBytes\":" + peakRssBytes() + "}");
    } else if (args.length == 4 && args[0].equals("count")) {
      count(args[1], args[2], args[3]);
    } else {
      System.err.println("usage: write WAREHOUSE append|pk ROWS CHUNK [warm] | count WAREHOUSE DATABASE TABLE");
      System.exit(2);
    }
  }

  private static Catalog catalog(String warehouse) {
    Options options = new Options();
    options.set("warehouse", warehouse);
    return CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  private static Schema schema(String kind) {
    Schema.Builder schema = Schema.newBuilder()
        .column("id", DataTypes.BIGINT())
        .column("store_id", DataTypes.INT())
        .column("amount", DataTypes.DECIMAL(18, 2))
        .column("status", DataTypes.STRING())
        .column("created_at", DataTypes.TIMESTAMP(3))
        .column("dt", DataTypes.DATE())
        .partitionKeys("dt");
    if (kind.equals("pk")) {
      return schema.primaryKey("id", "dt").options(Map.of("bucket", "16")).build();
    }
    if (kind.equals("append")) {
      return schema.options(Map.of("bucket", "-1")).build();
    }
    throw new IllegalArgumentException("table kind must be append or pk: " + kind);
  }

  /** Row i of the shared formula (bench/table/orders.ts). */
  private static GenericRow order(long i) {
    return GenericRow.of(
        i,
        (int) ((i * 7919) % 1000),
        Decimal.fromUnscaledLong((i * 104729) % 10_000_000, 18, 2),
        STATUSES[(int) (i % 5)],
        Timestamp.fromEpochMillis(1_700_000_000_000L + i * 1000),
        (int) (19700 + i % 30));
  }

  /** One timed write: write + commit, row generation excluded. */
  private record Written(int files, long writeNanos, long writeCpuNanos, long generateNanos) {}

  private static Written write(String warehouse, String kind, String name, int rows, int chunk) throws Exception {
    Identifier identifier = Identifier.create("bench", name);
    long generateNanos = 0;
    long generateCpuNanos = 0;
    long writeStart;
    long writeCpuStart;
    int files = 0;
    try (Catalog catalog = catalog(warehouse)) {
      catalog.createDatabase("bench", true);
      catalog.createTable(identifier, schema(kind), false);
      Table table = catalog.getTable(identifier);
      writeStart = System.nanoTime();
      writeCpuStart = processCpuNanos();
      BatchWriteBuilder builder = table.newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
        List<GenericRow> batch = new ArrayList<>(chunk);
        for (int from = 0; from < rows; from += chunk) {
          long t0 = System.nanoTime();
          long c0 = THREADS.getCurrentThreadCpuTime();
          batch.clear();
          int to = Math.min(rows, from + chunk);
          for (int i = from; i < to; i++) {
            batch.add(order(i));
          }
          generateNanos += System.nanoTime() - t0;
          generateCpuNanos += THREADS.getCurrentThreadCpuTime() - c0;
          for (GenericRow row : batch) {
            write.write(row);
          }
        }
        var messages = write.prepareCommit();
        for (var message : messages) {
          files += ((org.apache.paimon.table.sink.CommitMessageImpl) message).newFilesIncrement().newFiles().size();
        }
        commit.commit(messages);
      }
    }
    long end = System.nanoTime();
    long writeCpuNanos = processCpuNanos() - writeCpuStart - generateCpuNanos;
    return new Written(files, end - writeStart - generateNanos, writeCpuNanos, generateNanos);
  }

  private static void count(String warehouse, String database, String tableName) throws Exception {
    long rows = 0;
    long sumId = 0;
    long sumStoreId = 0;
    long sumAmountCents = 0;
    try (Catalog catalog = catalog(warehouse)) {
      Table table = catalog.getTable(Identifier.create(database, tableName));
      ReadBuilder builder = table.newReadBuilder();
      try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
        RecordReader.RecordIterator<InternalRow> batch;
        while ((batch = reader.readBatch()) != null) {
          InternalRow row;
          while ((row = batch.next()) != null) {
            rows++;
            sumId += row.getLong(0);
            sumStoreId += row.getInt(1);
            sumAmountCents += row.getDecimal(2, 18, 2).toUnscaledLong();
          }
          batch.releaseBatch();
        }
      }
    }
    // The sums of 2^31 rows stay far below 2^63; strings keep them exact in JSON.
    System.out.println(
        "{\"rows\":" + rows + ",\"sumId\":\"" + sumId + "\",\"sumStoreId\":\"" + sumStoreId
            + "\",\"sumAmountCents\":\"" + sumAmountCents + "\"}");
  }

  /** CPU time of the whole JVM (every thread: writer, compaction, GC, JIT). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  /** VmHWM: the peak resident set of this process, as the kernel counts it. */
  private static long peakRssBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return -1;
  }
}
