import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { securityFromEnv } from '../../src/server-config.ts';

test('schedule limits: 1,000 schedules and 60 s between fires by default; the variables set them; a bad value names its variable', () => {
  assert.deepEqual(securityFromEnv({}).scheduleLimits, { maxSchedules: 1000, minIntervalMs: 60_000 });
  assert.deepEqual(securityFromEnv({ TRIBUTARY_MAX_SCHEDULES: '25', TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS: '0' }).scheduleLimits, { maxSchedules: 25, minIntervalMs: 0 });
  for (const [name, value] of [['TRIBUTARY_MAX_SCHEDULES', '0'], ['TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', '-1'], ['TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', '86400001'], ['TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', 'soon']] as const) {
    assert.throws(() => securityFromEnv({ [name]: value }), (e: unknown) => isTributaryError(e) && e.context['variable'] === name, `${name}=${value}`);
  }
});
