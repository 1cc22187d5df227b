"""Writes pyarrow-19.0.1-dictionary-v1-none.parquet: 300 rows, one row group, no page checksums,
uncompressed data pages v1: `id` INT32 0..299 (PLAIN), `s` STRING `s{i % 7}` (dictionary-encoded,
REQUIRED, so a data page is the ids' bit width and their RLE/bit-packed runs, no levels)."""
import pyarrow as pa
import pyarrow.parquet as pq

table = pa.table({
    'id': pa.array(range(300), pa.int32()),
    's': pa.array([f's{i % 7}' for i in range(300)], pa.string()),
}, schema=pa.schema([pa.field('id', pa.int32(), nullable=False), pa.field('s', pa.string(), nullable=False)]))
pq.write_table(table, 'pyarrow-19.0.1-dictionary-v1-none.parquet', compression='none', use_dictionary=['s'],
               data_page_version='1.0', write_page_checksum=False, write_statistics=False)
