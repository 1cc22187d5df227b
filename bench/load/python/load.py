"""The pypaimon loader of the load benchmark (see bench/load/README.md), as a Python shop would write it.

Two processes (multiprocessing, fork) each stream their share of the MariaDB shards with PyMySQL's
unbuffered cursor, turn every 10,000 rows into a pyarrow record batch and write it with pypaimon's
batch write; the parent commits both processes' messages in one commit. Prints one JSON line.

  python load.py --warehouse s3://… --table DB.TABLE --processes 2 --shard db.t … (password in BENCH_MYSQL_PASSWORD)
"""

import argparse
import json
import os
import resource
import time
from multiprocessing import get_context

import pyarrow as pa
import pymysql
import pymysql.cursors
from pypaimon import CatalogFactory
from pypaimon.schema.data_types import PyarrowFieldParser

COLUMNS = "id, customer_id, store_id, amount, tax, status, note, order_date, created_at, updated_at, qty"
CHUNK = 10_000


def catalog(warehouse):
    return CatalogFactory.create({
        "warehouse": warehouse,
        "fs.s3.endpoint": os.environ["BENCH_S3_ENDPOINT"],
        "fs.s3.accessKeyId": os.environ["BENCH_S3_ACCESS_KEY"],
        "fs.s3.accessKeySecret": os.environ["BENCH_S3_SECRET_KEY"],
        "fs.s3.region": "us-east-1",
    })


def load_shards(args):
    """One process: its shards into one write; returns the messages to commit."""
    warehouse, identifier, host, port, shards = args
    table = catalog(warehouse).get_table(identifier)
    schema = PyarrowFieldParser.from_paimon_schema(table.fields)
    write = table.new_batch_write_builder().new_write()
    for shard in shards:
        connection = pymysql.connect(host=host, port=port, user="tributary", password=os.environ["BENCH_MYSQL_PASSWORD"],
                                     cursorclass=pymysql.cursors.SSCursor, charset="utf8mb4")
        try:
            with connection.cursor() as cursor:
                # The server waits while a batch is written: a long net_write_timeout, as the other loaders set.
                cursor.execute("SET time_zone = '+00:00', SESSION net_write_timeout = 3600")
                cursor.execute(f"SELECT {COLUMNS} FROM {shard} ORDER BY id")
                while True:
                    rows = cursor.fetchmany(CHUNK)
                    if not rows:
                        break
                    columns = [pa.array([row[c] for row in rows], type=schema.field(c).type) for c in range(len(schema))]
                    write.write_arrow_batch(pa.RecordBatch.from_arrays(columns, schema=schema))
        finally:
            connection.close()
    messages = write.prepare_commit()
    write.close()
    return messages


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3390)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--shard", action="append", required=True)
    args = parser.parse_args()

    started = time.perf_counter()
    cpu_started = time.process_time()
    shares = [args.shard[i::args.processes] for i in range(args.processes)]
    with get_context("fork").Pool(args.processes) as pool:
        results = pool.map(load_shards, [(args.warehouse, args.table, args.host, args.port, share) for share in shares])
    messages = [m for result in results for m in result]
    table = catalog(args.warehouse).get_table(args.table)
    commit = table.new_batch_write_builder().new_commit()
    commit.commit(messages)
    commit.close()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "loadSeconds": time.perf_counter() - started,
        "loadCpuSeconds": time.process_time() - cpu_started + children.ru_utime + children.ru_stime,
        # ru_maxrss is in kilobytes on Linux: the largest of the two loading processes.
        "peakRssMb": children.ru_maxrss / 1024,
        "files": sum(len(m.new_files) for m in messages),
    }))


if __name__ == "__main__":
    main()
