import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Coordinator } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { LAYOUTS, canonicalRows, createOrdersTable, generatorSource, inProcessCoordinator, readRows, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const SHARDS = 2;
const ROWS = 20;
const EVERY_2S = '*/2 * * * * *';
/**
 * These tests fire schedules every second or two, to see several fires in a few seconds: their
 * coordinators allow that (a deployment's default minimum is 60 s, TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS).
 */
const SECOND_CRONS = { scheduleLimits: { minIntervalMs: 1000 } };

interface Run {
  firedAt: string;
  outcome: 'started' | 'skipped' | 'failed';
  syncId?: string;
  reason?: string;
  phase: string | null;
  snapshotId: number | null;
}
interface ScheduleView {
  id: string;
  cron: string;
  tz: string;
  enabled: boolean;
  nextRunAt: string | null;
  runs: Run[];
}

// Every case in both layouts: a scheduled sync is a sync like any other, whatever its layout.
for (const layout of LAYOUTS) describe(`schedules: cron-started syncs (real Redis and MinIO, a worker process, layout ${layout})`, () => {
  const e = syncEnv(`schedules-${layout}`);
  const syncBody = (table = 'orders', extra: Record<string, unknown> = {}) => ({
    table: { database: 'shop', table },
    source: generatorSource(SHARDS, ROWS),
    options: { layout },
    ...extra,
  });
  let coordinator: Coordinator;
  let worker: ChildProcess | undefined;

  const put = (id: string, payload: unknown) => coordinator.app.inject({ method: 'PUT', url: `/v1/schedules/${id}`, payload: payload as object });
  const view = async (id: string): Promise<ScheduleView> => {
    const response = await coordinator.app.inject({ method: 'GET', url: `/v1/schedules/${id}?runs=100` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<ScheduleView>();
  };
  const syncs = async (): Promise<{ id: string; phase: string; snapshotId: number | null }[]> =>
    (await coordinator.app.inject({ method: 'GET', url: '/v1/syncs?table=orders&limit=500' })).json<{ syncs: { id: string; phase: string; snapshotId: number | null }[] }>().syncs;
  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what} not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`);
      await sleep(200);
    }
  }

  before(async () => {
    coordinator = await inProcessCoordinator(e, SECOND_CRONS);
    await createOrdersTable(coordinator, 'shop', 'orders');
    await createOrdersTable(coordinator, 'shop', 'other');
  });
  after(async () => {
    if (worker !== undefined) await stop(worker);
    await coordinator.close();
  });

  test('bad definitions are refused with problem+json and their own codes', async () => {
    const cases: [string, unknown, number, string][] = [
      ['nightly', { cron: '61 * * * *', sync: syncBody() }, 400, 'SCHEDULE_CRON_INVALID'],
      ['nightly', { cron: '* * * *', sync: syncBody() }, 400, 'SCHEDULE_CRON_INVALID'],
      ['nightly', { cron: '0 30 2 * * *', tz: 'Mars/Olympus', sync: syncBody() }, 400, 'SCHEDULE_TIMEZONE_INVALID'],
      ['nightly', { cron: '0 30 2 * * *', sync: syncBody('missing') }, 400, 'SCHEDULE_TABLE_NOT_FOUND'],
      ['nightly', { cron: '0 30 2 * * *', sync: { table: { database: 'shop', table: 'orders' }, source: { kind: 'nope' } } }, 400, 'REQUEST_INVALID'],
      ['nightly', { cron: '0 30 2 * * *', sync: syncBody(), extra: 1 }, 400, 'REQUEST_INVALID'],
      ['nightly', { cron: '0 30 2 * * *', sync: syncBody('orders', { mode: 'upsert' }) }, 400, 'REQUEST_INVALID'],
      ['nightly', { sync: syncBody() }, 400, 'REQUEST_INVALID'],
      ['bad:id', { cron: '0 30 2 * * *', sync: syncBody() }, 400, 'REQUEST_INVALID'],
    ];
    for (const [id, payload, status, code] of cases) {
      const response = await put(id, payload);
      assert.equal(response.statusCode, status, `${JSON.stringify(payload)}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(response.json<{ code: string }>().code, code, response.body);
    }
    const missing = await coordinator.app.inject({ method: 'GET', url: '/v1/schedules/nightly' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json<{ code: string }>().code, 'SCHEDULE_NOT_FOUND');
    assert.equal((await coordinator.app.inject({ method: 'DELETE', url: '/v1/schedules/nightly' })).statusCode, 404);
    const list = await coordinator.app.inject({ method: 'GET', url: '/v1/schedules' });
    assert.deepEqual(list.json(), { schedules: [], nextCursor: null }, 'nothing refused was stored');
    const docs = (await coordinator.app.inject({ method: 'GET', url: '/docs/json' })).json<{ paths: Record<string, unknown> }>();
    assert.ok('/v1/schedules/{id}' in docs.paths && '/v1/schedules' in docs.paths, 'the routes are in the OpenAPI document');
  });

  test('a fire while the previous sync still runs is skipped and recorded', async () => {
    const created = await put('every-2s', { cron: EVERY_2S, tz: 'Europe/Berlin', sync: syncBody() });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json<{ created: boolean; nextRunAt: string | null; tz: string }>();
    assert.equal(body.created, true);
    assert.equal(body.tz, 'Europe/Berlin');
    assert.ok(body.nextRunAt !== null && Date.parse(body.nextRunAt) - Date.now() <= 2_100, `next fire within 2 s: ${body.nextRunAt}`);

    // No worker yet: the first fire's sync stays PREPARING, so the next fires are skipped.
    const seen = await until('one started and two skipped fires', () => view('every-2s'), (v) => v.runs.filter((r) => r.outcome === 'skipped').length >= 2);
    const started = seen.runs.filter((r) => r.outcome === 'started');
    assert.equal(started.length, 1, JSON.stringify(seen.runs));
    const first = started[0]?.syncId;
    assert.ok(first !== undefined);
    for (const skipped of seen.runs.filter((r) => r.outcome === 'skipped')) {
      assert.equal(skipped.syncId, first, 'a skipped fire names the sync that was still running');
      assert.match(skipped.reason ?? '', /still PREPARING/);
    }
    const fireTimes = seen.runs.map((r) => Date.parse(r.firedAt));
    assert.ok(fireTimes.every((t) => t % 2000 === 0), 'fire times are the cron times, on even seconds');
    assert.deepEqual(fireTimes, [...fireTimes].sort((a, b) => b - a), 'newest fire first');
    assert.deepEqual((await syncs()).map((s) => s.id), [first], 'skipped fires started nothing');
  });

  test('successive fires commit successive snapshots', async () => {
    worker = await spawnWorker(e);
    const seen = await until(
      'three committed fires',
      () => view('every-2s'),
      (v) => v.runs.filter((r) => r.outcome === 'started' && r.phase === 'COMMITTED').length >= 3,
      180_000,
    );
    const committed = seen.runs.filter((r) => r.outcome === 'started' && r.phase === 'COMMITTED').reverse();
    const snapshots = committed.map((r) => r.snapshotId ?? -1);
    assert.deepEqual(snapshots, snapshots.map((_, i) => i + 1), 'one snapshot per fire, in fire order');
    assert.equal(new Set(committed.map((r) => r.syncId)).size, committed.length, 'each fire its own sync');
  });

  test('a fire delivered twice starts one sync', async () => {
    assert.equal((await put('yearly', { cron: '0 0 0 1 1 *', tz: 'UTC', sync: syncBody('other') })).statusCode, 201);
    const at = Date.UTC(2030, 0, 1);
    const [a, b] = await Promise.all([coordinator.schedules.fire('yearly', at), coordinator.schedules.fire('yearly', at)]);
    assert.equal(a?.outcome, 'started');
    assert.deepEqual(a, b, 'the second delivery reports what the first did');
    const v = await view('yearly');
    assert.equal(v.runs.length, 1);
    const others = (await coordinator.app.inject({ method: 'GET', url: '/v1/syncs?table=other' })).json<{ syncs: { id: string }[] }>().syncs;
    assert.deepEqual(others.map((s) => s.id), [a?.syncId]);
    // Replacing the definition keeps one scheduler; disabling it removes the next fire.
    const replaced = await put('yearly', { cron: '0 0 0 1 1 *', sync: syncBody('other'), enabled: false });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual([replaced.json<{ created: boolean }>().created, replaced.json<{ nextRunAt: null }>().nextRunAt], [false, null]);
    assert.equal(await coordinator.schedules.fire('yearly', at + 1000), undefined, 'a disabled schedule does not fire');
  });

  test('a restarted coordinator keeps the schedule (definitions in Redis) and fires again', async () => {
    await coordinator.close();
    const restartedAt = Date.now();
    coordinator = await inProcessCoordinator(e, SECOND_CRONS);
    const listed = (await coordinator.app.inject({ method: 'GET', url: '/v1/schedules' })).json<{ schedules: { id: string; cron: string; enabled: boolean }[] }>();
    assert.deepEqual(
      listed.schedules.map((s) => [s.id, s.cron, s.enabled]),
      [
        ['every-2s', EVERY_2S, true],
        ['yearly', '0 0 0 1 1 *', false],
      ],
    );
    await until(
      'a fire after the restart committed',
      () => view('every-2s'),
      (v) => v.runs.some((r) => Date.parse(r.firedAt) > restartedAt && r.outcome === 'started' && r.phase === 'COMMITTED'),
    );
  });

  test('DELETE stops the schedule: no sync starts after it', async () => {
    const { nextRunAt } = await view('every-2s');
    assert.ok(nextRunAt !== null);
    const deleted = await coordinator.app.inject({ method: 'DELETE', url: '/v1/schedules/every-2s' });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal((await coordinator.app.inject({ method: 'GET', url: '/v1/schedules/every-2s' })).statusCode, 404);
    const settled = await until('every sync finished', syncs, (list) => list.every((s) => s.phase === 'COMMITTED' || s.phase === 'ABORTED'));
    // Watch the syncs until two more fire times of the deleted schedule (and half an interval) have
    // passed, failing at once if one appears.
    const quietUntil = Math.max(Date.parse(nextRunAt), Date.now()) + 2 * 2_000 + 1_000;
    const settledIds = settled.map((s) => s.id).sort();
    await until(
      'two fire times of the deleted schedule passed',
      async () => {
        const now = Date.now();
        assert.deepEqual((await syncs()).map((s) => s.id).sort(), settledIds, 'no new sync after DELETE');
        return now;
      },
      (now) => now > quietUntil,
    );
    const later = await syncs();
    assert.deepEqual(later.map((s) => s.id).sort(), settled.map((s) => s.id).sort(), 'no new sync after DELETE');
    assert.ok(later.every((s) => s.phase === 'COMMITTED'), JSON.stringify(later));

    const table = await openTable(e.store, 'shop', 'orders');
    assert.equal(Number((await table.latestSnapshot())?.id), later.length, 'one snapshot per started sync');
    assert.equal((await readRows(e, 'shop', 'orders')).length, later.length * SHARDS * ROWS, 'each load appended its rows once');
  });
});

describe('schedules: cron-started compactions (real Redis and MinIO, a worker process)', () => {
  const e = syncEnv('schedules-compaction');
  let coordinator: Coordinator;
  let worker: ChildProcess | undefined;
  const put = (id: string, payload: unknown) => coordinator.app.inject({ method: 'PUT', url: `/v1/schedules/${id}`, payload: payload as object });
  const compactionBody = (table = 'compacted') => ({ table: { database: 'shop', table }, full: true });

  before(async () => {
    coordinator = await inProcessCoordinator(e, SECOND_CRONS);
    worker = await spawnWorker(e);
    await createOrdersTable(coordinator, 'shop', 'compacted', { primaryKeys: ['order_id'], bucket: 2 });
  });
  after(async () => {
    if (worker !== undefined) await stop(worker);
    await coordinator.close();
  });

  test('a compaction schedule: refused without exactly one of sync and compaction or for a missing table; its fires start compactions, the first one a COMPACT snapshot', async () => {
    const sync = { table: { database: 'shop', table: 'compacted' }, source: generatorSource(SHARDS, ROWS) };
    const cases: [unknown, string][] = [
      [{ cron: EVERY_2S, sync, compaction: compactionBody() }, 'REQUEST_INVALID'],
      [{ cron: EVERY_2S }, 'REQUEST_INVALID'],
      [{ cron: EVERY_2S, compaction: { ...compactionBody(), extra: 1 } }, 'REQUEST_INVALID'],
      [{ cron: EVERY_2S, compaction: compactionBody('missing') }, 'SCHEDULE_TABLE_NOT_FOUND'],
    ];
    for (const [body, code] of cases) {
      const response = await put('compact-2s', body);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json<{ code: string }>().code, code, JSON.stringify(body));
    }
    // Two loads: two level-0 files per bucket.
    for (const seed of [1, 2]) {
      const started = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { ...sync, source: generatorSource(SHARDS, ROWS, { seed }), mode: 'upsert' } });
      assert.equal(started.statusCode, 202, started.body);
      const done = await waitForPhase(() => coordinator.syncs.get(started.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 120_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    }
    const before = canonicalRows(await readRows(e, 'shop', 'compacted'));

    const created = await put('compact-2s', { cron: EVERY_2S, compaction: compactionBody() });
    assert.equal(created.statusCode, 201, created.body);
    const shown = created.json<{ compaction?: unknown; sync?: unknown; nextRunAt: string | null }>();
    assert.deepEqual(shown.compaction, compactionBody());
    assert.equal(shown.sync, undefined);
    assert.ok(shown.nextRunAt !== null);
    // Wait (up to 2 minutes, on the schedule's fires and the worker's job) for a fire whose compaction committed a snapshot.
    type Run = { outcome: string; compactionId?: string; syncId?: string; phase: string | null; snapshotId: number | null };
    const deadline = Date.now() + 120_000;
    let runs: Run[] = [];
    while (!runs.some((r) => r.phase === 'COMMITTED' && r.snapshotId !== null)) {
      assert.ok(Date.now() < deadline, `no fire committed a compaction: ${JSON.stringify(runs)}`);
      await sleep(200);
      runs = (await coordinator.app.inject({ method: 'GET', url: '/v1/schedules/compact-2s?runs=100' })).json<{ runs: Run[] }>().runs;
    }
    assert.ok(runs.every((r) => r.syncId === undefined && (r.outcome !== 'started' || r.compactionId?.startsWith('compact-') === true)), JSON.stringify(runs));
    const disabled = await put('compact-2s', { cron: EVERY_2S, compaction: compactionBody(), enabled: false });
    assert.equal(disabled.statusCode, 200, disabled.body);

    const table = await openTable(e.store, 'shop', 'compacted');
    const kinds = await Promise.all((await table.snapshots.listIds()).map(async (id) => (await table.snapshot(id)).commitKind));
    assert.deepEqual(kinds, ['APPEND', 'APPEND', 'COMPACT'], 'one COMPACT snapshot: once compacted, a full compaction of the table finds nothing to do');
    assert.deepEqual(canonicalRows(await readRows(e, 'shop', 'compacted')), before, 'the rows are unchanged');
    assert.equal((await coordinator.app.inject({ method: 'DELETE', url: '/v1/schedules/compact-2s' })).statusCode, 204);
  });
});

describe('schedule fires keep their own idempotency keys (no token can claim one first)', () => {
  const e = syncEnv('schedules-keys');
  let coordinator: Coordinator;

  before(async () => {
    coordinator = await inProcessCoordinator(e, SECOND_CRONS);
    await createOrdersTable(coordinator, 'shop', 'orders');
    await createOrdersTable(coordinator, 'shop', 'other');
  });
  after(() => coordinator.close());

  test('a request with a schedule:… Idempotency-Key is refused, and the schedule\'s fires start their syncs', async () => {
    // The fire keys are public and predictable: schedule:<id>:<fire time ISO>. Claiming them with an
    // unrelated body made each of those fires fail (IDEMPOTENCY_KEY_REUSED) while the schedule looked healthy.
    const next = Math.ceil(Date.now() / 1000) * 1000;
    const keys = Array.from({ length: 15 }, (_, i) => `schedule:victim:${new Date(next + i * 1000).toISOString()}`);
    for (const key of [...keys, 'SCHEDULE:victim:x', 'schedule:']) {
      const sync = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        headers: { 'idempotency-key': key },
        payload: { table: { database: 'shop', table: 'other' }, source: generatorSource(1, 1) },
      });
      assert.equal(sync.statusCode, 400, `${key}: ${sync.body}`);
      assert.equal(sync.json<{ code: string }>().code, 'IDEMPOTENCY_KEY_RESERVED');
      const compaction = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/other/compactions', headers: { 'idempotency-key': key } });
      assert.equal(compaction.statusCode, 400, `${key}: ${compaction.body}`);
      assert.equal(compaction.json<{ code: string }>().code, 'IDEMPOTENCY_KEY_RESERVED');
    }
    const other = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', headers: { 'idempotency-key': 'nightly:victim' }, payload: { table: { database: 'shop', table: 'other' }, source: generatorSource(1, 1) } });
    assert.equal(other.statusCode, 202, 'other keys are the client\'s');

    const put = await coordinator.app.inject({ method: 'PUT', url: '/v1/schedules/victim', payload: { cron: '* * * * * *', sync: { table: { database: 'shop', table: 'orders' }, source: generatorSource(1, 1) } } });
    assert.equal(put.statusCode, 201, put.body);
    let runs: { outcome: string; reason?: string }[] = [];
    for (const deadline = Date.now() + 30_000; runs.length < 3 && Date.now() < deadline; await sleep(200)) {
      runs = (await coordinator.app.inject({ method: 'GET', url: '/v1/schedules/victim?runs=20' })).json<{ runs: { outcome: string; reason?: string }[] }>().runs;
    }
    assert.ok(runs.length >= 3, JSON.stringify(runs));
    assert.deepEqual(runs.filter((r) => r.outcome === 'failed'), [], 'no fire failed');
    assert.equal(runs.at(-1)?.outcome, 'started', 'the first fire started its sync (no worker: the later ones are skipped)');
    assert.equal((await coordinator.app.inject({ method: 'DELETE', url: '/v1/schedules/victim' })).statusCode, 204);
  });
});

describe('schedule limits: how many, how often, a page at a time (real Redis and MinIO)', () => {
  const e = syncEnv('schedules-limits');
  const MAX = 4;
  let coordinator: Coordinator;
  const body = (cron: string) => ({ cron, enabled: false, sync: { table: { database: 'shop', table: 'orders' }, source: generatorSource(1, 1) } });
  const put = (id: string, cron = '0 30 2 * * *') => coordinator.app.inject({ method: 'PUT', url: `/v1/schedules/${id}`, payload: body(cron) });
  const list = async (query = '') => {
    const response = await coordinator.app.inject({ method: 'GET', url: `/v1/schedules${query}` });
    return { response, page: response.json<{ schedules: { id: string }[]; nextCursor: string | null }>() };
  };
  const problem = (r: { statusCode: number; headers: Record<string, unknown>; json: <T>() => T }) => {
    assert.equal(r.headers['content-type'], 'application/problem+json; charset=utf-8');
    return r.json<{ status: number; code: string; detail: string; context: Record<string, unknown> }>();
  };

  before(async () => {
    // The default minimum between fires (60 s); at most MAX schedules.
    coordinator = await inProcessCoordinator(e, { scheduleLimits: { maxSchedules: MAX } });
    await createOrdersTable(coordinator, 'shop', 'orders');
  });
  after(() => coordinator.close());

  test('a pattern firing more often than the minimum (60 s by default) is refused with 400 naming it; nothing is stored', async () => {
    for (const cron of ['* * * * * *', '*/30 * * * * *', '0,59 * * * * *', '0,50 0,59 0,23 * * *']) {
      const refused = await put('too-often', cron);
      assert.equal(refused.statusCode, 400, `${cron}: ${refused.body}`);
      const p = problem(refused);
      assert.equal(p.code, 'SCHEDULE_CRON_TOO_FREQUENT');
      assert.equal(p.context['cron'], cron);
      assert.match(p.detail, new RegExp(`"${cron.replace(/[*/]/g, '\\$&')}"`), 'the detail names the pattern');
    }
    assert.equal((await coordinator.app.inject({ method: 'GET', url: '/v1/schedules/too-often' })).statusCode, 404, 'nothing stored');
    for (const cron of ['* * * * *', '0 */5 * * * *', '0 30 2 * * *']) {
      const served = await put('often-enough', cron);
      assert.ok(served.statusCode === 201 || served.statusCode === 200, `${cron}: ${served.body}`);
    }
    assert.equal((await coordinator.app.inject({ method: 'DELETE', url: '/v1/schedules/often-enough' })).statusCode, 204);
  });

  test('past the most schedules, a new one is refused with 409 (even when many are created at once); replacing one is not', async () => {
    // Created at once: exactly MAX pass, whichever they are.
    const ids = Array.from({ length: MAX + 6 }, (_, i) => `burst-${String(i).padStart(2, '0')}`);
    const answers = await Promise.all(ids.map((id) => put(id)));
    assert.equal(answers.filter((a) => a.statusCode === 201).length, MAX, answers.map((a) => a.statusCode).join(','));
    for (const refused of answers.filter((a) => a.statusCode !== 201)) {
      assert.equal(refused.statusCode, 409, refused.body);
      const p = problem(refused);
      assert.equal(p.code, 'SCHEDULE_LIMIT_REACHED');
      assert.equal(p.context['limit'], MAX);
    }
    const stored = (await list()).page.schedules.map((s) => s.id);
    assert.equal(stored.length, MAX);
    assert.deepEqual(stored, ids.filter((_, i) => answers[i]?.statusCode === 201), 'exactly the schedules answered 201 exist');
    const first = stored[0] ?? '';
    assert.equal((await put(first, '0 0 3 * * *')).statusCode, 200, 'replacing one at the limit');
    assert.equal((await put('one-more')).statusCode, 409);
    assert.equal((await coordinator.app.inject({ method: 'DELETE', url: `/v1/schedules/${first}` })).statusCode, 204);
    assert.equal((await put('one-more')).statusCode, 201, 'a deleted schedule frees its place');
  });

  test('GET /v1/schedules pages by id with limit and nextCursor; the default page holds them all; a made-up cursor is refused', async () => {
    const all = (await list()).page;
    assert.equal(all.schedules.length, MAX);
    assert.equal(all.nextCursor, null);
    const ids = all.schedules.map((s) => s.id);
    assert.deepEqual(ids, [...ids].sort(), 'by id');
    const seen: string[] = [];
    let pages = 0;
    for (let query = '?limit=3'; ; ) {
      const { response, page } = await list(query);
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(page.schedules.length <= 3);
      seen.push(...page.schedules.map((s) => s.id));
      pages += 1;
      if (page.nextCursor === null) break;
      query = `?limit=3&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    assert.equal(pages, 2);
    assert.deepEqual(seen, ids, 'the pages hold every schedule once, in order');
    for (const cursor of ['nope', Buffer.from(JSON.stringify({ k: 'tables', d: 'a', t: 'b' })).toString('base64url')]) {
      const refused = await coordinator.app.inject({ method: 'GET', url: `/v1/schedules?cursor=${cursor}` });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(problem(refused).code, 'SCHEDULE_CURSOR_INVALID');
    }
    for (const limit of ['0', '1001', 'x']) assert.equal((await list(`?limit=${limit}`)).response.statusCode, 400, limit);
  });
});
