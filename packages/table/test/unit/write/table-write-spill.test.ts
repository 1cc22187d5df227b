/**
 * A spilling TableWrite (a sync's bucketed layout) keeps the batches it is given and makes each
 * bucket's sorted run from them at the spill, in one copy (gatherRows). Its runs must be exactly
 * what sortedRun makes of the bucket's rows in arrival order: the same kept row per key (sequence
 * field, then the later row), the same row kinds, NULLs and values, and sequence numbers by arrival.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { LocalObjectStore, TableWrite, createTable } from '@tributary/table';
import { batchFromRows, concatBatches, rowsFromBatch, takeRows, type ColumnBatch } from '../../../src/format/column-batch.ts';
import { keyValueRowType, sortedRun } from '../../../src/format/key-value.ts';
import { RowRouter } from '../../../src/write/row-routing.ts';
import { parseRunSegment, readRunSegment } from '../../../src/write/run-spill.ts';
import type { InternalRow, InternalValue } from '../../../src/spec/types.ts';

const RUNS = 'staging/runs';

const rowArb = fc.tuple(
  fc.integer({ min: 0, max: 24 }), // k
  fc.constantFrom('a', 'b', ''), // p (partition)
  fc.option(fc.integer({ min: -3, max: 3 }), { nil: null }), // seq (sequence.field): ties and NULLs
  fc.option(fc.string({ maxLength: 4, unit: 'binary' }), { nil: null }), // v
  fc.option(fc.double({ noNaN: false }), { nil: null }), // d
  fc.constantFrom(0, 0, 0, 2, 3), // row kind: +I, +U, -D
);

test('spilled runs are sortedRun of each bucket\u2019s rows in arrival order, across the batches they came in', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-spill-gather-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'spill_gather',
      schema: {
        fields: [
          { name: 'k', type: 'INT NOT NULL' },
          { name: 'p', type: 'STRING NOT NULL' },
          { name: 'seq', type: 'INT' },
          { name: 'v', type: 'STRING' },
          { name: 'd', type: 'DOUBLE' },
        ],
        partitionKeys: ['p'],
        primaryKeys: ['k', 'p'],
        options: { bucket: '3', 'sequence.field': 'seq' },
      },
    });
    const rowType = { fields: table.schema.fields };
    const kvType = keyValueRowType(rowType, ['k']);
    let runs = 0;
    let multiBatchBuckets = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(rowArb, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 6 }), async (batches) => {
        const writerId = `w${runs++}`;
        const write = await TableWrite.open(store, table.path, table.schema, { writerId, dataPath: `${RUNS}/${writerId}`, spill: true, baseSnapshotId: null });
        const written: ColumnBatch[] = [];
        const kinds: number[] = [];
        for (const rows of batches) {
          const batch = batchFromRows(rowType, rows.map((r) => r.slice(0, 5) as InternalRow));
          written.push(batch);
          kinds.push(...rows.map((r) => r[5]));
          await write.write(batch, Uint8Array.from(rows, (r) => r[5]));
        }
        const messages = await write.prepareCommit();
        // The model: every row in arrival order, split by the table's own router, sortedRun per bucket.
        const all = concatBatches(rowType, written);
        const expected = new Map<string, InternalValue[][]>();
        for (const { target, rows } of new RowRouter(table.schema).route(all)) {
          const indices = Int32Array.from(rows);
          const run = sortedRun({
            tableRowType: rowType,
            trimmedPrimaryKeys: ['k'],
            sequenceFields: ['seq'],
            batch: takeRows(all, indices),
            rowKinds: Uint8Array.from(indices, (i) => kinds[i] as number),
            firstSequenceNumber: 0n,
          });
          expected.set(`${Buffer.from(target.partition).toString('hex')}/${target.bucket}`, rowsFromBatch(run));
          const batchesOfBucket = new Set(rows.map((row) => written.findIndex((_, b) => row < written.slice(0, b + 1).reduce((n, x) => n + x.length, 0))));
          if (batchesOfBucket.size > 1) multiBatchBuckets++;
        }
        assert.equal(messages.length, expected.size);
        for (const m of messages) {
          const key = `${Buffer.from(m.partition).toString('hex')}/${m.bucket}`;
          const got: InternalValue[][] = [];
          for (const f of m.dataIncrement.newFiles) {
            const segment = parseRunSegment(f.fileName);
            assert.ok(segment?.checksum !== undefined, 'a run segment');
            for await (const b of readRunSegment({ store, key: `${RUNS}/${writerId}/${segment.object}`, segment: { ...segment, checksum: segment.checksum }, size: Number(f.fileSize), whole: true }, kvType)) got.push(...rowsFromBatch(b));
          }
          const want = expected.get(key) ?? [];
          // Sequence numbers: first + arrival position, from the writer's first number of the bucket.
          const shift = got.length === 0 ? 0n : (got[0]![1] as bigint) - (want[0]![1] as bigint);
          assert.deepEqual(
            got.map((r) => [...r.slice(0, 1), (r[1] as bigint) - shift, ...r.slice(2)]),
            want,
            `bucket ${key}`,
          );
        }
      }),
      { numRuns: 60 },
    );
    assert.ok(multiBatchBuckets > 30, `buckets whose rows came in several batches: ${multiBatchBuckets}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
