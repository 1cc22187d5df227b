import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SYNC_PHASES } from '../../../src/sync/state.ts';
import { COMPACTION_PHASES } from '@tributary/protocol';
import { decideCompactionFire, decideFire, fireIdempotencyKey, fireTimeOf } from '../../../src/schedule/fire.ts';
import { fireTemplate } from '../../../src/schedule/service.ts';

describe('fire idempotency key', () => {
  test('derived from the schedule id and the scheduled fire time only', () => {
    const at = Date.UTC(2026, 10, 29, 2, 30, 0);
    assert.equal(fireIdempotencyKey('nightly', at), 'schedule:nightly:2026-11-29T02:30:00.000Z');
    assert.equal(fireIdempotencyKey('nightly', at), fireIdempotencyKey('nightly', at), 'a fire delivered twice gets the same key');
    assert.notEqual(fireIdempotencyKey('nightly', at), fireIdempotencyKey('nightly', at + 2000), 'the next fire gets another key');
    assert.notEqual(fireIdempotencyKey('nightly', at), fireIdempotencyKey('hourly', at), 'another schedule gets another key');
  });
});

describe('fire time of a job', () => {
  test("BullMQ's prevMillis wins", () => assert.equal(fireTimeOf('repeat:s:1000', 2000), 2000));
  test('otherwise the last segment of repeat:<id>:<ms>', () => assert.equal(fireTimeOf('repeat:nightly:1764383400000', undefined), 1764383400000));
  test('undefined when neither says', () => {
    assert.equal(fireTimeOf('custom-id', undefined), undefined);
    assert.equal(fireTimeOf(undefined, undefined), undefined);
    assert.equal(fireTimeOf(undefined, 0), undefined);
  });
});

describe('overlap decision', () => {
  const cases: [string, Parameters<typeof decideFire>[0], 'start' | 'skip'][] = [
    ['first fire of a schedule', undefined, 'start'],
    ['previous record gone', { syncId: 's1', phase: undefined }, 'start'],
    ...SYNC_PHASES.map((phase): [string, Parameters<typeof decideFire>[0], 'start' | 'skip'] => [
      `previous sync ${phase}`,
      { syncId: 's1', phase },
      phase === 'COMMITTED' || phase === 'ABORTED' ? 'start' : 'skip',
    ]),
  ];
  for (const [name, previous, action] of cases) {
    test(`${name} → ${action}`, () => {
      const decision = decideFire(previous);
      assert.equal(decision.action, action);
      if (decision.action === 'skip') {
        assert.equal(decision.syncId, 's1');
        assert.match(decision.reason, new RegExp(`s1 is still ${previous?.phase ?? ''}`));
      }
    });
  }
});

describe('overlap decision of a compaction schedule', () => {
  const cases: [string, Parameters<typeof decideCompactionFire>[0], 'start' | 'skip'][] = [
    ['first fire of a schedule', undefined, 'start'],
    ['previous record gone', { compactionId: 'c1', phase: undefined }, 'start'],
    ...COMPACTION_PHASES.map((phase): [string, Parameters<typeof decideCompactionFire>[0], 'start' | 'skip'] => [
      `previous compaction ${phase}`,
      { compactionId: 'c1', phase },
      phase === 'RUNNING' || phase === 'COMMITTING' ? 'skip' : 'start',
    ]),
  ];
  for (const [name, previous, action] of cases) {
    test(`${name} → ${action}`, () => {
      const decision = decideCompactionFire(previous);
      assert.equal(decision.action, action);
      if (decision.action === 'skip') {
        assert.equal(decision.compactionId, 'c1');
        assert.match(decision.reason, new RegExp(`c1 is still ${previous?.phase ?? ''}`));
      }
    });
  }
});

describe('fire template', () => {
  test('always the whole template (BullMQ replaces it on every upsert): pointer data, attempts, backoff, retention', () => {
    assert.deepEqual(fireTemplate('nightly'), {
      name: 'schedule-fire',
      data: { scheduleId: 'nightly' },
      opts: { attempts: 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } },
    });
  });
});
