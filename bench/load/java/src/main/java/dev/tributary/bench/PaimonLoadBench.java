package dev.tributary.bench;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;

/**
 * The Paimon Java loader of the load benchmark (bench/load/README.md), as a Java shop would write it:
 * JDBC streaming reads of the MariaDB shards (MariaDB Connector/J with a fetch size streams the
 * result), one {@code BatchTableWrite} per thread, every thread's messages committed in one commit.
 *
 * <pre>
 *   load  WAREHOUSE DATABASE TABLE JDBC_URL THREADS SHARD...   (shard = db.table; password in BENCH_MYSQL_PASSWORD)
 *   check WAREHOUSE DATABASE TABLE                             (row count and column sums of the latest snapshot)
 * </pre>
 *
 * S3 settings come from BENCH_S3_ENDPOINT, BENCH_S3_ACCESS_KEY, BENCH_S3_SECRET_KEY. Prints one JSON line.
 */
public final class PaimonLoadBench {
  private static final String COLUMNS = "id, customer_id, store_id, amount, tax, status, note, order_date, created_at, updated_at, qty";

  private PaimonLoadBench() {}

  public static void main(String[] args) throws Exception {
    long started = System.nanoTime();
    try (Catalog catalog = catalog(args[1])) {
      Table table = catalog.getTable(Identifier.create(args[2], args[3]));
      if (args[0].equals("load")) {
        List<String> shards = new ArrayList<>();
        for (int i = 6; i < args.length; i++) shards.add(args[i]);
        load(table, args[4], Integer.parseInt(args[5]), shards, started);
      } else if (args[0].equals("check")) {
        check(table);
      } else {
        throw new IllegalArgumentException("usage: load|check …");
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

  private static void load(Table table, String url, int threads, List<String> shards, long started) throws Exception {
    long t0 = System.nanoTime();
    long cpu0 = processCpuNanos();
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(shards);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<CommitMessage>>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        long rows = 0;
        try (BatchTableWrite write = builder.newWrite()) {
          for (String shard = queue.poll(); shard != null; shard = queue.poll()) rows += copyShard(url, shard, write);
          return write.prepareCommit();
        }
      }));
    }
    List<CommitMessage> messages = Collections.synchronizedList(new ArrayList<>());
    for (Future<List<CommitMessage>> f : futures) messages.addAll(f.get());
    pool.shutdown();
    try (BatchTableCommit commit = builder.newCommit()) {
      commit.commit(messages);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpu = (processCpuNanos() - cpu0) / 1e9;
    System.out.printf(
        "{\"loadSeconds\":%.3f,\"loadCpuSeconds\":%.3f,\"totalSeconds\":%.3f,\"peakRssMb\":%.1f,\"messages\":%d}%n",
        seconds, cpu, (System.nanoTime() - started) / 1e9, peakRssMb(), messages.size());
  }

  /** Streams one shard (db.table) in primary-key order into the write; returns its row count. */
  private static long copyShard(String url, String shard, BatchTableWrite write) throws Exception {
    long rows = 0;
    try (Connection connection = DriverManager.getConnection(url, "tributary", System.getenv("BENCH_MYSQL_PASSWORD"));
        Statement statement = connection.createStatement()) {
      statement.execute("SET time_zone = '+00:00', SESSION net_write_timeout = 3600");
      statement.setFetchSize(10_000);
      try (ResultSet rs = statement.executeQuery("SELECT " + COLUMNS + " FROM " + shard + " ORDER BY id")) {
        while (rs.next()) {
          GenericRow row = new GenericRow(11);
          row.setField(0, rs.getLong(1));
          row.setField(1, rs.getInt(2));
          int store = rs.getInt(3);
          row.setField(2, rs.wasNull() ? null : store);
          BigDecimal amount = rs.getBigDecimal(4);
          row.setField(3, amount == null ? null : Decimal.fromBigDecimal(amount, 12, 2));
          BigDecimal tax = rs.getBigDecimal(5);
          row.setField(4, tax == null ? null : Decimal.fromBigDecimal(tax, 18, 4));
          String status = rs.getString(6);
          row.setField(5, status == null ? null : BinaryString.fromString(status));
          String note = rs.getString(7);
          row.setField(6, note == null ? null : BinaryString.fromString(note));
          LocalDate day = rs.getObject(8, LocalDate.class);
          row.setField(7, day == null ? null : (int) day.toEpochDay());
          row.setField(8, Timestamp.fromLocalDateTime(rs.getObject(9, LocalDateTime.class)));
          LocalDateTime updated = rs.getObject(10, LocalDateTime.class);
          row.setField(9, updated == null ? null : Timestamp.fromLocalDateTime(updated));
          int qty = rs.getInt(11);
          row.setField(10, rs.wasNull() ? null : qty);
          write.write(row);
          rows++;
        }
      }
    }
    return rows;
  }

  /** Count and sums of every column (numbers as their exact integers, strings by code points). */
  private static void check(Table table) throws Exception {
    ReadBuilder builder = table.newReadBuilder();
    List<Split> splits = builder.newScan().plan().splits();
    long rows = 0;
    BigInteger[] sums = new BigInteger[11];
    long[] nulls = new long[11];
    for (int i = 0; i < sums.length; i++) sums[i] = BigInteger.ZERO;
    long files = 0;
    for (Split split : splits) files += ((DataSplit) split).dataFiles().size();
    try (RecordReader<InternalRow> reader = builder.newRead().createReader(splits)) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = reader.readBatch()) != null) {
        InternalRow row;
        while ((row = batch.next()) != null) {
          rows++;
          for (int c = 0; c < 11; c++) {
            if (row.isNullAt(c)) {
              nulls[c]++;
              continue;
            }
            long v;
            switch (c) {
              case 0: v = row.getLong(0); break;
              case 3: v = row.getDecimal(3, 12, 2).toUnscaledLong(); break;
              case 4: v = row.getDecimal(4, 18, 4).toUnscaledLong(); break;
              case 5: case 6: { String s = row.getString(c).toString(); v = s.codePointCount(0, s.length()); break; }
              case 8: v = row.getTimestamp(8, 3).getMillisecond(); break;
              case 9: { Timestamp ts = row.getTimestamp(9, 6); v = ts.getMillisecond() * 1000 + ts.getNanoOfMillisecond() / 1000; break; }
              default: v = row.getInt(c);
            }
            sums[c] = sums[c].add(BigInteger.valueOf(v));
          }
        }
        batch.releaseBatch();
      }
    }
    StringBuilder json = new StringBuilder("{\"rows\":").append(rows).append(",\"splitFiles\":").append(files).append(",\"sums\":[");
    for (int c = 0; c < 11; c++) json.append(c == 0 ? "" : ",").append('"').append(sums[c]).append('"');
    json.append("],\"nulls\":[");
    for (int c = 0; c < 11; c++) json.append(c == 0 ? "" : ",").append(nulls[c]);
    System.out.println(json.append("]}"));
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
