"""pypaimon compatibility oracle: create, write and read Paimon tables with pypaimon.

The compat tests drive this script to check Tributary's tables against pypaimon (the Python
implementation of Apache Paimon). It speaks the same JSON as the Paimon Java oracle
(test/compat/java), so the tests can swap one for the other.

Usage: python oracle.py create|write|read|batch  < request.json  > response.json

  create  {warehouse, database, table, fields: [{name, type}], partitionKeys?, primaryKeys?, options?}
          -> {"path": table path}
  write   {warehouse, database, table, rows: [[v, ...]], kinds?: ["+I", ...]}   (one commit)
          -> {"snapshotId": id of the latest snapshot after the commit}
  read    {warehouse, database, table, snapshotId?, options?}   (options: read options, Paimon Java only)
          -> {"snapshotId", "fields": [{name, type}], "rows": [[v, ...]]}
  compact {warehouse, database, table, buckets: [n, ...]}   (Paimon Java only: full compaction, one COMPACT snapshot)
          -> {"snapshotId": id of the latest snapshot after the commit}
  batch   {"ops": [{"op": "create" | "write" | "read", ...}]}  -> {"results": [...]}

Values on the wire, by Paimon type (the same in both directions and in both oracles):
  BOOLEAN true/false; TINYINT, SMALLINT, INT a JSON integer; BIGINT a decimal string;
  FLOAT, DOUBLE a JSON number, or a string for "NaN", "Infinity", "-Infinity" (and "-0" on input);
  DECIMAL(p, s) the unscaled value as a decimal string (-12.50 in DECIMAL(10, 2) is "-1250");
  CHAR, VARCHAR, STRING a JSON string; BINARY, VARBINARY, BYTES lower-case hex;
  DATE days since 1970-01-01; TIME milliseconds of the day;
  TIMESTAMP, TIMESTAMP_LTZ {"epochMillis": n, "nanoOfMillis": 0..999999}; null for null.

A failure prints {"error": message} on stdout and exits with status 1.
"""

import decimal
import json
import re
import sys
import traceback

import pyarrow as pa

from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import AtomicType, DataField, PyarrowFieldParser

UNIT_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
NOT_NULL = re.compile(r"\s+NOT\s+NULL")
TYPE_PATTERN = re.compile(r"^\s*([A-Z_]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?(.*)$")


class OracleError(Exception):
    pass


def type_info(type_string):
    """Root name and parameters of a Paimon type string such as 'DECIMAL(18, 2) NOT NULL'."""
    match = TYPE_PATTERN.match(type_string.upper())
    if match is None:
        raise OracleError(f"unsupported type {type_string!r}")
    root, first, second, rest = match.groups()
    if root == "TIMESTAMP" and "WITH LOCAL TIME ZONE" in rest:
        root = "TIMESTAMP_LTZ"
    return root, (int(first) if first else None), (int(second) if second else 0)


def atomic_type(type_string):
    """pypaimon keeps nullability beside the type name ('DECIMAL(18, 2)', nullable=False)."""
    upper = type_string.upper()
    return AtomicType(NOT_NULL.sub("", upper).strip(), NOT_NULL.search(upper) is None)


def canonical_type(data_type):
    """The type as Java writes it, with one ' NOT NULL' at most (pypaimon 1.4 kept it inside the name
    of a parameterised type it read from a schema file and then appended it again)."""
    base = NOT_NULL.sub("", str(data_type).upper()).strip()
    return base if data_type.nullable else base + " NOT NULL"


def catalog_of(request):
    options = {"warehouse": request["warehouse"]}
    options.update(request.get("catalogOptions") or {})
    return CatalogFactory.create(options)


def table_of(request):
    return catalog_of(request).get_table(f"{request['database']}.{request['table']}")


# ---- values: wire JSON -> Python / pyarrow ---------------------------------------------------


def unscaled_to_decimal(text, precision, scale):
    unscaled = int(text)
    if len(str(abs(unscaled))) > precision:
        raise OracleError(f"unscaled decimal {text} has more than {precision} digits")
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        return decimal.Decimal(unscaled).scaleb(-scale)


def wire_float(value):
    return float(value)  # also parses the strings "NaN", "Infinity", "-Infinity" and "-0"


def timestamp_in_unit(value, unit):
    nanos = value["epochMillis"] * 1_000_000 + value["nanoOfMillis"]
    per_unit = UNIT_NANOS[unit]
    if nanos % per_unit != 0:
        raise OracleError(f"timestamp {value} is finer than the column's unit {unit}")
    return nanos // per_unit


def column_to_arrow(values, arrow_field, type_string):
    root, precision, scale = type_info(type_string)
    arrow_type = arrow_field.type
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        raw = [None if v is None else timestamp_in_unit(v, arrow_type.unit) for v in values]
        return pa.array(raw, type=pa.int64()).cast(arrow_type)
    if root == "BIGINT":
        return pa.array([None if v is None else int(v) for v in values], type=arrow_type)
    if root == "DECIMAL":
        return pa.array([None if v is None else unscaled_to_decimal(v, precision, scale) for v in values], type=arrow_type)
    if root in ("FLOAT", "DOUBLE"):
        return pa.array([None if v is None else wire_float(v) for v in values], type=arrow_type)
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return pa.array([None if v is None else bytes.fromhex(v) for v in values], type=arrow_type)
    if root == "DATE":
        return pa.array(values, type=pa.int32()).cast(arrow_type)
    if root == "TIME":
        return pa.array(values, type=pa.int32()).cast(arrow_type)
    return pa.array(values, type=arrow_type)


# ---- values: pyarrow -> wire JSON ------------------------------------------------------------


def column_from_arrow(column, type_string):
    root, _, scale = type_info(type_string)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        per_unit = UNIT_NANOS[column.type.unit]
        raw = column.cast(pa.int64()).to_pylist()
        return [None if v is None else split_nanos(v * per_unit) for v in raw]
    if root == "BIGINT":
        return [None if v is None else str(v) for v in column.to_pylist()]
    if root == "DECIMAL":
        return [None if v is None else decimal_to_unscaled(v, scale) for v in column.to_pylist()]
    if root in ("FLOAT", "DOUBLE"):
        return [None if v is None else float_to_wire(v) for v in column.to_pylist()]
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return [None if v is None else v.hex() for v in column.to_pylist()]
    if root in ("DATE", "TIME"):
        return column.cast(pa.int32()).to_pylist()
    return column.to_pylist()


def split_nanos(nanos):
    millis, nano_of_millis = divmod(nanos, 1_000_000)
    return {"epochMillis": millis, "nanoOfMillis": nano_of_millis}


def decimal_to_unscaled(value, scale):
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        scaled = value.scaleb(scale)
        if scaled != scaled.to_integral_value():
            raise OracleError(f"decimal {value} has more than {scale} fraction digits")
        return str(int(scaled))


def float_to_wire(value):
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return value


# ---- operations ------------------------------------------------------------------------------


def op_create(request):
    catalog = catalog_of(request)
    catalog.create_database(request["database"], True)
    fields = [DataField(index, field["name"], atomic_type(field["type"])) for index, field in enumerate(request["fields"])]
    schema = Schema(
        fields=fields,
        partition_keys=request.get("partitionKeys") or [],
        primary_keys=request.get("primaryKeys") or [],
        options=request.get("options") or {},
    )
    identifier = f"{request['database']}.{request['table']}"
    catalog.create_table(identifier, schema, False)
    return {"path": catalog.get_table(identifier).table_path}


def op_write(request):
    table = table_of(request)
    rows = request["rows"]
    kinds = request.get("kinds") or []
    refused = sorted({kind for kind in kinds if kind != "+I"})
    if refused:
        # pypaimon takes other kinds only from a 'rowkind.field' column of the table itself.
        raise OracleError(f"pypaimon writes inserts only (+I) here; it cannot write row kinds {refused}")
    arrow_schema = PyarrowFieldParser.from_paimon_schema(table.fields)
    for row in rows:
        if len(row) != len(table.fields):
            raise OracleError(f"row has {len(row)} values, the table has {len(table.fields)} fields: {row}")
    columns = [
        column_to_arrow([row[index] for row in rows], arrow_schema.field(index), str(field.type))
        for index, field in enumerate(table.fields)
    ]
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    commit = builder.new_commit()
    try:
        write.write_arrow(pa.Table.from_arrays(columns, schema=arrow_schema))
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()
    latest = table.snapshot_manager().get_latest_snapshot()
    return {"snapshotId": latest.id if latest else None}


def op_read(request):
    table = table_of(request)
    snapshot_id = request.get("snapshotId")
    if snapshot_id is not None:
        if table.snapshot_manager().get_snapshot_by_id(int(snapshot_id)) is None:
            raise OracleError(f"snapshot {snapshot_id} does not exist")
        table = table.copy({"scan.snapshot-id": str(int(snapshot_id))})
    builder = table.new_read_builder()
    scan = builder.new_scan()
    plan = scan.plan()
    arrow_table = builder.new_read().to_arrow(plan.splits())
    columns = [
        column_from_arrow(arrow_table.column(field.name), str(field.type)) for field in table.fields
    ]
    rows = [list(values) for values in zip(*columns)] if columns else []
    return {
        "snapshotId": plan.snapshot_id,
        "fields": [{"name": field.name, "type": canonical_type(field.type)} for field in table.fields],
        "rows": rows,
    }


OPERATIONS = {"create": op_create, "write": op_write, "read": op_read}


def op_batch(request):
    results = []
    for op in request["ops"]:
        name = op.get("op")
        if name not in OPERATIONS:
            raise OracleError(f"unknown op {name!r}")
        results.append(OPERATIONS[name](op))
    return {"results": results}


def main():
    commands = dict(OPERATIONS, batch=op_batch)
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        print(f"usage: oracle.py {'|'.join(commands)} < request.json", file=sys.stderr)
        return 2
    try:
        response = commands[sys.argv[1]](json.load(sys.stdin))
    except Exception as error:  # report every failure as JSON, with the trace on stderr
        traceback.print_exc(file=sys.stderr)
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        return 1
    print(json.dumps(response, ensure_ascii=False, allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
