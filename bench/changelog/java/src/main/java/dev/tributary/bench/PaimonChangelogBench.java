package dev.tributary.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * The Paimon Java reference of the changelog benchmark (bench/changelog/README.md): the same rows
 * as bench/changelog/run.ts generates, into a table with {@code changelog-producer = lookup}, as a
 * Java shop would load it: one {@code BatchTableWrite} and commit per load (deletes as
 * {@code RowKind.DELETE}), then a full compaction of every bucket ({@code compact(bucket, true)}) in
 * its own commit.
 *
 * <pre>
 *   run WAREHOUSE DATABASE TABLE BUCKETS TABLE_ROWS KEYS UPDATES DELETES PAIRS
 * </pre>
 *
 * S3 settings come from BENCH_S3_ENDPOINT, BENCH_S3_ACCESS_KEY, BENCH_S3_SECRET_KEY. Prints one JSON
 * line for the base fill and one per load: wall and CPU seconds (this JVM) of the write + commit and
 * of the compaction, and the changelog rows of the two snapshots.
 */
public final class PaimonChangelogBench {
  private static final String[] STATUSES = {"NEW", "PAID", "SHIPPED", "DELIVERED"};

  private PaimonChangelogBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 10 || !args[0].equals("run")) {
      throw new IllegalArgumentException("usage: run WAREHOUSE DATABASE TABLE BUCKETS TABLE_ROWS KEYS UPDATES DELETES PAIRS");
    }
    int buckets = Integer.parseInt(args[4]);
    long tableRows = Long.parseLong(args[5]);
    long keys = Long.parseLong(args[6]);
    long updates = Long.parseLong(args[7]);
    long deletes = Long.parseLong(args[8]);
    int pairs = Integer.parseInt(args[9]);
    try (Catalog catalog = catalog(args[1])) {
      Identifier id = Identifier.create(args[2], args[3]);
      catalog.createDatabase(args[2], true);
      catalog.dropTable(id, true);
      catalog.createTable(
          id,
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("store_id", DataTypes.INT())
              .column("amount", DataTypes.BIGINT())
              .column("status", DataTypes.STRING())
              .column("op", DataTypes.STRING())
              .primaryKey("id")
              .options(Map.of("bucket", String.valueOf(buckets), "changelog-producer", "lookup"))
              .build(),
          false);
      FileStoreTable table = (FileStoreTable) catalog.getTable(id);
      long t0 = System.nanoTime();
      long cpu0 = processCpuNanos();
      List<GenericRow> base = new ArrayList<>();
      for (long i = 1; i <= tableRows; i++) base.add(row(i, 0, null, RowKind.INSERT));
      write(table, base);
      System.out.printf("{\"fill\":true,\"seconds\":%.3f,\"cpuSeconds\":%.3f}%n", (System.nanoTime() - t0) / 1e9, (processCpuNanos() - cpu0) / 1e9);
      for (int p = 0; p < pairs; p++) {
        List<GenericRow> load = loadRows(p, tableRows, keys, updates, deletes);
        long w0 = System.nanoTime();
        long c0 = processCpuNanos();
        write(table, load);
        long w1 = System.nanoTime();
        long c1 = processCpuNanos();
        long written = table.snapshotManager().latestSnapshotId();
        compact(table, buckets);
        long w2 = System.nanoTime();
        long c2 = processCpuNanos();
        long compacted = table.snapshotManager().latestSnapshotId();
        System.out.printf(
            "{\"pair\":%d,\"writeSeconds\":%.3f,\"writeCpuSeconds\":%.3f,\"compactSeconds\":%.3f,\"compactCpuSeconds\":%.3f,"
                + "\"writeChangelogRows\":%d,\"compactChangelogRows\":%d,\"peakRssMb\":%.1f}%n",
            p, (w1 - w0) / 1e9, (c1 - c0) / 1e9, (w2 - w1) / 1e9, (c2 - c1) / 1e9,
            changelogRows(table, written), changelogRows(table, compacted), peakRssMb());
      }
    }
  }

  private static Catalog catalog(String warehouse) {
    Options options = new Options();
    options.set("warehouse", warehouse);
    options.set("s3.endpoint", System.getenv("BENCH_S3_ENDPOINT"));
    options.set("s3.access-key", System.getenv("BENCH_S3_ACCESS_KEY"));
    options.set("s3.secret-key", System.getenv("BENCH_S3_SECRET_KEY"));
    options.set("s3.path.style.access", "true");
    return CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  /** The row of {@code id} in version {@code version}, as run.ts's line() computes it. */
  private static GenericRow row(long id, int version, String op, RowKind kind) {
    int mixed = (int) (id ^ (int) ((long) version * 0x9e3779b1L));
    long h = Integer.toUnsignedLong(mixed * (int) 0x85ebca6bL);
    return GenericRow.ofKind(
        kind, id, (int) (1 + h % 64), (h >>> 6) % 100_000, BinaryString.fromString(STATUSES[(int) (h % 4)]), op == null ? null : BinaryString.fromString(op));
  }

  /** Load p, as run.ts's loadRows over all shards: updates and deletes spread over the table, then new ids. */
  private static List<GenericRow> loadRows(int p, long tableRows, long keys, long updates, long deletes) {
    List<GenericRow> rows = new ArrayList<>();
    long touched = updates + deletes;
    long stride = Math.max(1, tableRows / Math.max(1, touched));
    for (long j = 0; j < touched; j++) {
      long id = 1 + ((j * stride + p) % tableRows);
      rows.add(j < updates ? row(id, p + 1, null, RowKind.INSERT) : row(id, p + 1, "D", RowKind.DELETE));
    }
    long first = tableRows + (long) p * keys + 1;
    for (long j = 0; j < keys - touched; j++) rows.add(row(first + j, p + 1, null, RowKind.INSERT));
    return rows;
  }

  private static void write(FileStoreTable table, List<GenericRow> rows) throws Exception {
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
      // The lookup producer spills its lookup files to local disk.
      write.withIOManager(IOManager.create(System.getProperty("java.io.tmpdir")));
      for (GenericRow r : rows) write.write(r);
      commit.commit(write.prepareCommit());
    }
  }

  private static void compact(FileStoreTable table, int buckets) throws Exception {
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
      write.withIOManager(IOManager.create(System.getProperty("java.io.tmpdir")));
      for (int b = 0; b < buckets; b++) write.compact(BinaryRow.EMPTY_ROW, b, true);
      List<CommitMessage> messages = write.prepareCommit();
      commit.commit(messages);
    }
  }

  private static long changelogRows(FileStoreTable table, long snapshotId) {
    Snapshot snapshot = table.snapshotManager().snapshot(snapshotId);
    Long count = snapshot.changelogRecordCount();
    return count == null ? 0 : count;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static double peakRssMb() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
    }
    return Double.NaN;
  }
}
