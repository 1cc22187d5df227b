import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SYNC_PHASES,
  newSyncRecord,
  transition,
  type AcceptedAttempt,
  type SyncEvent,
  type SyncPhase,
  type SyncRecord,
  type SyncState,
} from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const plan = testPlan('tributary-sync-x', {
  shards: [
    { id: 's0', spec: {} },
    { id: 's1', spec: {} },
  ],
});

const attempt = (id: string): AcceptedAttempt => ({ attemptId: id, blobKey: `k/${id}`, checksum: 1, rows: 2, bytes: 3 });
const both = { s0: attempt('a'), s1: attempt('b') };
const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} };

const states: Record<SyncPhase, SyncState> = {
  PLANNED: { phase: 'PLANNED' },
  PREPARING: { phase: 'PREPARING' },
  MERGING: { phase: 'MERGING', accepted: both, buckets: 2 },
  COMMITTING: { phase: 'COMMITTING', accepted: both },
  COMMITTED: { phase: 'COMMITTED', accepted: both, snapshotId: 7 },
  ABORTING: { phase: 'ABORTING', reason, deleteStaged: true },
  ABORTED: { phase: 'ABORTED', reason, stagedDeleted: true },
};

function recordIn(phase: SyncPhase): SyncRecord {
  return { ...newSyncRecord('x', plan, 't0'), version: 3, state: states[phase] };
}

// Every (phase, event) pair: 'unchanged', 'rejected' or the phase it leads to.
type Expect = SyncPhase | 'unchanged' | 'rejected' | 'in-progress';
type EventName = 'start' | 'beginCommit' | 'committed' | 'abort' | 'abandonCommit' | 'cleaned' | 'beginMerge' | 'bucketsDone';
const bothBuckets = { 'bucket-0': attempt('c'), 'bucket-1': attempt('d') };
const events: Record<EventName, SyncEvent> = {
  start: { type: 'start' },
  beginCommit: { type: 'beginCommit', accepted: both },
  committed: { type: 'committed', snapshotId: 7 },
  abort: { type: 'abort', reason },
  abandonCommit: { type: 'abandonCommit', reason },
  cleaned: { type: 'cleaned' },
  beginMerge: { type: 'beginMerge', accepted: both, buckets: 2 },
  bucketsDone: { type: 'bucketsDone', bucketStage: { accepted: bothBuckets, files: 2 } },
};
const table: Record<SyncPhase, Record<EventName, Expect>> = {
  PLANNED: { start: 'PREPARING', beginCommit: 'rejected', committed: 'rejected', abort: 'ABORTING', abandonCommit: 'rejected', cleaned: 'rejected', beginMerge: 'rejected', bucketsDone: 'rejected' },
  PREPARING: { start: 'unchanged', beginCommit: 'COMMITTING', committed: 'rejected', abort: 'ABORTING', abandonCommit: 'rejected', cleaned: 'rejected', beginMerge: 'MERGING', bucketsDone: 'rejected' },
  MERGING: { start: 'rejected', beginCommit: 'rejected', committed: 'rejected', abort: 'ABORTING', abandonCommit: 'rejected', cleaned: 'rejected', beginMerge: 'unchanged', bucketsDone: 'COMMITTING' },
  COMMITTING: { start: 'rejected', beginCommit: 'unchanged', committed: 'COMMITTED', abort: 'in-progress', abandonCommit: 'ABORTING', cleaned: 'rejected', beginMerge: 'unchanged', bucketsDone: 'unchanged' },
  COMMITTED: { start: 'rejected', beginCommit: 'unchanged', committed: 'unchanged', abort: 'rejected', abandonCommit: 'rejected', cleaned: 'rejected', beginMerge: 'unchanged', bucketsDone: 'unchanged' },
  ABORTING: { start: 'rejected', beginCommit: 'rejected', committed: 'rejected', abort: 'unchanged', abandonCommit: 'rejected', cleaned: 'ABORTED', beginMerge: 'rejected', bucketsDone: 'rejected' },
  ABORTED: { start: 'rejected', beginCommit: 'rejected', committed: 'rejected', abort: 'unchanged', abandonCommit: 'rejected', cleaned: 'unchanged', beginMerge: 'rejected', bucketsDone: 'rejected' },
};

describe('sync state machine', () => {
  for (const phase of SYNC_PHASES) {
    for (const name of Object.keys(events) as EventName[]) {
      const event = events[name];
      const expected = table[phase][name];
      test(`${phase} + ${name} → ${expected}`, () => {
        const before = recordIn(phase);
        const result = transition(before, event, 't1');
        if (expected === 'unchanged') {
          assert.equal(result.kind, 'unchanged');
        } else if (expected === 'rejected' || expected === 'in-progress') {
          assert.equal(result.kind, 'rejected');
          if (result.kind === 'rejected') {
            assert.equal(result.code, expected === 'rejected' ? 'SYNC_ILLEGAL_TRANSITION' : 'SYNC_COMMIT_IN_PROGRESS');
          }
        } else {
          assert.equal(result.kind, 'changed');
          assert.equal(result.record.state.phase, expected);
          assert.equal(result.record.version, before.version + 1);
          assert.equal(result.record.timings[expected], 't1');
        }
      });
    }
  }

  test('bucketsDone refuses a missing or an unplanned bucket, and beginMerge a missing shard', () => {
    const merging = recordIn('MERGING');
    const missing = transition(merging, { type: 'bucketsDone', bucketStage: { accepted: { 'bucket-0': attempt('c') }, files: 1 } }, 't');
    assert.equal(missing.kind, 'rejected');
    const extra = transition(merging, { type: 'bucketsDone', bucketStage: { accepted: { 'bucket-0': attempt('c'), 'bucket-2': attempt('e') }, files: 2 } }, 't');
    assert.equal(extra.kind, 'rejected');
    const done = transition(merging, { type: 'bucketsDone', bucketStage: { accepted: bothBuckets, files: 2 }, collidingKeys: 4 }, 't');
    assert.equal(done.kind, 'changed');
    if (done.kind === 'changed' && done.record.state.phase === 'COMMITTING') {
      assert.deepEqual(done.record.state.accepted, both, 'the shards accepted on entering MERGING stay frozen');
      assert.equal(done.record.state.bucketStage?.files, 2);
      assert.equal(done.record.state.collidingKeys, 4);
    } else assert.fail('bucketsDone leads to COMMITTING');
    const noShard = transition(recordIn('PREPARING'), { type: 'beginMerge', accepted: { s0: attempt('a') }, buckets: 1 }, 't');
    assert.equal(noShard.kind, 'rejected');
  });

  test('beginCommit refuses a missing or an unplanned shard', () => {
    const preparing = recordIn('PREPARING');
    const missing = transition(preparing, { type: 'beginCommit', accepted: { s0: attempt('a') } }, 't');
    assert.equal(missing.kind, 'rejected');
    assert.match(missing.kind === 'rejected' ? missing.message : '', /missing \[s1\]/);
    const extra = transition(preparing, { type: 'beginCommit', accepted: { ...both, s9: attempt('z') } }, 't');
    assert.equal(extra.kind, 'rejected');
    assert.match(extra.kind === 'rejected' ? extra.message : '', /unplanned \[s9\]/);
  });

  test('beginCommit at 10,000 shards: exactly the planned ids commit, one unplanned id among them is named', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `shard-${String(i).padStart(5, '0')}`);
    const big: SyncRecord = { ...recordIn('PREPARING'), plan: { ...plan, shards: ids.map((id) => ({ id, spec: {} })) } };
    const accepted = Object.fromEntries(ids.map((id) => [id, attempt(id)]));
    const ok = transition(big, { type: 'beginCommit', accepted }, 't');
    assert.equal(ok.kind === 'changed' && ok.record.state.phase, 'COMMITTING');
    const { 'shard-04711': _dropped, ...withoutOne } = accepted;
    const swapped = transition(big, { type: 'beginCommit', accepted: { ...withoutOne, 'shard-10000': attempt('x') } }, 't');
    assert.match(swapped.kind === 'rejected' ? swapped.message : '', /missing \[shard-04711\], unplanned \[shard-10000\]/);
  });

  test('an abort before the commit deletes staged files; an abandoned commit keeps them', () => {
    const aborting = transition(recordIn('PREPARING'), { type: 'abort', reason }, 't');
    assert.deepEqual(aborting.kind === 'changed' && aborting.record.state, { phase: 'ABORTING', reason, deleteStaged: true });
    const abandoned = transition(recordIn('COMMITTING'), { type: 'abandonCommit', reason }, 't');
    assert.ok(abandoned.kind === 'changed');
    const aborted = transition(abandoned.record, { type: 'cleaned' }, 't');
    assert.deepEqual(aborted.kind === 'changed' && aborted.record.state, { phase: 'ABORTED', reason, stagedDeleted: false });
  });

  test('COMMITTED keeps the accepted attempts frozen at beginCommit', () => {
    const done = transition(recordIn('COMMITTING'), { type: 'committed', snapshotId: 9 }, 't');
    assert.ok(done.kind === 'changed' && done.record.state.phase === 'COMMITTED');
    assert.deepEqual(done.record.state.accepted, both);
    assert.equal(done.record.state.snapshotId, 9);
  });

  test('the colliding-key count recorded at beginCommit stays with COMMITTED; old records have none', () => {
    const committing = transition(recordIn('PREPARING'), { type: 'beginCommit', accepted: both, collidingKeys: 3 }, 't');
    assert.ok(committing.kind === 'changed' && committing.record.state.phase === 'COMMITTING');
    assert.equal(committing.record.state.collidingKeys, 3);
    const done = transition(committing.record, { type: 'committed', snapshotId: 9 }, 't');
    assert.ok(done.kind === 'changed' && done.record.state.phase === 'COMMITTED');
    assert.equal(done.record.state.collidingKeys, 3);
    const old = transition(recordIn('COMMITTING'), { type: 'committed', snapshotId: 9 }, 't');
    assert.ok(old.kind === 'changed' && old.record.state.phase === 'COMMITTED');
    assert.equal('collidingKeys' in old.record.state, false);
  });

  test('committed with another snapshot id than the recorded one is refused', () => {
    assert.equal(transition(recordIn('COMMITTED'), { type: 'committed', snapshotId: 8 }, 't').kind, 'rejected');
  });
});
