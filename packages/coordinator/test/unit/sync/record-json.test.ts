/**
 * recordJson is JSON.stringify(record), the plan's text made once per plan object: the same text
 * for any record, before and after the plan's text is kept, through transitions that keep the plan.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { planJson, recordJson } from '../../../src/sync/record-json.ts';
import { newSyncRecord, transition, type AcceptedAttempt, type SyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const shardSpec = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
const shards = fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), spec: shardSpec }), { selector: (s) => s.id, minLength: 1, maxLength: 8 });
const attempt = fc.record(
  { attemptId: fc.constantFrom('1', '2'), blobKey: fc.string(), checksum: fc.nat(), rows: fc.nat(), bytes: fc.nat(), rejected: fc.option(fc.nat(), { nil: undefined }) },
  { requiredKeys: ['attemptId', 'blobKey', 'checksum', 'rows', 'bytes'] },
);

/** The records a sync goes through: planned, started, committing (every shard accepted, maybe a count), committed. */
function lifecycle(plan: ReturnType<typeof testPlan>, accepted: Record<string, AcceptedAttempt>, colliding: number | undefined): SyncRecord[] {
  const records = [newSyncRecord('s', plan, '2026-01-01T00:00:00.000Z')];
  const events = [
    { type: 'start' as const },
    { type: 'beginCommit' as const, accepted, ...(colliding === undefined ? {} : { collidingKeys: colliding }) },
    { type: 'committed' as const, snapshotId: 3 },
  ];
  for (const event of events) {
    const next = transition(records[records.length - 1]!, event, '2026-01-01T00:00:01.000Z');
    assert.equal(next.kind, 'changed');
    if (next.kind === 'changed') records.push(next.record);
  }
  return records;
}

test('recordJson equals JSON.stringify for every record of a sync, the plan text kept or not', () => {
  fc.assert(
    fc.property(shards, fc.jsonValue({ maxDepth: 2 }), fc.option(fc.nat(), { nil: undefined }), fc.gen(), (planned, source, colliding, g) => {
      const plan = testPlan('u', { shards: planned, mode: 'upsert', options: { snapshotProperties: { 'a"b': 'c\u0000d' } } });
      const withSource = { ...plan, source: { kind: 'generator', extra: source } };
      const accepted = Object.fromEntries(planned.map((s) => [s.id, g(() => attempt)]));
      for (const record of lifecycle(withSource, accepted, colliding)) {
        assert.equal(record.plan, withSource, 'a transition keeps the plan object');
        assert.equal(recordJson(record), JSON.stringify(record));
      }
    }),
  );
});

test('members left undefined are left out, as JSON.stringify leaves them out', () => {
  const record = newSyncRecord('s', testPlan('u', { shards: 2 }), '2026-01-01T00:00:00.000Z');
  const odd = { ...record, extra: undefined, plan: { ...record.plan, schemaSha256: undefined } } as unknown as SyncRecord;
  assert.equal(recordJson(odd), JSON.stringify(odd));
  assert.equal(planJson(odd.plan), JSON.stringify(odd.plan));
});

test('a plan read again (another object) is serialised anew', () => {
  const record = newSyncRecord('s', testPlan('u', { shards: 2 }), '2026-01-01T00:00:00.000Z');
  assert.equal(recordJson(record), JSON.stringify(record));
  const reread = JSON.parse(JSON.stringify(record)) as SyncRecord;
  const changed = { ...reread, plan: { ...reread.plan, commitIdentifier: '9' } };
  assert.equal(recordJson(changed), JSON.stringify(changed));
});
