// Property test of changelog-producer = input on the local disk (fast-check): random histories of
// loads (upserts, key-only deletes, repeated keys, no-ops, deletes of absent keys) keep, at every
// snapshot, the table equal to a model, a replay of all changelogs equal to the table (every -U/-D
// retracts exactly the row the stream holds), a retracting SUM(amount) GROUP BY store_id fed only
// the changelog equal to the SUM over the table, the snapshot invariants, and an audit without
// finding.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { LocalObjectStore, createTable, type InternalRow, type KeyedChange } from '@tributary/table';
import { ChangelogConsumer, assertConsumerMatches, assertSnapshotInvariants, load, rowText } from '../../support/changelog-harness.ts';

const change: fc.Arbitrary<KeyedChange> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ id: fc.integer({ min: 0, max: 9 }), store: fc.constantFrom('A', 'B', 'C'), cents: fc.integer({ min: 0, max: 3 }) }).map(
    ({ id, store, cents }): KeyedChange => ({ kind: 'upsert', row: [BigInt(id), store, BigInt(cents * 100)] }),
  ) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 9 }).map((id): KeyedChange => ({ kind: 'delete', row: [BigInt(id), null, null] })) },
);

test('changelog invariants over random load histories', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-prop-'));
  const store = new LocalObjectStore(dir);
  let tables = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(change, { maxLength: 12 }), { minLength: 1, maxLength: 5 }), async (loads) => {
        const table = await createTable(store, {
          database: 'prop',
          name: `t${tables++}`,
          schema: {
            fields: [{ name: 'id', type: 'BIGINT' }, { name: 'store_id', type: 'STRING' }, { name: 'amount', type: 'DECIMAL(10, 2)' }],
            primaryKeys: ['id'],
            options: { bucket: '2', 'changelog-producer': 'input' },
          },
        });
        const model = new Map<bigint, InternalRow>();
        const consumer = new ChangelogConsumer([0]);
        for (const changes of loads) {
          const before = new Map(model);
          for (const c of changes) {
            if (c.kind === 'upsert') model.set(c.row[0] as bigint, c.row);
            else model.delete(c.row[0] as bigint);
          }
          const changed = [...new Set([...before.keys(), ...model.keys()])].some((k) => rowText(before.get(k) ?? []) !== rowText(model.get(k) ?? []));
          const { snapshotId, base } = await load(table, changes);
          assert.equal(snapshotId !== null, changed, 'a snapshot exactly when a key changed');
          if (snapshotId === null) continue;
          await assertSnapshotInvariants(table, snapshotId, base, [0]);
          await consumer.consume(table, snapshotId);
          await assertConsumerMatches(table, consumer, snapshotId);
          assert.deepEqual((await table.newRead().toArray()).map(rowText).sort(), [...model.values()].map(rowText).sort(), 'the table equals the model');
        }
        const latest = await table.latestSnapshot();
        if (latest !== null) {
          const audit = await table.auditChangelog({ from: 1, to: Number(latest.id), limit: 100 });
          assert.deepEqual(audit.keys.flatMap((k) => k.findings), [], 'the audit finds nothing');
        }
      }),
      { numRuns: 20 },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
