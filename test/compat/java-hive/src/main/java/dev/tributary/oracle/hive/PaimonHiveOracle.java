package dev.tributary.oracle.hive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;

/**
 * Paimon Java's HiveCatalog on a Hive Metastore, for the compat tests of Tributary's Hive catalog:
 *
 * <pre>
 *   java -jar paimon-hive-oracle.jar list   &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt;          → {"tables":[…]}
 *   java -jar paimon-hive-oracle.jar read   &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt; &lt;table&gt;  → {"rows":[[…],…]} (values as text, sorted)
 *   java -jar paimon-hive-oracle.jar create &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt; &lt;table&gt;  → {"path":"…"}
 *   java -jar paimon-hive-oracle.jar write  &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt; &lt;table&gt; &lt;rounds.json&gt; [key=value…]  → {"rounds":N}
 * </pre>
 *
 * Any {@code key=value} after the fixed arguments is a further catalog option (e.g. {@code
 * lock.enabled=true}); the HiveCatalog reads its lock timings from the Hadoop/Hive configuration,
 * which takes the {@code hadoop.}-prefixed options.
 *
 * <p>{@code write} commits each round of a JSON file {@code [[row, …], …]} as its own batch commit
 * through the catalog (with {@code lock.enabled} each snapshot is published under the metastore's
 * table lock), in order. A row is the table's values in column order, each a JSON string or null:
 * integers and decimals in decimal text, DATE as days since the epoch, TIMESTAMP as epoch
 * milliseconds. It prints {@code {"committing":i}} before each round's commit and the total at the
 * end.
 *
 * {@code create} makes the table (id BIGINT, region STRING, amount DOUBLE), primary key (id,
 * region), partitioned by region with {@code metastore.partitioned-table = true}, and commits the
 * rows (10, eu, 1.5) and (11, apac, 2.5) through the catalog.
 */
public final class PaimonHiveOracle {
  private PaimonHiveOracle() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (args.length < 4) {
      System.err.println("usage: list|read|create|write <uri> <warehouse> <db> [table] [rounds.json] [key=value…]");
      System.exit(2);
    }
    Options options = new Options();
    options.set("metastore", "hive");
    options.set("uri", args[1]);
    options.set("warehouse", args[2]);
    int fixed = "write".equals(args[0]) ? 6 : Math.min(args.length, "list".equals(args[0]) ? 4 : 5);
    for (int i = fixed; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("not a key=value option: " + args[i]);
      options.set(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      switch (args[0]) {
        case "list":
          out.println("{\"tables\":" + strings(catalog.listTables(args[3])) + "}");
          break;
        case "read":
          out.println("{\"rows\":" + read(catalog.getTable(Identifier.create(args[3], args[4]))) + "}");
          break;
        case "create":
          out.println("{\"path\":" + quote(create(catalog, Identifier.create(args[3], args[4]))) + "}");
          break;
        case "write":
          int rounds = write(catalog.getTable(Identifier.create(args[3], args[4])), Path.of(args[5]), out);
          out.println("{\"rounds\":" + rounds + "}");
          break;
        default:
          System.err.println("unknown command " + args[0]);
          System.exit(2);
      }
    }
  }

  private static String create(Catalog catalog, Identifier id) throws Exception {
    catalog.createDatabase(id.getDatabaseName(), true);
    Schema schema =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("region", DataTypes.STRING().notNull())
            .column("amount", DataTypes.DOUBLE())
            .primaryKey("id", "region")
            .partitionKeys("region")
            .option("bucket", "1")
            .option("metastore.partitioned-table", "true")
            .build();
    catalog.createTable(id, schema, false);
    Table table = catalog.getTable(id);
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
      write.write(GenericRow.of(10L, BinaryString.fromString("eu"), 1.5));
      write.write(GenericRow.of(11L, BinaryString.fromString("apac"), 2.5));
      commit.commit(write.prepareCommit());
    }
    return table.options().get("path");
  }

  private static int write(Table table, Path roundsFile, PrintStream out) throws Exception {
    JsonNode rounds = new ObjectMapper().readTree(Files.readString(roundsFile));
    List<DataField> fields = table.rowType().getFields();
    for (int r = 0; r < rounds.size(); r++) {
      BatchWriteBuilder builder = table.newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
        for (JsonNode row : rounds.get(r)) {
          Object[] values = new Object[fields.size()];
          for (int i = 0; i < values.length; i++) values[i] = internal(row.get(i), fields.get(i).type());
          write.write(GenericRow.of(values));
        }
        out.println("{\"committing\":" + r + "}");
        commit.commit(write.prepareCommit());
      }
    }
    return rounds.size();
  }

  /** A value of the {@code write} file (see the class comment) as Paimon's internal value of `type`. */
  private static Object internal(JsonNode value, DataType type) {
    if (value == null || value.isNull()) return null;
    String text = value.asText();
    switch (type.getTypeRoot()) {
      case INTEGER:
      case DATE:
        return Integer.parseInt(text);
      case BIGINT:
        return Long.parseLong(text);
      case DOUBLE:
        return Double.parseDouble(text);
      case DECIMAL:
        DecimalType decimal = (DecimalType) type;
        return Decimal.fromBigDecimal(new BigDecimal(text), decimal.getPrecision(), decimal.getScale());
      case CHAR:
      case VARCHAR:
        return BinaryString.fromString(text);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return Timestamp.fromEpochMillis(Long.parseLong(text));
      default:
        throw new IllegalArgumentException("write does not take " + type.asSQLString());
    }
  }

  private static String read(Table table) throws Exception {
    ReadBuilder builder = table.newReadBuilder();
    List<DataField> fields = table.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    List<String> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan())) {
      reader.forEachRemaining(
          row -> {
            List<String> values = new ArrayList<>();
            for (InternalRow.FieldGetter g : getters) {
              Object v = g.getFieldOrNull(row);
              values.add(v == null ? null : v.toString());
            }
            rows.add(strings(values));
          });
    }
    rows.sort(null);
    return "[" + String.join(",", rows) + "]";
  }

  private static String strings(List<String> values) {
    List<String> quoted = new ArrayList<>();
    for (String v : values) quoted.add(v == null ? "null" : quote(v));
    return "[" + String.join(",", quoted) + "]";
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}
