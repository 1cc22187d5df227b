"""Writes Parquet input files with pyarrow for the files-source tests.

Every file holds rows start .. start + count - 1 of the same logical data (see `row` below and
its twin `pyarrowRow` in pyarrow-files.ts); the options choose the physical encoding:
  ts_unit      'ms' | 'us' | 'ns' | 'int96'   how ts3 and ts6 are stored
  decimal_int  true: DECIMAL as INT32/INT64 (store_decimal_as_integer); false: FIXED_LEN_BYTE_ARRAY
  compression  snappy, zstd, gzip, none, ...
  row_group    rows per row group
  rename       {column: name in the file}    e.g. {"name": "Name"} to test case-insensitive matching
  drop         [columns]                     columns the file does not have
  extra        true: an extra column the table does not have
  overflow_row i: that row's amount is 10^10 (does not fit DECIMAL(12, 2))
  bad_utf8_row i: that row's name holds bytes that are not UTF-8 (in a STRING column)
Usage: python pyarrow_files.py '<json list of {path, start, count, ...options}>'
"""
import datetime
import decimal
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

EPOCH = datetime.datetime(1970, 1, 1)
EXACT = decimal.Context(prec=60)  # the default 28 digits would round DECIMAL(38) values


def row(i):
    return {
        "id": i,
        "small": (i % 256) - 128,
        "u32": 4_000_000_000 + i,
        "amount": decimal.Decimal(i * 1234567 - 500_000_000).scaleb(-2, EXACT),
        "big": decimal.Decimal(10**30 + i).scaleb(-10, EXACT),
        "name": None if i % 7 == 3 else f"n{i}-é",
        "blob": bytes([i % 256, 7]),
        "flag": None if i % 5 == 0 else i % 3 == 0,
        "f32": i + 0.5,
        "f64": i / 3,
        "day": datetime.date(1970, 1, 1) + datetime.timedelta(days=i * 37 - 20000),
        "ts3": EPOCH + datetime.timedelta(milliseconds=i * 86_400_123 - 40_000_000_000),
        "ts6": EPOCH + datetime.timedelta(microseconds=i * 7_777_777_777 - 1_000_000_123_457),
        "note": f"note {i}",
    }


def table(spec):
    rows = [row(i) for i in range(spec["start"], spec["start"] + spec["count"])]
    if "overflow_row" in spec:
        rows[spec["overflow_row"] - spec["start"]]["amount"] = decimal.Decimal(10**10)
    unit = {"int96": "ns"}.get(spec["ts_unit"], spec["ts_unit"])
    types = {
        "id": pa.int64(),
        "small": pa.int8(),
        "u32": pa.uint32(),
        "amount": pa.decimal128(12, 2) if "overflow_row" not in spec else pa.decimal128(16, 2),
        "big": pa.decimal128(38, 10),
        "name": pa.string(),
        "blob": pa.binary(),
        "flag": pa.bool_(),
        "f32": pa.float32(),
        "f64": pa.float64(),
        "day": pa.date32(),
        "ts3": pa.timestamp(unit),
        "ts6": pa.timestamp("us" if unit == "ms" else unit),
        "note": pa.string(),
    }
    columns = {}
    for name, type_ in types.items():
        if name in spec.get("drop", []):
            continue
        columns[spec.get("rename", {}).get(name, name)] = pa.array([r[name] for r in rows], type=type_)
    if "bad_utf8_row" in spec:
        names = [None if r["name"] is None else r["name"].encode() for r in rows]
        names[spec["bad_utf8_row"] - spec["start"]] = b"bad \xff"
        columns[spec.get("rename", {}).get("name", "name")] = pa.array(names, type=pa.binary()).view(pa.string())
    if spec.get("extra"):
        columns["extra"] = pa.array([[i, i] for i in range(len(rows))], type=pa.list_(pa.int32()))
    return pa.table(columns)


for spec in json.loads(sys.argv[1]):
    pq.write_table(
        table(spec),
        spec["path"],
        compression=spec.get("compression", "snappy"),
        row_group_size=spec.get("row_group", 1_000_000),
        use_deprecated_int96_timestamps=spec["ts_unit"] == "int96",
        version="2.6",  # keeps each unit as declared (NANOS included)
        store_decimal_as_integer=spec.get("decimal_int", False),
        data_page_version=spec.get("data_page_version", "1.0"),
        use_dictionary=spec.get("dictionary", True),
    )
