// Golden vectors for Tributary's spec codecs, computed by Paimon Java itself (paimon-bundle).
// See README.md in this directory for how it is run.
//
//   java MakeSpecVectors.java rows                 BinaryRow bytes and hashCode of many rows
//   java MakeSpecVectors.java partitions           partition directory names, legacy and CAST forms
//   java MakeSpecVectors.java table <warehouse>    creates db.t with every atomic type and commits one row
//   java MakeSpecVectors.java reread schema|snapshot <file>   Java's toJson of a file read by Java
//
// Values are printed in a small typed text form the TypeScript test parses:
//   N null, Z:true, I:<int>, L:<long>, F:<float bits hex>, G:<double bits hex>, M:<plain decimal>,
//   S:<utf-8 hex>, B:<bytes hex>, T:<epoch millis>:<nano of milli>
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowPartitionComputer;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.PartitionPathUtils;
import org.apache.paimon.utils.SerializationUtils;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

public class MakeSpecVectors {
    static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "rows": rows(); break;
            case "partitions": partitions(); break;
            case "table": table(args[1]); break;
            default: reread(args[1], Files.readString(java.nio.file.Path.of(args[2])));
        }
    }

    static DataType type(String s) {
        return DataTypeJsonParser.parseAtomicTypeSQLString(s);
    }

    /** Parses the typed text form into Paimon's internal value for this type. */
    static Object value(String v, DataType t) {
        if (v.equals("N")) return null;
        String body = v.substring(2);
        switch (v.charAt(0)) {
            case 'Z': return Boolean.parseBoolean(body);
            case 'I':
                switch (t.getTypeRoot()) {
                    case TINYINT: return Byte.parseByte(body);
                    case SMALLINT: return Short.parseShort(body);
                    default: return Integer.parseInt(body);
                }
            case 'L': return Long.parseLong(body);
            case 'F': return Float.intBitsToFloat((int) Long.parseLong(body, 16));
            case 'G': return Double.longBitsToDouble(Long.parseUnsignedLong(body, 16));
            case 'M': {
                org.apache.paimon.types.DecimalType d = (org.apache.paimon.types.DecimalType) t;
                return Decimal.fromBigDecimal(new BigDecimal(body), d.getPrecision(), d.getScale());
            }
            case 'S': return BinaryString.fromBytes(HEX.parseHex(body));
            case 'B': return HEX.parseHex(body);
            case 'T': {
                String[] p = body.split(":");
                return Timestamp.fromEpochMillis(Long.parseLong(p[0]), Integer.parseInt(p[1]));
            }
            default: throw new IllegalArgumentException(v);
        }
    }

    static String s(String text) {
        return "S:" + HEX.formatHex(text.getBytes(StandardCharsets.UTF_8));
    }

    static String f(float x) {
        return "F:" + Integer.toHexString(Float.floatToRawIntBits(x));
    }

    static String g(double x) {
        return "G:" + Long.toHexString(Double.doubleToRawLongBits(x));
    }

    static GenericRow row(List<DataType> types, String[] values) {
        GenericRow row = new GenericRow(types.size());
        for (int i = 0; i < values.length; i++) row.setField(i, value(values[i], types.get(i)));
        return row;
    }

    static void emitRow(String types, String... values) {
        List<DataType> ts = new ArrayList<>();
        if (!types.isEmpty()) for (String t : types.split(";")) ts.add(type(t));
        InternalRowSerializer ser = new InternalRowSerializer(ts.toArray(new DataType[0]));
        BinaryRow binary = ser.toBinaryRow(row(ts, values)).copy();
        System.out.println("ROW\t" + types + "\t" + String.join(";", values) + "\t"
                + HEX.formatHex(SerializationUtils.serializeBinaryRow(binary)) + "\t" + binary.hashCode());
    }

    static void rows() {
        emitRow("BOOLEAN;TINYINT;SMALLINT;INT;BIGINT", "Z:false", "I:-128", "I:32767", "I:-2147483648", "L:-9223372036854775808");
        emitRow("BIGINT", "L:9223372036854775807");
        emitRow("FLOAT;DOUBLE", f(-0.0f), g(-0.0));
        emitRow("FLOAT;DOUBLE", f(Float.NaN), g(Double.NaN));
        emitRow("FLOAT;DOUBLE", f(Float.MIN_VALUE), g(Double.MAX_VALUE));
        emitRow("DECIMAL(18, 4)", "M:-99999999999999.9999");
        emitRow("DECIMAL(19, 0)", "M:-9223372036854775808");
        emitRow("DECIMAL(38, 10)", "M:-9999999999999999999999999999.9999999999");
        emitRow("DECIMAL(38, 10)", "M:9999999999999999999999999999.9999999999");
        emitRow("DECIMAL(38, 0)", "M:0");
        emitRow("DECIMAL(38, 0)", "M:-1");
        emitRow("DECIMAL(38, 0)", "M:-10000000000000000000000000000000000000");
        emitRow("DECIMAL(20, 0)", "M:128");
        emitRow("DECIMAL(20, 0)", "M:-129");
        emitRow("STRING", s("😀"));
        emitRow("STRING", s("😀😀"));
        emitRow("STRING", s("𝄞 clef, ∑ sum, ü"));
        emitRow("CHAR(3);VARCHAR(5)", s("ab"), s("hello"));
        emitRow("BINARY(4);VARBINARY(10)", "B:00ff0080", "B:0102030405060708090a");
        emitRow("BYTES", "B:");
        emitRow("DATE;TIME(3)", "I:-719162", "I:86399999");
        emitRow("TIMESTAMP(0)", "T:-62135596800000:0");
        emitRow("TIMESTAMP(9)", "T:-1:999999");
        emitRow("TIMESTAMP(6)", "T:-86400001:123000");
        emitRow("TIMESTAMP(3) WITH LOCAL TIME ZONE;TIMESTAMP(6) WITH LOCAL TIME ZONE", "T:1704067200123:0", "T:1704067200123:456000");
        emitRow("TIMESTAMP(9) WITH LOCAL TIME ZONE", "N");
        emitRow("DECIMAL(38, 2);TIMESTAMP(9);STRING;DECIMAL(38, 2)", "N", "T:0:1", s("abcdefghij"), "M:-0.01");
        // 57 fields: the null bit set grows to 16 bytes.
        StringBuilder types = new StringBuilder();
        String[] values = new String[57];
        for (int i = 0; i < 57; i++) {
            if (i > 0) types.append(';');
            types.append(i % 3 == 0 ? "INT" : i % 3 == 1 ? "STRING" : "BIGINT");
            values[i] = i % 4 == 0 ? "N" : i % 3 == 0 ? "I:" + i : i % 3 == 1 ? s("v" + i + "-long-string") : "L:" + (-i);
        }
        emitRow(types.toString(), values);
    }

    static void emitPartition(boolean legacy, String types, String names, String... values) {
        List<DataType> ts = new ArrayList<>();
        for (String t : types.split(";")) ts.add(type(t));
        String[] ns = names.split(";");
        RowType rowType = RowType.of(ts.toArray(new DataType[0]), ns);
        InternalRowPartitionComputer computer = new InternalRowPartitionComputer("__DEFAULT_PARTITION__", rowType, ns, legacy);
        String path = PartitionPathUtils.generatePartitionPath(computer.generatePartValues(row(ts, values)));
        System.out.println("PART\t" + legacy + "\t" + types + "\t" + names + "\t" + String.join(";", values) + "\t" + path);
    }

    static void partitions() {
        for (boolean legacy : new boolean[] {true, false}) {
            emitPartition(legacy, "DATE;DATE;DATE", "a;b;c", "I:-1", "I:-719162", "I:2932896");
            emitPartition(legacy, "TIMESTAMP(9);TIMESTAMP(6);TIMESTAMP(0)", "a;b;c", "T:-1:999999", "T:-86400000:1000", "T:-62135596800000:0");
            emitPartition(legacy, "TIMESTAMP(3);TIMESTAMP(9)", "a;b", "T:1704067200010:0", "T:1704067259000:100");
            emitPartition(legacy, "DECIMAL(38, 10);DECIMAL(5, 0);DECIMAL(10, 4)", "a;b;c", "M:-0.0000000001", "M:-99999", "M:0");
            emitPartition(legacy, "FLOAT;DOUBLE;DOUBLE;DOUBLE", "a;b;c;d", f(0.1f), g(1e-4), g(12345678.0), g(0.1 + 0.2));
            emitPartition(legacy, "TIME(0);TIME(3)", "a;b", "I:0", "I:45296789");
            emitPartition(legacy, "BIGINT;TINYINT;STRING;CHAR(3)", "k=1;t/x;s;c", "L:-9223372036854775808", "I:-1", s(" \t "), s("a#b"));
            emitPartition(legacy, "STRING;STRING", "a;b", s("\u0001\"#%'*/:=?\\\u007f{}[]^"), s("é 😀\u00a0"));
        }
    }

    static void table(String warehouse) throws Exception {
        Options options = new Options();
        options.set("warehouse", warehouse);
        Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
        catalog.createDatabase("db", true);
        Schema schema = Schema.newBuilder()
                .column("id", type("BIGINT NOT NULL"))
                .column("dt", type("DATE NOT NULL"), "partition day")
                .column("b", type("BOOLEAN"))
                .column("t", type("TINYINT"))
                .column("sm", type("SMALLINT"))
                .column("i", type("INT"))
                .column("f", type("FLOAT"))
                .column("d", type("DOUBLE"))
                .column("dec", type("DECIMAL(38, 10)"))
                .column("c", type("CHAR(3)"))
                .column("vc", type("VARCHAR(10)"))
                .column("s", type("STRING"), "with \"quotes\"\nand a newline")
                .column("bin", type("BINARY(4)"))
                .column("vb", type("VARBINARY(16)"))
                .column("by", type("BYTES"))
                .column("tm", type("TIME(3)"))
                .column("ts", type("TIMESTAMP(9)"))
                .column("ltz", type("TIMESTAMP(6) WITH LOCAL TIME ZONE"))
                .partitionKeys("dt")
                .primaryKey("id", "dt")
                .option("bucket", "4")
                .option("file.format", "parquet")
                .option("sequence.field", "ts")
                .comment("every atomic type")
                .build();
        catalog.createTable(Identifier.create("db", "t"), schema, false);
        Table table = catalog.getTable(Identifier.create("db", "t"));
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            GenericRow row = new GenericRow(18);
            row.setField(0, 1L);
            row.setField(1, 19723);
            write.write(row);
            commit.commit(write.prepareCommit());
        }
        System.out.println(new Path(warehouse, "db.db/t"));
    }

    static void reread(String kind, String text) {
        if (kind.equals("schema")) {
            System.out.print(JsonSerdeUtil.toJson(TableSchema.fromJson(text)));
        } else {
            System.out.print(Snapshot.fromJson(text).toJson());
        }
    }
}
