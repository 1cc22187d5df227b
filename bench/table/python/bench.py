"""The pypaimon peer of the table benchmark (see bench/table/README.md).

Creates one orders table in a local warehouse, generates the rows chunk by chunk as pyarrow
record batches (numpy, no Python loop per row), writes them with pypaimon's batch write and
commits one snapshot. The row formula is the one of bench/table/orders.ts. Prints one JSON line.

  python bench.py --warehouse DIR --table append|pk --rows N [--chunk N]
  python bench.py --warehouse DIR --count DATABASE.TABLE   (row count and column sums of a table)
"""

import argparse
import json
import resource
import time

STARTED = time.perf_counter()

import numpy as np  # noqa: E402  (imports count in the total, not in the write time)
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

from pypaimon import CatalogFactory, Schema  # noqa: E402
from pypaimon.schema.data_types import AtomicType, DataField, PyarrowFieldParser  # noqa: E402

STATUSES = pa.array(["pending", "paid", "shipped", "delivered", "cancelled"], type=pa.string())
FIELDS = [
    ("id", "BIGINT"),
    ("store_id", "INT"),
    ("amount", "DECIMAL(18, 2)"),
    ("status", "STRING"),
    ("created_at", "TIMESTAMP(3)"),
    ("dt", "DATE"),
]
SHAPES = {
    "append": {"primary_keys": [], "options": {"bucket": "-1"}},
    "pk": {"primary_keys": ["id", "dt"], "options": {"bucket": "16"}},
}
UNIT_PER_MILLI = {"s": None, "ms": 1, "us": 1_000, "ns": 1_000_000}


def orders_batch(arrow_schema, start, length):
    """Rows [start, start + length): the same formula as orders.ts, column by column."""
    i = np.arange(start, start + length, dtype=np.int64)
    cents = (i * 104729) % 10_000_000
    # DECIMAL(18, 2) from its unscaled value: 128-bit little-endian words (all values are >= 0).
    words = np.zeros((length, 2), dtype=np.int64)
    words[:, 0] = cents
    amount = pa.Array.from_buffers(arrow_schema.field("amount").type, length, [None, pa.py_buffer(words)])
    created_type = arrow_schema.field("created_at").type
    created = (1_700_000_000_000 + i * 1000) * UNIT_PER_MILLI[created_type.unit]
    columns = [
        pa.array(i, type=arrow_schema.field("id").type),
        pa.array(((i * 7919) % 1000).astype(np.int32), type=arrow_schema.field("store_id").type),
        amount,
        pc.take(STATUSES, pa.array(i % 5)),
        pa.array(created, type=pa.int64()).cast(created_type),
        pa.array((19700 + i % 30).astype(np.int32), type=pa.int32()).cast(arrow_schema.field("dt").type),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=arrow_schema)


def count(warehouse, identifier):
    """Row count and column sums of the latest snapshot, read split by split (bounded memory)."""
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(identifier)
    builder = table.new_read_builder()
    read = builder.new_read()
    rows = sum_id = sum_store_id = sum_amount_cents = 0
    for split in builder.new_scan().plan().splits():
        part = read.to_arrow([split])
        rows += part.num_rows
        sum_id += pc.sum(part.column("id")).as_py() or 0
        sum_store_id += pc.sum(part.column("store_id").cast(pa.int64())).as_py() or 0
        amounts = pc.sum(part.column("amount").cast(pa.decimal128(38, 2))).as_py()
        sum_amount_cents += int(amounts.scaleb(2)) if amounts is not None else 0
    print(json.dumps({"rows": rows, "sumId": str(sum_id), "sumStoreId": str(sum_store_id), "sumAmountCents": str(sum_amount_cents)}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--table", choices=sorted(SHAPES))
    parser.add_argument("--count", metavar="DATABASE.TABLE")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    args = parser.parse_args()
    if args.count is not None:
        return count(args.warehouse, args.count)
    if args.table is None:
        parser.error("--table or --count is required")

    shape = SHAPES[args.table]
    catalog = CatalogFactory.create({"warehouse": args.warehouse})
    catalog.create_database("bench", True)
    fields = [DataField(index, name, AtomicType(type_name, name not in shape["primary_keys"])) for index, (name, type_name) in enumerate(FIELDS)]
    identifier = f"bench.pypaimon_{args.table}"
    schema = Schema(fields=fields, partition_keys=["dt"], primary_keys=shape["primary_keys"], options=shape["options"])
    catalog.create_table(identifier, schema, False)
    table = catalog.get_table(identifier)
    arrow_schema = PyarrowFieldParser.from_paimon_schema(table.fields)

    generate_seconds = 0.0
    generate_cpu = 0.0
    write_start = time.perf_counter()
    write_cpu_start = time.process_time()
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    commit = builder.new_commit()
    try:
        for start in range(0, args.rows, args.chunk):
            t0 = time.perf_counter()
            c0 = time.process_time()
            batch = orders_batch(arrow_schema, start, min(args.chunk, args.rows - start))
            generate_seconds += time.perf_counter() - t0
            generate_cpu += time.process_time() - c0
            write.write_arrow_batch(batch)
        messages = write.prepare_commit()
        commit.commit(messages)
    finally:
        write.close()
        commit.close()
    write_seconds = time.perf_counter() - write_start - generate_seconds
    # process_time: user + system CPU of every thread of this process.
    write_cpu_seconds = time.process_time() - write_cpu_start - generate_cpu

    files = sum(len(m.new_files) for m in messages)
    print(json.dumps({
        "peer": "pypaimon",
        "table": args.table,
        "path": f"bench.db/pypaimon_{args.table}",
        "rows": args.rows,
        "files": files,
        "writeSeconds": write_seconds,
        "writeCpuSeconds": write_cpu_seconds,
        "generateSeconds": generate_seconds,
        "totalSeconds": time.perf_counter() - STARTED,
        # ru_maxrss is in kilobytes on Linux.
        "peakRssBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }))


if __name__ == "__main__":
    main()
