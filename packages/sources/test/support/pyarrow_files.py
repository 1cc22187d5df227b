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
  extremes     true: instead of `row`, the columns of EXTREMES (extremes of every type, full-precision
               doubles from a seeded generator, empty strings, all-NULL columns), cycled over the rows
Usage: python pyarrow_files.py '<json list of {path, start, count, ...options}>'
"""
import datetime
import decimal
import json
import random
import struct
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


def doubles(n, seed):
    """Full-precision doubles from seeded random bits (NaN payloads folded to one NaN), with the specials."""
    rng = random.Random(seed)
    special = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 0.1, 2.0**53 + 2, None]
    out = []
    for i in range(n):
        if i < len(special):
            out.append(special[i])
        else:
            out.append(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
    return out


def floats(n, seed):
    rng = random.Random(seed)
    special = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.401298464324817e-45, 3.4028234663852886e38, None]
    return [special[i] if i < len(special) else struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for i in range(n)]


def dec(text):
    return decimal.Decimal(text)


# name: (pyarrow type, values cycled over the rows); the table (pyarrow-files.ts EXTREMES_TABLE) reads them as its types.
def extremes(spec):
    n = spec["count"]
    d18 = pa.decimal128(18, 4)
    nines38 = "9" * 28 + "." + "9" * 10
    columns = {
        "i64": (pa.int64(), [-(2**63), 2**63 - 1, 0, -1, 2**53 + 1, -(2**53) - 1, None, 2**31, -(2**31) - 1]),
        "i32": (pa.int32(), [-(2**31), 2**31 - 1, 0, -1, None, 86_399_999]),
        "i16": (pa.int16(), [-(2**15), 2**15 - 1, 0, None]),
        "i8": (pa.int8(), [-128, 127, 0, None]),
        "u64": (pa.uint64(), [0, 2**64 - 1, 2**63, 2**63 - 1, None]),
        "u32": (pa.uint32(), [0, 2**32 - 1, 2**31, None]),
        "f64": (pa.float64(), doubles(997, 11)),
        "f32": (pa.float32(), floats(499, 12)),
        "d38": (pa.decimal128(38, 10), [dec(nines38), dec("-" + nines38), dec("0"), dec("0.0000000001"), dec("-0.0000000001"), None, dec("12345678901234567890.0123456789")]),
        "d18": (d18, [dec("99999999999999.9999"), dec("-99999999999999.9999"), dec("0"), dec("-0.0001"), dec("900719925474.0993"), None]),
        "d9": (pa.decimal128(9, 2), [dec("9999999.99"), dec("-9999999.99"), dec("0.00"), dec("-0.01"), None]),
        "s": (pa.string(), ["", None, "é€😀", "x" * 300, "a\u0000b", "東京"]),
        "b": (pa.binary(), [b"", None, b"\x00\xff", bytes(range(256))]),
        "nulls": (pa.string(), [None]),
        "nulls_i64": (pa.int64(), [None]),
        "day": (pa.date32(), [datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(1970, 1, 1), datetime.date(1969, 12, 31), None]),
        "t_ms": (pa.time32("ms"), [datetime.time(0), datetime.time(23, 59, 59, 999000), None]),
        "t_us": (pa.time64("us"), [datetime.time(0), datetime.time(23, 59, 59, 999999), datetime.time(12, 0, 0, 1), None]),
        "t_ns": (pa.time64("ns"), [0, 86_399_999_999_999, 1_999_999, None]),
        "ts_ms": (pa.timestamp("ms"), [-62_135_596_800_000, 253_402_300_799_999, 0, -1, None]),
        "ts_us": (pa.timestamp("us"), [-62_135_596_800_000_000, 253_402_300_799_999_999, 0, -1, None]),
        "ts_ns": (pa.timestamp("ns"), [-(2**63) + 1, 2**63 - 1, 0, -1, 1_700_000_000_123_456_789, None]),
        "flag": (pa.bool_(), [True, False, None]),
    }
    return pa.table({name: pa.array([values[i % len(values)] for i in range(n)], type=type_) for name, (type_, values) in columns.items()})


def table(spec):
    if spec.get("extremes"):
        return extremes(spec)
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
