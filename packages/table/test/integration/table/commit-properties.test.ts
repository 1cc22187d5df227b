// Property test of the commit protocol on the local disk (fast-check): random sequences of appends,
// partition overwrites and racing commits keep the table equal to a model, with contiguous
// snapshot ids and record counts that match the live files.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { LocalObjectStore, createTable, type InternalRow, type Table } from '@tributary/table';
import { canonical } from './table-suite.ts';

type Op =
  | { readonly kind: 'append'; readonly days: readonly number[] }
  | { readonly kind: 'overwrite'; readonly day: number; readonly rows: number }
  | { readonly kind: 'race'; readonly days: readonly number[] };

const day = fc.integer({ min: 0, max: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), days: fc.array(day, { minLength: 1, maxLength: 5 }) }),
  fc.record({ kind: fc.constant('overwrite' as const), day, rows: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('race' as const), days: fc.array(day, { minLength: 2, maxLength: 4 }) }),
);

let nextId = 0n;
const row = (d: number): InternalRow => [nextId++, 19723 + d, `v${nextId}`];

async function commitRows(table: Table, rows: InternalRow[], user: string, overwriteDay?: number): Promise<void> {
  const write = await table.newWrite();
  await write.writeRows(rows);
  const messages = await write.prepareCommit();
  await table.newCommit(user).commit(messages, overwriteDay === undefined ? {} : { kind: 'OVERWRITE', overwritePartitions: [table.partitionRow({ dt: 19723 + overwriteDay })] });
}

test('commit protocol invariants over random histories', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-commit-prop-'));
  const store = new LocalObjectStore(dir);
  let tables = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        const table = await createTable(store, {
          database: 'db',
          name: `t${tables++}`,
          schema: {
            fields: [{ name: 'id', type: 'BIGINT' }, { name: 'dt', type: 'DATE' }, { name: 'v', type: 'STRING' }],
            partitionKeys: ['dt'],
            options: { 'manifest.merge-min-count': '2', 'commit.min-retry-wait': '1 ms', 'commit.max-retry-wait': '20 ms', 'commit.max-retries': '50' },
          },
        });
        const model: InternalRow[] = [];
        let snapshots = 0;
        for (const o of ops) {
          if (o.kind === 'append') {
            const rows = o.days.map(row);
            await commitRows(table, rows, `u${snapshots}`);
            model.push(...rows);
            snapshots += 1;
          } else if (o.kind === 'overwrite') {
            const rows = Array.from({ length: o.rows }, () => row(o.day));
            await commitRows(table, rows, `u${snapshots}`, o.day);
            model.splice(0, model.length, ...model.filter((r) => r[1] !== 19723 + o.day), ...rows);
            snapshots += 1;
          } else {
            const batches = o.days.map((d) => [row(d)]);
            await Promise.all(batches.map((rows, i) => commitRows(table, rows, `race${snapshots}-${i}`)));
            model.push(...batches.flat());
            snapshots += batches.length;
          }
          const latest = await table.latestSnapshot();
          assert.equal(latest?.id, BigInt(snapshots));
          const files = await table.newRead().plan();
          assert.equal(latest?.totalRecordCount, files.reduce((n, e) => n + e.file.rowCount, 0n));
          assert.deepEqual(canonical(await table.newRead().toArray()), canonical(model));
        }
        for (let id = 1; id <= snapshots; id++) assert.equal((await table.snapshot(id)).id, BigInt(id));
      }),
      { numRuns: 15 },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
