"""Writes one shard of the load benchmark's dataset (bench/load/dataset.ts `selectRows`) as a Parquet file.

Row `seq` (1-based) of shard `s`: id = s * rows + seq, every other column the same formula of seq as
the MariaDB dataset's, NULL where it is. Usage:

    python orders_parquet.py <rows> <shard> <path> [fixed|int]

`fixed` (pyarrow's default) stores the DECIMALs as FIXED_LEN_BYTE_ARRAY, `int` as INT64 (as Spark does).
"""
import datetime
import decimal
import sys

import pyarrow as pa
import pyarrow.parquet as pq

n, shard, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
decimals = sys.argv[4] if len(sys.argv) > 4 else "fixed"
seqs = range(1, n + 1)


def nullable(residue, f):
    return [None if s % 10 == residue else f(s) for s in seqs]


statuses = ["NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"]
notes = ["café ", "naïve ", "東京 ", "Zürich ", "😀 emoji ", "plain ", "Ωμέγα "]
d1990 = datetime.date(1990, 1, 1)
t2020 = datetime.datetime(2020, 1, 1)
t2021 = datetime.datetime(2021, 6, 1)
table = pa.table(
    {
        "id": pa.array([s + shard * n for s in seqs], pa.int64()),
        "customer_id": pa.array([(s * 7919) % 100000 + 1 for s in seqs], pa.int32()),
        "store_id": pa.array(nullable(1, lambda s: s % 64), pa.int16()),
        "amount": pa.array(nullable(2, lambda s: decimal.Decimal((s * 104729) % 100000000).scaleb(-2)), pa.decimal128(12, 2)),
        "tax": pa.array(nullable(3, lambda s: decimal.Decimal(((s * 15485863) % 100000000000000) * (-1 if s % 7 == 0 else 1)).scaleb(-4)), pa.decimal128(18, 4)),
        "status": pa.array(nullable(4, lambda s: statuses[s % 5]), pa.string()),
        "note": pa.array(nullable(5, lambda s: notes[s % 7] + str(s)), pa.string()),
        "order_date": pa.array(nullable(6, lambda s: d1990 + datetime.timedelta(days=(s * 31) % 20000)), pa.date32()),
        "created_at": pa.array([t2020 + datetime.timedelta(milliseconds=(s * 37001) % 100000000000) for s in seqs], pa.timestamp("ms")),
        "updated_at": pa.array(nullable(7, lambda s: t2021 + datetime.timedelta(microseconds=(s * 1234567) % 100000000000000)), pa.timestamp("us")),
        "qty": pa.array(nullable(8, lambda s: (s % 1000) - 500), pa.int32()),
    }
)
pq.write_table(table, path, compression="snappy", store_decimal_as_integer=decimals == "int")
