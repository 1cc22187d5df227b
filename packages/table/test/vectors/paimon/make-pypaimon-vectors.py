"""Writes small Paimon tables with pypaimon; copy-vectors.sh then copies their manifests here.

Usage: python make-pypaimon-vectors.py <warehouse> [no-overwrite]   (see README.md)
pypaimon 1.4.2 fails on the overwrite of a primary-key partition (IndexError in its stats
code), hence `no-overwrite`: the last commit is then the second append.
"""
import os
import shutil
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

scratch = sys.argv[1]
overwrite = len(sys.argv) < 3 or sys.argv[2] != 'no-overwrite'
shutil.rmtree(scratch, ignore_errors=True)
catalog = CatalogFactory.create({'warehouse': scratch})
catalog.create_database('db', False)


def write(table, data, overwrite=None):
    wb = table.new_batch_write_builder()
    if overwrite is not None:
        wb = wb.overwrite(overwrite)
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


pk_schema = pa.schema([
    pa.field('id', pa.int64(), nullable=False),
    pa.field('dt', pa.string(), nullable=False),
    ('name', pa.string()),
])
for compression in ['zstd', 'deflate', 'snappy', 'null']:
    name = 'pk_' + compression
    catalog.create_table('db.' + name, Schema.from_pyarrow_schema(
        pk_schema, partition_keys=['dt'], primary_keys=['id', 'dt'],
        options={'bucket': '2', 'manifest.compression': compression}), False)
    t = catalog.get_table('db.' + name)
    write(t, pa.Table.from_pydict(
        {'id': [1, 2, 3], 'dt': ['2024-01-01', '2024-01-01', '2024-01-02'], 'name': ['a', 'b', None]}, schema=pk_schema))
    write(t, pa.Table.from_pydict({'id': [2, 4], 'dt': ['2024-01-01', '2024-01-02'], 'name': ['bb', 'd']}, schema=pk_schema))
    # An overwrite of one partition: its delta holds DELETE entries for that partition's files.
    if overwrite:
        write(t, pa.Table.from_pydict({'id': [5], 'dt': ['2024-01-02'], 'name': ['e']}, schema=pk_schema),
              overwrite={'dt': '2024-01-02'})

append_schema = pa.schema([('id', pa.int64()), ('v', pa.float64())])
catalog.create_table('db.append', Schema.from_pyarrow_schema(append_schema, options={}), False)
t = catalog.get_table('db.append')
write(t, pa.Table.from_pydict({'id': [10, 20], 'v': [1.5, None]}, schema=append_schema))
