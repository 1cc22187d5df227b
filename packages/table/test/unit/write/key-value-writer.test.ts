import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RowType } from '../../../src/spec/types.ts';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { RowKind, keyValueRowType, sortedRun } from '../../../src/format/key-value.ts';
import { memorySink, type FileSink } from '../../../src/parquet/parquet-writer.ts';
import { byteSourceFromBytes, readDataFile } from '../../../src/parquet/parquet-reader.ts';
import { KeyValueFileWriter } from '../../../src/write/key-value-writer.ts';

const STRING = 2147483647;
const table: RowType = {
  fields: [
    { id: 0, name: 'dt', type: { root: 'DATE', nullable: false } },
    { id: 1, name: 'k', type: { root: 'VARCHAR', length: STRING, nullable: false } },
    { id: 2, name: 'v', type: { root: 'BIGINT', nullable: true } },
    { id: 3, name: 'ver', type: { root: 'INT', nullable: true } },
  ],
};

test('KeyValueFileWriter: one file per run, exact keys, sequence range and delete count', async () => {
  const files = new Map<string, Uint8Array>();
  const open = (name: string): FileSink => {
    const sink = memorySink();
    return { write: (c) => sink.write(c), close: async () => { await sink.close(); files.set(name, sink.bytes()); } };
  };
  const writer = new KeyValueFileWriter({ tableRowType: table, trimmedPrimaryKeys: ['k'], uuid: 'kv', openSink: open, targetFileSize: 1 << 20 });
  const input1: [string, number][] = [['b', RowKind.INSERT], ['a', RowKind.DELETE], ['c', RowKind.UPDATE_BEFORE], ['b', RowKind.UPDATE_AFTER]];
  const run1 = sortedRun({
    tableRowType: table, trimmedPrimaryKeys: ['k'], firstSequenceNumber: 0n,
    batch: batchFromRows(table, input1.map(([k], i) => [1, k, BigInt(i), null])),
    rowKinds: Uint8Array.from(input1.map((r) => r[1])),
  });
  await writer.writeRun(run1);
  const run2 = sortedRun({
    tableRowType: table, trimmedPrimaryKeys: ['k'], firstSequenceNumber: 4n,
    batch: batchFromRows(table, [[1, 'a', 9n, null]]),
  });
  await writer.writeRun(run2);
  const result = await writer.close();
  assert.equal(result.length, 2);
  const [f0, f1] = result;
  assert.deepEqual([f0?.fileName, f0?.rowCount, f0?.minKey, f0?.maxKey, f0?.minSequenceNumber, f0?.maxSequenceNumber, f0?.deleteRowCount],
    ['data-kv-0.parquet', 3, ['a'], ['c'], 1n, 3n, 2]);
  assert.deepEqual([f1?.fileName, f1?.rowCount, f1?.minKey, f1?.maxKey, f1?.minSequenceNumber, f1?.maxSequenceNumber, f1?.deleteRowCount],
    ['data-kv-1.parquet', 1, ['a'], ['a'], 4n, 4n, 0]);
  assert.deepEqual(f0?.valueStats.map((s) => s.nullCount), [0, 0, 0, 3]);
  assert.deepEqual(f0?.keyStats, [{ min: 'a', max: 'c', nullCount: 0 }]);
  const back = (await readDataFile(byteSourceFromBytes(files.get('data-kv-0.parquet') as Uint8Array), keyValueRowType(table, ['k']))).flatMap(rowsFromBatch);
  assert.deepEqual(back, [
    ['a', 1n, 3, 1, 'a', 1n, null],
    ['b', 3n, 2, 1, 'b', 3n, null],
    ['c', 2n, 1, 1, 'c', 2n, null],
  ]);
});

test('a null primary key is refused with a typed error', async () => {
  const t3: RowType = { fields: [{ id: 0, name: 'k', type: { root: 'INT', nullable: true } }] };
  const writer = new KeyValueFileWriter({ tableRowType: t3, trimmedPrimaryKeys: ['k'], uuid: 'x', openSink: () => memorySink(), targetFileSize: 1024 });
  const run = sortedRun({ tableRowType: t3, trimmedPrimaryKeys: ['k'], batch: batchFromRows(t3, [[null]]), firstSequenceNumber: 0n });
  await assert.rejects(writer.writeRun(run), { code: 'DATA_FILE_NULL_IN_REQUIRED' });
});
