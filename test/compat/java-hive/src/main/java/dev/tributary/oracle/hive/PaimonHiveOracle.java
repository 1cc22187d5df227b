package dev.tributary.oracle.hive;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;

/**
 * Paimon Java's HiveCatalog on a Hive Metastore, for the compat tests of Tributary's Hive catalog:
 *
 * <pre>
 *   java -jar paimon-hive-oracle.jar list   &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt;          → {"tables":[…]}
 *   java -jar paimon-hive-oracle.jar read   &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt; &lt;table&gt;  → {"rows":[[…],…]} (values as text, sorted)
 *   java -jar paimon-hive-oracle.jar create &lt;uri&gt; &lt;warehouse&gt; &lt;db&gt; &lt;table&gt;  → {"path":"…"}
 * </pre>
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
      System.err.println("usage: list|read|create <uri> <warehouse> <db> [table]");
      System.exit(2);
    }
    Options options = new Options();
    options.set("metastore", "hive");
    options.set("uri", args[1]);
    options.set("warehouse", args[2]);
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
