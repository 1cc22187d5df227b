/**
 * The `tributary` command as a user runs it, real processes throughout: `--help` on every command
 * and `--version` (also through the bin shim on the machine's own Node); configuration errors (exit
 * code, the key named, the value never printed); Redis unreachable (bounded lines, exit 3 within
 * the configured time); and every REST command against a coordinator and a worker started by the CLI.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { SyncStore, newToken } from '@tributary/coordinator';
import { TRIBUTARY_VERSION } from '@tributary/table';
import { freePort, services, uniqueName } from '@tributary/testkit';
import { ORDERS_COLUMNS, plannedSyncRecord, spawnListeningCoordinator, spawnWorker, stop, syncEnv, waitUntil } from '../sync/harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = 'packages/cli/src/main.ts';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Milliseconds from the first stderr output to the exit. */
  readonly afterFirstError: number | null;
}

function tributary(args: readonly string[], env: NodeJS.ProcessEnv = process.env, node = process.execPath, entry = CLI): Promise<Run> {
  const child = spawn(node, [entry, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let firstError: number | null = null;
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    firstError ??= Date.now();
    stderr += d.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr, afterFirstError: firstError === null ? null : Date.now() - firstError })));
}

const COMMANDS = [
  [],
  ['coordinator'],
  ['worker'],
  ['sync'],
  ['sync', 'start'],
  ['sync', 'status'],
  ['sync', 'watch'],
  ['sync', 'abort'],
  ['sync', 'list'],
  ['table'],
  ['table', 'create'],
  ['table', 'list'],
  ['table', 'show'],
  ['table', 'snapshots'],
  ['table', 'files'],
  ['table', 'read'],
  ['table', 'changelog'],
  ['table', 'expire'],
  ['table', 'clean-orphans'],
  ['table', 'compact'],
  ['table', 'compaction'],
  ['table', 'drop'],
  ['schedule'],
  ['schedule', 'put'],
  ['schedule', 'list'],
  ['schedule', 'show'],
  ['schedule', 'delete'],
];

describe('tributary: help, version, the shim', () => {
  test('--help on every command prints its usage and exits 0 without starting anything', async () => {
    for (const command of COMMANDS) {
      const run = await tributary([...command, '--help']);
      assert.equal(run.code, 0, `${command.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`^Usage: tributary${command.length === 0 ? '' : ` ${command.join(' ')}`}\\b`), command.join(' '));
      assert.ok(!run.stdout.includes('listening'));
    }
    // The worker's help lists its flag with the variable and the default.
    assert.match((await tributary(['worker', '--help'])).stdout, /--concurrency <value>[\s\S]*TRIBUTARY_WORKER_CONCURRENCY; default 1/);
  });

  test('--version, directly, through the bin shim on the machine’s node, and through npx', async () => {
    // Tributary's one version (the protocol package's, as in blob headers and the OpenAPI document).
    const version = TRIBUTARY_VERSION;
    assert.equal((await tributary(['--version'])).stdout.trim(), version);
    // The system node (any version) runs the plain-JavaScript shim, which re-executes the pinned Node 24.
    const systemNode = '/usr/bin/node';
    const shim = await tributary(['--version'], process.env, systemNode, 'packages/cli/bin/tributary.js');
    assert.equal(shim.code, 0, shim.stderr);
    assert.equal(shim.stdout.trim(), version);
    const npx = await new Promise<Run>((resolve) => {
      const child = spawn('npx', ['--no-install', 'tributary', '--version'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.once('close', (code) => resolve({ code, stdout, stderr: '', afterFirstError: null }));
    });
    assert.equal(npx.code, 0);
    assert.equal(npx.stdout.trim(), version);
  });
});

describe('tributary: configuration errors at start', () => {
  const e = syncEnv('cli-config');

  test('a bad variable: exit 2 (coordinator) / 1 (worker), the key and variable named, the value not printed', async () => {
    const value = 'port-s3cr3t-41';
    const coordinator = await tributary(['coordinator'], { ...e.env, TRIBUTARY_REDIS_PORT: value });
    assert.equal(coordinator.code, 2);
    assert.match(coordinator.stderr, /^coordinator: configuration: redis\.port \(environment variable TRIBUTARY_REDIS_PORT\) must be an integer from 1 to 65535$/m);
    assert.ok(!coordinator.stderr.includes(value) && !coordinator.stdout.includes(value));
    const worker = await tributary(['worker'], { ...e.env, TRIBUTARY_WORKER_CONCURRENCY: 'lots' });
    assert.equal(worker.code, 1);
    assert.match(worker.stderr, /worker: configuration: worker\.concurrency \(environment variable TRIBUTARY_WORKER_CONCURRENCY\) must be an integer/);
  });

  test('a bad flag beats a good variable; a bad file value and an unknown file key are named', async () => {
    const flag = await tributary(['coordinator', '--port', '70000'], { ...e.env, TRIBUTARY_PORT: '0' });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /coordinator\.port \(flag --port\) must be an integer from 0 to 65535/);
    const dir = mkdtempSync(join(tmpdir(), 'tributary-cli-'));
    const file = join(dir, 'tributary.json');
    writeFileSync(file, JSON.stringify({ s3: { secretKey: 123456789 }, redis: { prot: 1 } }));
    const run = await tributary(['--config', file, 'sync', 'list'], { ...e.env });
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`tributary: configuration: file ${file}: unknown key redis\\.prot`));
    assert.match(run.stderr, new RegExp(`s3\\.secretKey \\(file ${file}\\) must be a secret key`));
    assert.ok(!run.stderr.includes('123456789'));
  });

  test('Redis unreachable: one line per attempt, then exit 3 within the configured time', async () => {
    const port = await freePort();
    const run = await tributary(['coordinator', '--port', '0', '--redis-port', String(port), '--startup-timeout-ms', '2000'], e.env);
    assert.equal(run.code, 3, run.stderr);
    const attempts = run.stderr.split('\n').filter((l) => l.includes(`Redis at 127.0.0.1:${port} unreachable (attempt`));
    // 250 + 500 + 1000 ms of back-off, then what is left of the 2 s: 4 or 5 attempts, one line each.
    assert.ok(attempts.length >= 3 && attempts.length <= 5, run.stderr);
    assert.ok(attempts.every((l) => l.includes('ECONNREFUSED')), run.stderr);
    assert.match(run.stderr, /coordinator: Redis at .* unreachable after \d+ attempts in 2000 ms \(startupTimeoutMs\)/);
    assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
    // From its first line to its exit: the 2 s and an attempt's time, not more.
    assert.ok((run.afterFirstError ?? Infinity) < 4000, `exited ${run.afterFirstError} ms after its first line`);
  });

  test('S3 unreachable: the worker says so once per attempt and exits 3', async () => {
    const port = await freePort();
    const run = await tributary(['worker', '--s3-endpoint', `http://127.0.0.1:${port}`, '--startup-timeout-ms', '1500'], e.env);
    assert.equal(run.code, 3, run.stderr);
    // One JSON log line per attempt.
    const attempts = run.stderr.split('\n').filter((l) => /^\{.*"service":"worker".*"msg":"S3 s3:\/\/\S+ at http:\/\/127\.0\.0\.1:\d+ unreachable \(attempt \d\): .*ECONNREFUSED/.test(l));
    assert.ok(attempts.length >= 2 && attempts.length <= 5, run.stderr);
    assert.match(run.stderr, /^worker: S3 .* unreachable after \d+ attempts in \d+ ms \(startupTimeoutMs\)/m);
    assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
  });
});

describe('tributary: every REST command against a coordinator and a worker started by the CLI', () => {
  const e = syncEnv('cli-rest');
  const database = uniqueName('cli_db').replaceAll('-', '_');
  const name = 'orders';
  const table = `${database}.${name}`;
  let coordinator: ChildProcess;
  let worker: ChildProcess;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => tributary(args, env);

  before(async () => {
    const started = await spawnListeningCoordinator(e);
    coordinator = started.child;
    worker = await spawnWorker(e, {}, ['--concurrency', '2']);
    env = { ...e.env, TRIBUTARY_URL: started.url };
  });
  after(async () => {
    await Promise.all([stop(worker), stop(coordinator)]);
  });

  test('table create and show', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-cli-'));
    writeFileSync(join(dir, 'columns.json'), JSON.stringify(ORDERS_COLUMNS));
    const created = await cli('table', 'create', table, '--columns', `@${join(dir, 'columns.json')}`);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), `created ${table}`);
    const again = await cli('table', 'create', table, '--columns', JSON.stringify(ORDERS_COLUMNS));
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^tributary: POST \/v1\/tables: 409 TABLE_ALREADY_EXISTS: /m);
    const shown = await cli('table', 'show', table);
    assert.equal(shown.code, 0, shown.stderr);
    const info = JSON.parse(shown.stdout) as { name: string; columns: { name: string }[] };
    assert.deepEqual(info.columns.map((c) => c.name), ORDERS_COLUMNS.map((c) => c.name));
  });

  let committed = '';
  test('sync start, then watch to the end (lines, not redraws, off a terminal), then status and list', async () => {
    const source = JSON.stringify({ kind: 'generator', shards: 3, rowsPerShard: 2000 });
    const started = await cli('sync', 'start', '--table', table, '--source', source);
    assert.equal(started.code, 0, started.stderr);
    committed = started.stdout.trim();
    assert.match(committed, /^sync-/);
    const watched = await cli('sync', 'watch', committed, '--interval', '200');
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    assert.doesNotMatch(watched.stdout, /\x1b\[/, 'no cursor movement when stdout is not a terminal');
    const lines = watched.stdout.trim().split('\n');
    assert.match(lines.at(-1) ?? '', /^COMMITTED +shards 3\/3 +rows 6,000 .*snapshot 1$/);
    const status = await cli('sync', 'status', committed);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`^sync ${committed}\\nCOMMITTED +shards 3/3 +rows 6,000 +snapshot 1\\n$`));
    const brief = await cli('sync', 'status', committed, '--brief');
    assert.equal(brief.code, 0, brief.stderr);
    assert.equal(brief.stdout, `${committed} COMMITTED ${database}.${name} shards 3/3 rows 6,000 snapshot 1\n`);
    const list = await cli('sync', 'list', '--database', database);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^ID +PHASE +TABLE[^\\n]*\\n${committed} +COMMITTED +${database}\\.${name} +3 +1 `));
  });

  test('sync list past one page (500): the CLI follows the cursor, each sync once, newest first', async () => {
    // Records written straight to the coordinator's store: 520 syncs into a database of their own.
    const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
    try {
      const store = new SyncStore(redis, e.prefix);
      const ids = Array.from({ length: 520 }, (_, i) => `many-${String(i).padStart(3, '0')}`);
      // Ended (ABORTED, nothing staged): they count against no limit of active syncs.
      const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} };
      await Promise.all(
        ids.map(async (id, i) => {
          await store.create(plannedSyncRecord(id, 'many_db', 't'), 5000 + Math.floor(i / 2));
          await store.apply(id, { type: 'abort', reason });
          await store.apply(id, { type: 'cleaned' });
        }),
      );
      const newestFirst = [...ids].reverse();
      const list = async (limit: number) => {
        const r = await cli('sync', 'list', '--database', 'many_db', '--limit', String(limit), '--json');
        assert.equal(r.code, 0, r.stderr);
        return (JSON.parse(r.stdout) as { syncs: { id: string }[] }).syncs.map((x) => x.id);
      };
      assert.deepEqual(await list(510), newestFirst.slice(0, 510));
      assert.deepEqual(await list(600), newestFirst);
      assert.deepEqual(await list(3), newestFirst.slice(0, 3));
    } finally {
      await redis.quit();
    }
  });

  test('sync abort: a slow sync aborted by the CLI; watch then exits 1 with the reason', async () => {
    const source = JSON.stringify({ kind: 'generator', shards: 2, rowsPerShard: 100_000, batchRows: 1000, faults: { delayMsPerBatch: 200 } });
    const started = await cli('sync', 'start', '--table', table, '--source', source);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    const aborted = await cli('sync', 'abort', id, '--reason', 'stopped from the CLI test');
    assert.equal(aborted.code, 0, aborted.stderr);
    assert.match(aborted.stdout, new RegExp(`^${id} (ABORTING|ABORTED)$`, 'm'));
    const watched = await cli('sync', 'watch', id, '--interval', '200');
    assert.equal(watched.code, 1);
    assert.match(watched.stdout, /ABORTED .*stopped from the CLI test/);
    const late = await cli('sync', 'abort', committed);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /409/);
  });

  test('sync watch on a terminal redraws per-shard progress in place, with rows/s and ETA', async () => {
    // A sync that cannot finish while the test looks at it: the watch is observed redrawing a
    // running sync, then the sync is aborted and the watch ends on that. (A sync short enough to
    // commit could be done before a slow machine starts the watch, and then nothing is redrawn.)
    const source = JSON.stringify({ kind: 'generator', shards: 2, rowsPerShard: 1_000_000, batchRows: 1000, faults: { delayMsPerBatch: 100 } });
    const started = await cli('sync', 'start', '--table', table, '--source', source);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    // `script` gives the command a pseudo-terminal, as a user's shell would.
    const command = [process.execPath, CLI, 'sync', 'watch', id, '--interval', '300'].map((a) => `'${a}'`).join(' ');
    let stdout = '';
    let sawRunning!: () => void;
    const running = new Promise<void>((resolve) => (sawRunning = resolve));
    // While it runs, a shard line shows a bar, its rows and its rate (live rows as workers report them).
    const runningShard = /\[[#>.]{20}\] running +[\d,]+ rows +[\d,]+ rows\/s +ETA /;
    const run = new Promise<Run>((resolve) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // Redrawn: the cursor goes back up over the last frame and clears it.
        if (/\x1b\[\d+F\x1b\[J/.test(stdout) && runningShard.test(stdout)) sawRunning();
      });
      child.once('close', (code) => resolve({ code, stdout, stderr: '', afterFirstError: null }));
    });
    await Promise.race([running, run.then((r) => assert.fail(`watch ended before it redrew a running sync: ${r.stdout}`))]);
    const aborted = await cli('sync', 'abort', id, '--reason', 'seen redrawing');
    assert.equal(aborted.code, 0, aborted.stderr);
    const ended = await run;
    assert.equal(ended.code, 1, ended.stdout);
    assert.match(ended.stdout, new RegExp(`sync ${id}`));
    assert.match(ended.stdout, /ABORTED .*seen redrawing/);
    // The next test reads the table's second snapshot: a load that commits, watched to the end.
    const loaded = await cli('sync', 'start', '--table', table, '--source', JSON.stringify({ kind: 'generator', shards: 2, rowsPerShard: 40_000 }));
    assert.equal(loaded.code, 0, loaded.stderr);
    const watched = await cli('sync', 'watch', loaded.stdout.trim(), '--interval', '200');
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    assert.match(watched.stdout, /COMMITTED +shards 2\/2 +rows 80,000 .*snapshot 2$/m);
  });

  test('schedule put, list, show and delete', async () => {
    const id = uniqueName('cli-sched');
    const sync = JSON.stringify({ table: { database, table: name }, source: { kind: 'generator', shards: 1, rowsPerShard: 10 } });
    const put = await cli('schedule', 'put', id, '--cron', '0 0 1 1 *', '--sync', sync, '--disabled');
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stdout, new RegExp(`^created schedule ${id}; next run `));
    const list = await cli('schedule', 'list');
    // The STARTS column says what a fire starts: a sync here (a compaction schedule says compaction).
    assert.match(list.stdout, new RegExp(`^${id} +0 0 1 1 \\* +UTC +false +sync +${database}\\.${name} `, 'm'));
    const shown = await cli('schedule', 'show', id);
    assert.equal((JSON.parse(shown.stdout) as { cron: string }).cron, '0 0 1 1 *');
    const deleted = await cli('schedule', 'delete', id);
    assert.equal(deleted.code, 0, deleted.stderr);
    await waitUntil(async () => (await cli('schedule', 'show', id)).stderr.includes('404 SCHEDULE_NOT_FOUND'), 'the schedule is gone');
  });

  test('table list, snapshots, files, read; drop refused while a sync runs, then done', async () => {
    const routes: [string, string[], RegExp][] = [
      ['list', ['table', 'list', '--database', database], new RegExp(`^TABLE +PRIMARY KEYS[^\\n]*\\n${database}\\.${name} +- +- +-?\\d+ +2\\n$`)],
      ['snapshots', ['table', 'snapshots', table], /^id +commitKind +time[^\n]*\n2 +APPEND [^\n]*\n1 +APPEND [^\n]*\n$/],
      ['snapshots --json', ['table', 'snapshots', table, '--json'], /"id": 2,[\s\S]*"id": 1,/],
      ['files', ['table', 'files', table, '--json'], /\.parquet/],
      ['read', ['table', 'read', table, '--limit', '5'], /^order_id +customer_id +store_id[^\n]*\n(\d+ +\d+ [^\n]*\n){5}$/],
      ['read --json', ['table', 'read', table, '--limit', '2', '--snapshot', '1', '--json'], /"snapshotId": 1,[\s\S]*"name": "order_id"/],
    ];
    for (const [what, args, expected] of routes) {
      const run = await cli(...args);
      assert.equal(run.code, 0, `${what}: ${run.stderr}`);
      assert.match(run.stdout, expected, what);
    }
    // While a sync of the table runs, the coordinator refuses the drop.
    const running = await cli('sync', 'start', '--table', table, '--source', JSON.stringify({ kind: 'generator', shards: 1, rowsPerShard: 100_000, batchRows: 1000, faults: { delayMsPerBatch: 200 } }));
    assert.equal(running.code, 0, running.stderr);
    const busy = await cli('table', 'drop', table, '--yes');
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /^tributary: DELETE \/v1\/tables\/[^\n]*: 409 TABLE_SYNC_ACTIVE: /);
    await cli('sync', 'abort', running.stdout.trim());
    assert.equal((await cli('sync', 'watch', running.stdout.trim(), '--interval', '200')).code, 1, 'aborted');
    const refused = await cli('table', 'drop', table);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /repeat with --yes/);
    const dropped = await cli('table', 'drop', table, '--yes');
    assert.equal(dropped.code, 0, dropped.stderr);
    assert.equal(dropped.stdout.trim(), `dropped ${table}`);
    const gone = await cli('table', 'show', table);
    assert.match(gone.stderr, /404 TABLE_NOT_FOUND/);
  });

  test('table expire and clean-orphans: a dry run lists, --delete deletes, show counts snapshots and orphans', async () => {
    const maint = `${database}.maint`;
    assert.equal((await cli('table', 'create', maint, '--columns', JSON.stringify(ORDERS_COLUMNS))).code, 0);
    for (let i = 0; i < 2; i++) {
      const started = await cli('sync', 'start', '--table', maint, '--source', JSON.stringify({ kind: 'generator', shards: 2, rowsPerShard: 100 }));
      assert.equal(started.code, 0, started.stderr);
      assert.equal((await cli('sync', 'watch', started.stdout.trim(), '--interval', '200')).code, 0);
    }
    const kept = await cli('table', 'expire', maint);
    assert.equal(kept.code, 0, kept.stderr);
    assert.match(kept.stdout, /^no snapshot expired; earliest now 1; /);
    const expired = await cli('table', 'expire', maint, '--retain-min', '1', '--older-than-ms', '0');
    assert.equal(expired.code, 0, expired.stderr);
    assert.match(expired.stdout, /^expired snapshots 1\.\.1; earliest now 2; deleted 0 data files, \d+ manifests\n$/);
    const dry = await cli('table', 'clean-orphans', maint, '--older-than-ms', '0');
    assert.equal(dry.code, 0, dry.stderr);
    // The four blobs of the two committed syncs (2 shards each).
    assert.match(dry.stdout, /^found 4 orphan files, \d+ bytes \(dry run: repeat with --delete\)\nSIZE +KEY\n(\d+ +\.tributary\/syncs\/sync-[^\n]+\.blob\n){4}$/);
    const shown = JSON.parse((await cli('table', 'show', maint)).stdout) as { snapshotCount: number; orphans: { fileCount: number } };
    assert.deepEqual([shown.snapshotCount, shown.orphans.fileCount], [1, 4]);
    const deleted = await cli('table', 'clean-orphans', maint, '--older-than-ms', '0', '--delete');
    assert.match(deleted.stdout, /^deleted 4 orphan files, \d+ bytes\n/);
    assert.match((await cli('table', 'clean-orphans', maint, '--older-than-ms', '0')).stdout, /^found 0 orphan files, 0 bytes/);
    const bad = await cli('table', 'expire', maint, '--retain-min', '0');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--retain-min must be an integer ≥ 1/);
  });

  test('table compact --full --wait: the workers rewrite the small files, one COMPACT snapshot; compaction shows it', async () => {
    const small = `${database}.small`;
    assert.equal((await cli('table', 'create', small, '--columns', JSON.stringify(ORDERS_COLUMNS))).code, 0);
    for (let i = 0; i < 2; i++) {
      const started = await cli('sync', 'start', '--table', small, '--source', JSON.stringify({ kind: 'generator', shards: 2, rowsPerShard: 100 }));
      assert.equal(started.code, 0, started.stderr);
      assert.equal((await cli('sync', 'watch', started.stdout.trim(), '--interval', '200')).code, 0);
    }
    const compacted = await cli('table', 'compact', small, '--full', '--wait', '--interval', '200');
    assert.equal(compacted.code, 0, compacted.stderr);
    assert.match(compacted.stdout, /^compact-[0-9a-f-]+ COMMITTED: 1\/1 jobs, 4 files -> 1, snapshot 3\n$/);
    const id = compacted.stdout.split(' ')[0] as string;
    const shown = await cli('table', 'compaction', small, id, '--json');
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout).snapshotId, 3);
    const snapshots = await cli('table', 'snapshots', small);
    assert.match(snapshots.stdout, /\n3 +COMPACT /);
    const none = await cli('table', 'compact', small, '--full', '--wait');
    assert.match(none.stdout, /^compact-[0-9a-f-]+ COMMITTED: 0\/0 jobs, 0 files -> 0\n$/);
  });

  test('the shim on the machine’s node runs a worker on Node 24 and passes SIGTERM on to it', async () => {
    const shim = spawn('/usr/bin/node', ['packages/cli/bin/tributary.js', 'worker', '--concurrency', '1'], { cwd: root, env: e.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    shim.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const pid = await waitUntil(async () => Number(/"worker":"ready","pid":(\d+)/.exec(out)?.[1] ?? 0) || undefined, 'the worker is ready', 60_000);
    assert.notEqual(pid, shim.pid, 'the worker runs in a child process (Node 24), not in the shim');
    const exited = once(shim, 'exit');
    shim.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the Node 24 worker is gone too');
  });

  test('a coordinator with tokens: the client sends TRIBUTARY_TOKEN; without it, 401 in one line; the token is never printed', async () => {
    const reader = newToken('read', 'cli-test');
    const secured = syncEnv('cli-auth');
    const { child, url } = await spawnListeningCoordinator(secured, { TRIBUTARY_AUTH_TOKENS: reader.entry });
    try {
      const denied = await tributary(['sync', 'list', '--url', url], secured.env);
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /^tributary: GET \/v1\/syncs\?limit=50: 401 AUTH_TOKEN_MISSING: /);
      const allowed = await tributary(['sync', 'list', '--url', url], { ...secured.env, TRIBUTARY_TOKEN: reader.token });
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.match(allowed.stdout, /^ID +PHASE/);
      const forbidden = await tributary(['sync', 'abort', 'sync-x', '--url', url], { ...secured.env, TRIBUTARY_TOKEN: reader.token });
      assert.equal(forbidden.code, 1);
      assert.match(forbidden.stderr, /403/);
      for (const run of [denied, allowed, forbidden]) assert.ok(!run.stdout.includes(reader.token) && !run.stderr.includes(reader.token));
    } finally {
      await stop(child);
    }
  });

  test('an unreachable coordinator: one line naming it, exit 1', async () => {
    const run = await tributary(['sync', 'list', '--url', `http://127.0.0.1:${await freePort()}`], e.env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^tributary: cannot reach the coordinator at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
  });
});
