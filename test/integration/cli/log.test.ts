/**
 * The process log (JSON lines on stderr, written asynchronously) as the coordinator and the worker
 * exit, real processes throughout: their last lines are on stderr after a graceful SIGTERM stop,
 * after a start refused by a bad configuration, and after the forced exit on a second signal; and
 * with stderr a pipe that nobody reads, the coordinator still answers HTTP.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, mkdtempSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { freePort, uniqueName } from '@tributary/testkit';
import { ORDERS_COLUMNS, spawnListeningCoordinator, spawnWorker, stop, syncEnv, waitUntil } from '../sync/harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = 'packages/cli/src/main.ts';

interface Run {
  readonly code: number | null;
  readonly stderr: string;
}

/** Starts `tributary …` with stderr collected; `done` resolves once the process exited and its pipes closed. */
function start(args: readonly string[], env: NodeJS.ProcessEnv): { child: ChildProcess; stderr: () => string; done: Promise<Run> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, stderr })));
  return { child, stderr: () => stderr, done };
}

const run = (args: readonly string[], env: NodeJS.ProcessEnv) => start(args, env).done;

/** The non-empty lines of a process's stderr. */
const linesOf = (stderr: string) => stderr.split('\n').filter((l) => l !== '');

/** The `msg` of a JSON log line, or undefined for a plain line. */
function msgOf(line: string | undefined): string | undefined {
  if (line?.startsWith('{') !== true) return undefined;
  return (JSON.parse(line) as { msg?: string }).msg;
}

describe('the process log on exit', () => {
  const e = syncEnv('cli-log');

  test('SIGTERM: the coordinator’s and the worker’s last lines (shutting down, shut down) are on stderr', async () => {
    const { child: coordinator } = await spawnListeningCoordinator(e);
    const worker = await spawnWorker(e, {}, ['--concurrency', '1']);
    const stderr = new Map<ChildProcess, string>();
    // Closed: exited, and everything it wrote has been read.
    const closed = [coordinator, worker].map((child) => once(child, 'close'));
    for (const child of [coordinator, worker]) {
      stderr.set(child, '');
      child.stderr?.on('data', (d: Buffer) => stderr.set(child, stderr.get(child) + d.toString()));
    }
    await Promise.all([stop(worker), stop(coordinator)]);
    await Promise.all(closed);
    for (const [child, text] of stderr) {
      assert.equal(child.exitCode, 0, `${child.signalCode ?? ""} ${text}`);
      const msgs = linesOf(text).map(msgOf);
      assert.ok(msgs.includes('shutting down'), text);
      assert.equal(msgs.at(-1), 'shut down', text);
    }
  });

  test('a start refused by the configuration: the log lines before it, then the refusal, then exit', async () => {
    // The coordinator warns (no token, loopback), starts, then refuses a catalog URL that is not JDBC: exit 2.
    const coordinator = await run(['coordinator', '--port', '0'], { ...e.env, TRIBUTARY_CATALOG_TYPE: 'jdbc', TRIBUTARY_CATALOG_URI: 'jdbc:sqlite:/tmp/catalog.db' });
    assert.equal(coordinator.code, 2, coordinator.stderr);
    const lines = linesOf(coordinator.stderr);
    assert.match(lines.at(-1) ?? '', /^coordinator: CATALOG_CONFIG_INVALID: /, coordinator.stderr);
    assert.match(msgOf(lines.at(0)) ?? '', /^authentication is OFF/, coordinator.stderr);
    // The worker logs each S3 attempt, then gives up: exit 3, the attempts before the verdict.
    const worker = await run(['worker', '--s3-endpoint', `http://127.0.0.1:${await freePort()}`, '--startup-timeout-ms', '800'], e.env);
    assert.equal(worker.code, 3, worker.stderr);
    const wlines = linesOf(worker.stderr);
    const verdict = /^worker: S3 .* unreachable after (\d+) attempts/.exec(wlines.at(-1) ?? '');
    assert.ok(verdict !== null, worker.stderr);
    // A line per attempt that is retried: every attempt but the last (how many fit in 800 ms depends on the machine).
    const retried = wlines.slice(0, -1);
    assert.equal(retried.length, Number(verdict[1]) - 1, worker.stderr);
    assert.ok(retried.every((l, i) => new RegExp(`unreachable \\(attempt ${i + 1}\\)`).test(msgOf(l) ?? '')), worker.stderr);
  });

  test('a second SIGTERM while a shard runs: the worker logs why and exits 1, that line last on stderr', async () => {
    const { child: coordinator, url } = await spawnListeningCoordinator(e);
    const worker = start(['worker', '--concurrency', '1'], e.env);
    try {
      const database = uniqueName('log_db').replaceAll('-', '_');
      const created = await fetch(`${url}/v1/tables`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ database, name: 'orders', columns: ORDERS_COLUMNS }) });
      assert.equal(created.status, 201, await created.text());
      const source = { kind: 'generator', shards: 1, rowsPerShard: 100_000, batchRows: 1000, faults: { delayMsPerBatch: 200 } };
      const sync = await fetch(`${url}/v1/syncs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ table: { database, table: 'orders' }, source }) });
      assert.equal(sync.status, 202, await sync.text());
      await waitUntil(async () => worker.stderr().includes('attempt started'), 'the worker runs the shard', 60_000);
      worker.child.kill('SIGTERM');
      await waitUntil(async () => worker.stderr().includes('"msg":"shutting down"'), 'the worker is shutting down');
      worker.child.kill('SIGTERM');
      const { code, stderr } = await worker.done;
      assert.equal(code, 1, stderr);
      assert.equal(msgOf(linesOf(stderr).at(-1)), 'second SIGTERM; exiting', stderr);
    } finally {
      await stop(worker.child, 'SIGKILL');
      await stop(coordinator);
    }
  });
});

describe('the process log with stderr not read', () => {
  const e = syncEnv('cli-log-stall');
  const dir = mkdtempSync(join(tmpdir(), 'tributary-log-'));
  const fifo = join(dir, 'stderr');
  let child: ChildProcess | undefined;
  let reader: number | undefined;
  after(async () => {
    if (child !== undefined) await stop(child, 'SIGKILL');
    if (reader !== undefined) closeSync(reader);
  });

  test('the coordinator answers /healthz while nobody reads its stderr; stopped then, it waits for the reader and loses no line', async () => {
    // stderr is a FIFO (64 KiB) that this test opens for reading but does not read yet.
    execFileSync('mkfifo', [fifo]);
    reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, 'w');
    const port = await freePort();
    child = spawn(process.execPath, [CLI, 'coordinator', '--port', String(port)], { cwd: root, env: e.env, stdio: ['ignore', 'pipe', writer] });
    closeSync(writer);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitUntil(async () => out.includes('"listening"'), 'the coordinator listens', 60_000);
    const url = `http://127.0.0.1:${port}`;
    // One log line per request (~200 bytes): 1,000 requests fill the FIFO several times over.
    for (let i = 0; i < 1000; i++) {
      const response = await fetch(`${url}/healthz?i=${i}`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }
    // Stop it while its stderr is still full, and only then start reading: the exit waits for the log.
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    let stderr = '';
    const drain = () => {
      const chunk = Buffer.alloc(65_536);
      for (;;) {
        try {
          const n = readSync(reader ?? -1, chunk);
          if (n === 0) return;
          stderr += chunk.subarray(0, n).toString();
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return;
          throw error;
        }
      }
    };
    await waitUntil(async () => (drain(), stderr.includes('"msg":"shut down"')), 'the last line on stderr');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
    drain();
    const requests = linesOf(stderr).filter((l) => l.includes('"path":"/healthz"')).length;
    assert.equal(requests, 1000, `one line per request, none lost: ${stderr.slice(0, 600)} … ${stderr.slice(-1200)}`);
    assert.equal(msgOf(linesOf(stderr).at(-1)), 'shut down');
    assert.ok(linesOf(stderr).every((l) => l.startsWith('{')), 'whole JSON lines');
  });
});
