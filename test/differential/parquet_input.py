"""Writes the differential test's Parquet input files with pyarrow (an independent Parquet writer).

Usage: python parquet_input.py < request.json, where request is
{"files": [{"path", "columns": [{"name", "root", "precision", "scale", "nullable"}], "rows": [[...]],
            "compression", "row_group_size", "dictionary"}]}
and values are encoded as encode.ts's parquetWire: integers of 64 bits and decimals (unscaled) as
text, bytes as hex, floats as numbers or 'NaN'/'Infinity'/'-Infinity'/'-0', dates as epoch days,
times as milliseconds of the day, timestamps as epoch nanoseconds in text.
"""
import json
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq


def arrow_type(column):
    root = column["root"]
    precision = column.get("precision")
    if root == "BOOLEAN":
        return pa.bool_()
    if root in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return {"TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(), "BIGINT": pa.int64()}[root]
    if root == "FLOAT":
        return pa.float32()
    if root == "DOUBLE":
        return pa.float64()
    if root == "DECIMAL":
        return pa.decimal128(precision, column["scale"])
    if root in ("CHAR", "VARCHAR", "STRING"):
        return pa.string()
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return pa.binary()
    if root == "DATE":
        return pa.date32()
    if root == "TIME":
        return pa.time32("ms")
    unit = "ns" if precision > 6 else "us"
    return pa.timestamp(unit, tz="UTC" if root == "TIMESTAMP_LTZ" else None)


def python_value(value, column):
    if value is None:
        return None
    root = column["root"]
    if root in ("FLOAT", "DOUBLE"):
        return float(value)  # float('NaN'), float('-0') and float('Infinity') parse
    if root in ("BIGINT",):
        return int(value)
    if root == "DECIMAL":
        return Decimal(f"{value}E-{column['scale']}")
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return bytes.fromhex(value)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        nanos = int(value)
        if column["precision"] > 6:
            return nanos
        if nanos % 1000 != 0:
            raise ValueError("a microsecond column got nanoseconds")
        return nanos // 1000
    return value


def main():
    request = json.load(sys.stdin)
    for spec in request["files"]:
        arrays = []
        fields = []
        for index, column in enumerate(spec["columns"]):
            arrow = arrow_type(column)
            values = [python_value(row[index], column) for row in spec["rows"]]
            if pa.types.is_timestamp(arrow):
                arrays.append(pa.array(values, type=pa.int64()).cast(arrow))
            else:
                arrays.append(pa.array(values, type=arrow))
            fields.append(pa.field(column["name"], arrow, nullable=column["nullable"]))
        table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
        pq.write_table(
            table,
            spec["path"],
            compression=spec.get("compression", "zstd"),
            row_group_size=spec.get("row_group_size") or None,
            use_dictionary=spec.get("dictionary", True),
        )
    print(json.dumps({"written": len(request["files"])}))


if __name__ == "__main__":
    main()
