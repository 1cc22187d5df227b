// Writes small Paimon tables with Paimon Java (paimon-bundle) and prints manifest files as text.
// See README.md in this directory for how it is run.
//
//   java MakeJavaVectors.java write <warehouse>
//       creates db.pk (primary key, bucket 2, partitioned by dt) with two appends, a full
//       compaction of one bucket and an overwrite of one partition, and db.append (bucket -1).
//   java MakeJavaVectors.java dump <tableDir> <manifest-list file name>
//       reads the list and every manifest it names with Paimon's own readers and prints one line
//       per ManifestFileMeta and per ManifestEntry (the test compares these lines).
//   java MakeJavaVectors.java dump-index <tableDir> <index manifest file name>
//       prints one line per IndexManifestEntry.
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;

import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

public class MakeJavaVectors {

    public static void main(String[] args) throws Exception {
        if (args[0].equals("write")) {
            write(args[1]);
        } else if (args[0].equals("dump-index")) {
            dumpIndex(args[1], args[2]);
        } else {
            dump(args[1], args[2]);
        }
    }

    static GenericRow row(long id, String dt, String name) {
        return GenericRow.of(id, BinaryString.fromString(dt), name == null ? null : BinaryString.fromString(name));
    }

    static void commit(Table table, List<GenericRow> rows, String overwriteDt) throws Exception {
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        if (overwriteDt != null) {
            wb = wb.withOverwrite(Collections.singletonMap("dt", overwriteDt));
        }
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (GenericRow r : rows) {
                w.write(r);
            }
            c.commit(w.prepareCommit());
        }
    }

    static void write(String warehouse) throws Exception {
        Options options = new Options();
        options.set("warehouse", warehouse);
        Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
        catalog.createDatabase("db", true);
        Schema pk = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("dt", DataTypes.STRING().notNull())
                .column("name", DataTypes.STRING())
                .partitionKeys("dt")
                .primaryKey("id", "dt")
                .option("bucket", "2")
                .build();
        catalog.createTable(Identifier.create("db", "pk"), pk, false);
        Table t = catalog.getTable(Identifier.create("db", "pk"));
        commit(t, List.of(row(1, "2024-01-01", "a"), row(2, "2024-01-01", "b"), row(3, "2024-01-02", null)), null);
        commit(t, List.of(row(2, "2024-01-01", "bb"), row(4, "2024-01-02", "d")), null);
        // Full compaction of every bucket of dt=2024-01-01: DELETEs of level-0 files, ADDs at the top level.
        BinaryRow partition = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(partition);
        writer.writeString(0, BinaryString.fromString("2024-01-01"));
        writer.complete();
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            w.compact(partition, 0, true);
            w.compact(partition, 1, true);
            c.commit(w.prepareCommit());
        }
        commit(t, List.of(row(5, "2024-01-02", "e")), "2024-01-02");

        Schema append = Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("v", DataTypes.DOUBLE())
                .build();
        catalog.createTable(Identifier.create("db", "append"), append, false);
        Table a = catalog.getTable(Identifier.create("db", "append"));
        commit(a, List.of(GenericRow.of(10L, 1.5), GenericRow.of(20L, null)), null);

        // Dynamic bucket (bucket -1 on a primary-key table): Java keeps a HASH index per bucket.
        Schema dynamic = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("dt", DataTypes.STRING().notNull())
                .column("name", DataTypes.STRING())
                .partitionKeys("dt")
                .primaryKey("id", "dt")
                .option("bucket", "-1")
                .build();
        catalog.createTable(Identifier.create("db", "dynamic"), dynamic, false);
        Table d = catalog.getTable(Identifier.create("db", "dynamic"));
        // The batch API leaves bucket assignment of dynamic tables to the caller.
        BatchWriteBuilder dwb = d.newBatchWriteBuilder();
        try (BatchTableWrite w = dwb.newWrite(); BatchTableCommit c = dwb.newCommit()) {
            w.write(row(1, "2024-01-01", "a"), 0);
            w.write(row(2, "2024-01-02", "b"), 0);
            c.commit(w.prepareCommit());
        }
    }

    static void dumpIndex(String tableDir, String indexManifest) throws Exception {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(tableDir));
        for (org.apache.paimon.manifest.IndexManifestEntry e :
                table.store().indexManifestFileFactory().create().read(indexManifest)) {
            System.out.println("INDEX " + e.kind() + " partition=" + hex(e.partition()) + " bucket=" + e.bucket()
                    + " type=" + e.indexFile().indexType() + " file=" + e.indexFile().fileName()
                    + " size=" + e.indexFile().fileSize() + " rows=" + e.indexFile().rowCount()
                    + " externalPath=" + e.indexFile().externalPath());
        }
    }

    static String hex(BinaryRow row) {
        return row == null ? "null" : hex(org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(row));
    }

    static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }

    static String stats(SimpleStats s) {
        String nulls = "null";
        if (s.nullCounts() != null) {
            List<String> counts = new java.util.ArrayList<>();
            for (int i = 0; i < s.nullCounts().size(); i++) {
                counts.add(s.nullCounts().isNullAt(i) ? "null" : String.valueOf(s.nullCounts().getLong(i)));
            }
            nulls = counts.toString();
        }
        return "{min=" + hex(s.minValues()) + " max=" + hex(s.maxValues()) + " nulls=" + nulls + "}";
    }

    static void dump(String tableDir, String manifestList) throws Exception {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(tableDir));
        List<ManifestFileMeta> metas = table.store().manifestListFactory().create().read(manifestList);
        for (ManifestFileMeta m : metas) {
            System.out.println("META " + m.fileName() + " size=" + m.fileSize() + " added=" + m.numAddedFiles()
                    + " deleted=" + m.numDeletedFiles() + " partitionStats=" + stats(m.partitionStats())
                    + " schemaId=" + m.schemaId() + " bucket=" + m.minBucket() + ".." + m.maxBucket()
                    + " level=" + m.minLevel() + ".." + m.maxLevel() + " rowId=" + m.minRowId() + ".." + m.maxRowId());
            for (ManifestEntry e : table.store().manifestFileFactory().create().read(m.fileName(), m.fileSize())) {
                DataFileMeta f = e.file();
                System.out.println("ENTRY " + e.kind() + " partition=" + hex(e.partition()) + " bucket=" + e.bucket()
                        + " totalBuckets=" + e.totalBuckets() + " file=" + f.fileName() + " size=" + f.fileSize()
                        + " rows=" + f.rowCount() + " minKey=" + hex(f.minKey()) + " maxKey=" + hex(f.maxKey())
                        + " keyStats=" + stats(f.keyStats()) + " valueStats=" + stats(f.valueStats())
                        + " seq=" + f.minSequenceNumber() + ".." + f.maxSequenceNumber() + " schemaId=" + f.schemaId()
                        + " level=" + f.level() + " extraFiles=" + f.extraFiles()
                        + " creationTime=" + (f.creationTime() == null ? "null" : f.creationTime().getMillisecond())
                        + " deleteRowCount=" + f.deleteRowCount().orElse(null)
                        + " embeddedIndex=" + hex(f.embeddedIndex()) + " fileSource=" + f.fileSource().orElse(null)
                        + " valueStatsCols=" + f.valueStatsCols() + " externalPath=" + f.externalPath().orElse(null)
                        + " firstRowId=" + f.firstRowId() + " writeCols=" + f.writeCols());
            }
        }
    }
}
