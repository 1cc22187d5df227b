package dev.tributary.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.time.Duration;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.operation.CleanOrphanFilesResult;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * The Paimon Java compatibility oracle: create, write and read Paimon tables with Apache Paimon's own
 * Java batch API (BatchWriteBuilder / ReadBuilder), so the compat tests can check Tributary against
 * the reference implementation.
 *
 * <p>Same commands and JSON as the pypaimon oracle (test/compat/python/oracle.py, which documents
 * the request shapes and the value encoding): {@code java -jar paimon-oracle.jar
 * create|write|read|batch < request.json}. One JVM start costs about a second, so {@code batch} runs
 * several operations in one call. Unlike pypaimon, {@code write} takes row kinds {@code +I -U +U -D}
 * (Paimon's RowKind short strings), which primary-key tables turn into updates and deletes, and
 * {@code compact} (Java only) fully compacts the given buckets of an unpartitioned table in one commit.
 */
public final class PaimonOracle {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PaimonOracle() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    // Paimon and Hadoop may log to stdout; keep stdout for the one JSON response.
    System.setOut(System.err);
    if (args.length != 1 || !List.of("create", "write", "read", "compact", "batch").contains(args[0])) {
      System.err.println("usage: paimon-oracle create|write|read|compact|batch < request.json");
      System.exit(2);
    }
    int status = 0;
    JsonNode response;
    try {
      JsonNode request = JSON.readTree(System.in);
      response = args[0].equals("batch") ? batch(request) : run(args[0], request);
    } catch (Exception e) {
      e.printStackTrace(System.err);
      ObjectNode error = JSON.createObjectNode();
      error.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
      response = error;
      status = 1;
    }
    out.println(JSON.writeValueAsString(response));
    out.flush();
    System.exit(status);
  }

  private static JsonNode batch(JsonNode request) throws Exception {
    ObjectNode response = JSON.createObjectNode();
    ArrayNode results = response.putArray("results");
    for (JsonNode op : request.path("ops")) {
      results.add(run(op.path("op").asText(), op));
    }
    return response;
  }

  private static JsonNode run(String op, JsonNode request) throws Exception {
    try (Catalog catalog = catalogOf(request)) {
      switch (op) {
        case "create":
          return create(catalog, request);
        case "write":
          return write(catalog, request);
        case "read":
          return read(catalog, request);
        case "compact":
          return compact(catalog, request);
        case "expire":
          return expire(catalog, request);
        case "orphanClean":
          return orphanClean(catalog, request);
        case "list":
          return list(catalog, request);
        case "drop":
          return drop(catalog, request);
        case "commitCopy":
          return commitCopy(catalog, request);
        default:
          throw new IllegalArgumentException("unknown op '" + op + "'");
      }
    }
  }

  private static Catalog catalogOf(JsonNode request) {
    Options options = new Options();
    options.set("warehouse", request.path("warehouse").asText());
    request.path("catalogOptions").fields().forEachRemaining(e -> options.set(e.getKey(), e.getValue().asText()));
    return CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  private static Identifier identifierOf(JsonNode request) {
    return Identifier.create(request.path("database").asText(), request.path("table").asText());
  }

  private static JsonNode create(Catalog catalog, JsonNode request) throws Exception {
    catalog.createDatabase(request.path("database").asText(), true);
    Schema.Builder schema = Schema.newBuilder();
    for (JsonNode field : request.path("fields")) {
      schema.column(field.path("name").asText(), DataTypeJsonParser.parseAtomicTypeSQLString(field.path("type").asText()));
    }
    schema.partitionKeys(strings(request.path("partitionKeys")));
    schema.primaryKey(strings(request.path("primaryKeys")));
    Map<String, String> options = new HashMap<>();
    request.path("options").fields().forEachRemaining(e -> options.put(e.getKey(), e.getValue().asText()));
    schema.options(options);
    Identifier identifier = identifierOf(request);
    catalog.createTable(identifier, schema.build(), false);
    ObjectNode response = JSON.createObjectNode();
    response.put("path", catalog.getTable(identifier).options().get("path"));
    return response;
  }

  private static JsonNode write(Catalog catalog, JsonNode request) throws Exception {
    Table table = catalog.getTable(identifierOf(request));
    List<DataField> fields = table.rowType().getFields();
    JsonNode kinds = request.path("kinds");
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
      int index = 0;
      for (JsonNode row : request.path("rows")) {
        if (row.size() != fields.size()) {
          throw new IllegalArgumentException(
              "row has " + row.size() + " values, the table has " + fields.size() + " fields: " + row);
        }
        RowKind kind = kinds.has(index) ? RowKind.fromShortString(kinds.get(index).asText()) : RowKind.INSERT;
        GenericRow value = new GenericRow(kind, fields.size());
        for (int i = 0; i < fields.size(); i++) {
          value.setField(i, WireValues.toInternal(row.get(i), fields.get(i).type()));
        }
        write.write(value);
        index++;
      }
      commit.commit(write.prepareCommit());
    }
    ObjectNode response = JSON.createObjectNode();
    Optional<Snapshot> latest = catalog.getTable(identifierOf(request)).latestSnapshot();
    if (latest.isPresent()) {
      response.put("snapshotId", latest.get().id());
    } else {
      response.putNull("snapshotId");
    }
    return response;
  }

  private static JsonNode compact(Catalog catalog, JsonNode request) throws Exception {
    Table table = catalog.getTable(identifierOf(request));
    if (!table.partitionKeys().isEmpty()) {
      throw new IllegalArgumentException("compact takes an unpartitioned table");
    }
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
      for (JsonNode bucket : request.path("buckets")) {
        write.compact(BinaryRow.EMPTY_ROW, bucket.asInt(), true);
      }
      commit.commit(write.prepareCommit());
    }
    ObjectNode response = JSON.createObjectNode();
    Optional<Snapshot> latest = catalog.getTable(identifierOf(request)).latestSnapshot();
    if (latest.isPresent()) {
      response.put("snapshotId", latest.get().id());
    } else {
      response.putNull("snapshotId");
    }
    return response;
  }

  private static JsonNode read(Catalog catalog, JsonNode request) throws Exception {
    Table table = catalog.getTable(identifierOf(request));
    ObjectNode response = JSON.createObjectNode();
    JsonNode snapshotId = request.path("snapshotId");
    if (snapshotId.isIntegralNumber()) {
      table = table.copy(Map.of("scan.snapshot-id", snapshotId.asText()));
      response.put("snapshotId", snapshotId.asLong());
    } else {
      Optional<Snapshot> latest = table.latestSnapshot();
      if (latest.isPresent()) {
        response.put("snapshotId", latest.get().id());
      } else {
        response.putNull("snapshotId");
      }
    }
    // Read options (e.g. incremental-between and incremental-between-scan-mode on t$audit_log).
    Map<String, String> readOptions = new HashMap<>();
    request.path("options").fields().forEachRemaining(e -> readOptions.put(e.getKey(), e.getValue().asText()));
    if (!readOptions.isEmpty()) {
      table = table.copy(readOptions);
    }
    RowType rowType = table.rowType();
    ArrayNode fieldsJson = response.putArray("fields");
    for (DataField field : rowType.getFields()) {
      fieldsJson.addObject().put("name", field.name()).put("type", field.type().asSQLString());
    }
    ArrayNode rows = response.putArray("rows");
    ReadBuilder builder = table.newReadBuilder();
    List<Split> splits = builder.newScan().plan().splits();
    try (RecordReader<InternalRow> reader = builder.newRead().createReader(splits)) {
      reader.forEachRemaining(row -> rows.add(WireValues.fromInternal(JSON, row, rowType)));
    }
    return response;
  }

  /** Table.newExpireSnapshots with the given retention (Paimon's own expiration, as its procedures run it). */
  private static JsonNode expire(Catalog catalog, JsonNode request) throws Exception {
    Table table = catalog.getTable(identifierOf(request));
    ExpireConfig config =
        ExpireConfig.builder()
            .snapshotRetainMin(request.path("retainMin").asInt(1))
            .snapshotRetainMax(request.path("retainMax").asInt(Integer.MAX_VALUE))
            .snapshotTimeRetain(Duration.ofMillis(request.path("timeRetainedMs").asLong(0)))
            .snapshotMaxDeletes(request.path("maxDeletes").asInt(Integer.MAX_VALUE))
            .build();
    ObjectNode response = JSON.createObjectNode();
    response.put("expired", table.newExpireSnapshots().config(config).expire());
    return response;
  }

  /** LocalOrphanFilesClean (what the remove_orphan_files procedure runs): deleted paths, relative to the table. */
  private static JsonNode orphanClean(Catalog catalog, JsonNode request) throws Exception {
    FileStoreTable table = (FileStoreTable) catalog.getTable(identifierOf(request));
    long olderThan = System.currentTimeMillis() - request.path("olderThanMs").asLong(86_400_000L);
    CleanOrphanFilesResult result = new LocalOrphanFilesClean(table, olderThan, request.path("dryRun").asBoolean(false)).clean();
    ObjectNode response = JSON.createObjectNode();
    String root = table.location().toUri().getPath();
    ArrayNode deleted = response.putArray("deleted");
    for (Path path : result.getDeletedFilesPath() == null ? List.<Path>of() : result.getDeletedFilesPath()) {
      String text = path.toUri().getPath();
      deleted.add(text.startsWith(root) ? text.substring(root.length()).replaceFirst("^/", "") : text);
    }
    response.put("deletedCount", result.getDeletedFileCount());
    return response;
  }

  /** The catalog's databases and the tables of the request's database (empty when it does not exist), sorted. */
  private static JsonNode list(Catalog catalog, JsonNode request) throws Exception {
    ObjectNode response = JSON.createObjectNode();
    ArrayNode databases = response.putArray("databases");
    catalog.listDatabases().stream().sorted().forEach(databases::add);
    ArrayNode tables = response.putArray("tables");
    String database = request.path("database").asText();
    if (catalog.listDatabases().contains(database)) {
      catalog.listTables(database).stream().sorted().forEach(tables::add);
    }
    return response;
  }

  /** Catalog.dropTable (the catalog entry and the table's files). */
  private static JsonNode drop(Catalog catalog, JsonNode request) throws Exception {
    catalog.dropTable(identifierOf(request), false);
    ObjectNode response = JSON.createObjectNode();
    response.put("dropped", true);
    return response;
  }

  /**
   * Paimon Java's own {@code BatchTableCommit.commit} of the messages another writer committed: the
   * ADD entries of the source table's snapshot (the latest unless {@code snapshotId} is given), one
   * CommitMessage per data file, committed to a new table {@code target} created with the source's
   * schema. The data files are not copied (a commit reads none), so the target is for timing only.
   * Answers the commit's wall and process CPU time in milliseconds (a benchmark, not a check).
   */
  private static JsonNode commitCopy(Catalog catalog, JsonNode request) throws Exception {
    FileStoreTable source = (FileStoreTable) catalog.getTable(identifierOf(request));
    long snapshotId = request.has("snapshotId") ? request.path("snapshotId").asLong() : source.latestSnapshot().orElseThrow().id();
    List<ManifestEntry> entries = source.store().newScan().withSnapshot(snapshotId).withKind(ScanMode.DELTA).plan().files();
    List<CommitMessage> messages = new ArrayList<>(entries.size());
    for (ManifestEntry entry : entries) {
      if (entry.kind() != FileKind.ADD) throw new IllegalArgumentException("snapshot " + snapshotId + " deletes files; only an APPEND snapshot can be copied");
      messages.add(new CommitMessageImpl(entry.partition(), entry.bucket(), entry.totalBuckets(),
          new DataIncrement(List.of(entry.file()), List.of(), List.of()), CompactIncrement.emptyIncrement()));
    }
    Identifier target = Identifier.create(request.path("database").asText(), request.path("target").asText());
    Schema schema = source.schema().toSchema();
    Map<String, String> options = new HashMap<>(schema.options());
    options.remove("path");
    catalog.createTable(target, new Schema(schema.fields(), schema.partitionKeys(), schema.primaryKeys(), options, schema.comment()), false);
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    try (BatchTableCommit commit = catalog.getTable(target).newBatchWriteBuilder().newCommit()) {
      commit.commit(messages);
    }
    long wallNanos = System.nanoTime() - t0;
    long cpuNanos = os.getProcessCpuTime() - cpu0;
    ObjectNode response = JSON.createObjectNode();
    response.put("messages", messages.size());
    response.put("commitMs", wallNanos / 1e6);
    response.put("commitCpuMs", cpuNanos / 1e6);
    response.put("snapshotId", catalog.getTable(target).latestSnapshot().orElseThrow().id());
    return response;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }
}
