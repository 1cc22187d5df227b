/**
 * Tributary and Paimon Java's HiveCatalog (test/compat/java-hive) committing to one table of one
 * Hive Metastore (the shared one, infra/hive-metastore.sh) with `lock.enabled`: both take the
 * metastore's EXCLUSIVE table lock around their snapshot commit (Paimon's HiveCatalogLock).
 *
 * - The lock is one lock: while Tributary's catalog holds it, Paimon Java's commit waits (the
 *   metastore shows its lock WAITING behind Tributary's, and no snapshot appears) and finishes once
 *   Tributary releases it.
 * - A Paimon Java writer and Tributary syncs (a coordinator with `catalog.type = hive` and the lock
 *   enabled) committing to one table, 20 rounds each, lose no snapshot and no row, read back by both.
 *
 * The warehouse is a local directory: the shared metastore has no S3 file system.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Coordinator } from '@tributary/coordinator';
import { hiveCatalog, MetastoreConnection, showTableLocks } from '@tributary/catalog';
import { GENERATOR_COLUMNS, generatorRow, rowConverter } from '@tributary/sources';
import { LocalObjectStore, openTable, type InternalRow } from '@tributary/table';
import { canonicalRows, services, uniqueName, type OracleRow } from '@tributary/testkit';
import { createOrdersTable, explainSync, generatorSource, inProcessCoordinator, outputOf, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil, type SyncEnv } from '../integration/sync/harness.ts';

const jar = fileURLToPath(new URL('./java-hive/target/paimon-hive-oracle.jar', import.meta.url));
const uri = `thrift://${services.hiveMetastore.host}:${services.hiveMetastore.port}`;
const ROUNDS = 20;
const SYNC_SHARDS = 2;
const SYNC_ROWS = 20;
const JAVA_ROWS = 3;
/** Paimon Java's HiveCatalog with the lock; it reads the lock timings from its Hadoop/Hive configuration (`hadoop.` options). */
const JAVA_LOCK = ['lock.enabled=true', 'hadoop.lock-check-max-sleep=200 ms'];

/** A row Paimon Java writes in round `round` (order ids from 1,000,000: none of the generator's), as Tributary reads it. */
function javaRow(round: number, i: number): OracleRow {
  return [BigInt(1_000_000 + round * 100 + i), round, i, 12_345n, 'JAVA', 19_800 + round, { epochMillis: 1_700_000_000_000 + round, nanoOfMillis: 0 }];
}

/** The same row in the oracle's `write` file (values as text: the decimal with its scale, DATE in days, TIMESTAMP in epoch ms). */
function javaWireRow(round: number, i: number): string[] {
  return [String(1_000_000 + round * 100 + i), String(round), String(i), '123.45', 'JAVA', String(19_800 + round), String(1_700_000_000_000 + round)];
}

interface JavaRun {
  readonly child: ChildProcess;
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts the HiveCatalog oracle (`java -jar … <op> <uri> <warehouse> …`). */
function java(op: string, warehouse: string, ...args: string[]): JavaRun {
  const child = spawn('java', ['-jar', jar, op, uri, warehouse, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return { child, done };
}

async function javaResult<T>(run: JavaRun): Promise<T> {
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, `the Java oracle failed:\n${stderr.slice(-4000)}`);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

async function snapshotFiles(dir: string, database: string, table: string): Promise<string[]> {
  const files = await readdir(join(dir, `${database}.db`, table, 'snapshot')).catch(() => [] as string[]);
  return files.filter((f) => f.startsWith('snapshot-')).sort();
}

describe('the Hive Metastore lock shared by Tributary and Paimon Java', () => {
  let dir: string;
  let e: SyncEnv;
  let coordinator: Coordinator;
  let worker: ChildProcess;
  let hms: MetastoreConnection;
  const database = uniqueName('hive_lock').toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const locks = (table: string) => showTableLocks(hms, { database, table });

  before(async () => {
    assert.ok(existsSync(jar), `${jar} is missing: bash infra/oracles.sh builds it`);
    dir = await mkdtemp(join(tmpdir(), 'tributary-hive-lock-'));
    const warehouse = `file://${dir}`;
    const base = syncEnv('hive-lock');
    const hive = { TRIBUTARY_WAREHOUSE: warehouse, TRIBUTARY_CATALOG_TYPE: 'hive', TRIBUTARY_CATALOG_URI: uri, TRIBUTARY_CATALOG_LOCK_ENABLED: 'true' };
    e = { ...base, warehouse, store: new LocalObjectStore(dir), env: { ...base.env, ...hive } };
    coordinator = await inProcessCoordinator(e, { catalog: { type: 'hive', uri, lockEnabled: true, lockCheckMaxSleepMs: 200 } });
    worker = await spawnWorker(e, hive);
    hms = new MetastoreConnection({ host: services.hiveMetastore.host, port: services.hiveMetastore.port }, { requestTimeoutMs: 20_000 });
  });
  after(async () => {
    hms?.close();
    if (worker !== undefined) await stop(worker);
    await coordinator?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  test('while Tributary holds the table’s metastore lock, a Paimon Java commit waits for it', async () => {
    await createOrdersTable(coordinator, database, 'locked');
    const rounds = join(dir, 'locked-rounds.json');
    await writeFile(rounds, JSON.stringify([[javaWireRow(0, 0)]]));
    const catalog = hiveCatalog({ uri, warehouse: dir, store: e.store, lockEnabled: true });
    let run: JavaRun | undefined;
    try {
      await catalog.withLock({ database, table: 'locked' }, async () => {
        run = java('write', dir, database, 'locked', rounds, ...JAVA_LOCK);
        // Java reached its snapshot commit: the metastore holds its lock request WAITING behind Tributary's.
        const held = await waitUntil(
          async () => {
            const all = await locks('locked');
            return all.length === 2 && all.some((l) => l.state === 'WAITING') ? all : false;
          },
          'Paimon Java’s lock request waiting behind Tributary’s',
          120_000,
        );
        const mine = held.find((l) => l.agentInfo?.startsWith('tributary '));
        const theirs = held.find((l) => !l.agentInfo?.startsWith('tributary '));
        assert.equal(mine?.state, 'ACQUIRED');
        assert.equal(theirs?.state, 'WAITING');
        assert.deepEqual(held.map((l) => l.type), ['EXCLUSIVE', 'EXCLUSIVE']);
        assert.equal(run.child.exitCode, null, 'Paimon Java finished its commit under Tributary’s lock');
        assert.deepEqual(await snapshotFiles(dir, database, 'locked'), [], 'a snapshot appeared under the lock');
      });
      assert.deepEqual(await javaResult(run!), { rounds: 1 });
      assert.deepEqual(await snapshotFiles(dir, database, 'locked'), ['snapshot-1']);
      assert.deepEqual(await locks('locked'), [], 'no lock left behind');
    } finally {
      run?.child.kill();
      await catalog.close();
    }
  });

  test(`a Paimon Java writer and Tributary syncs committing to one table, ${ROUNDS} rounds each, lose no snapshot and no row`, async () => {
    // Two writers committing back to back keep taking each other's next snapshot id; each retries up
    // to `commit.max-retries` (Paimon's default 10 gives out under this load).
    await createOrdersTable(coordinator, database, 'contended', { options: { 'commit.max-retries': '200' } });
    const rounds = join(dir, 'contended-rounds.json');
    await writeFile(rounds, JSON.stringify(Array.from({ length: ROUNDS }, (_, round) => Array.from({ length: JAVA_ROWS }, (_, i) => javaWireRow(round, i)))));
    const javaRounds = java('write', dir, database, 'contended', rounds, ...JAVA_LOCK);
    // The syncs start once Java commits (its JVM takes seconds to start), so the two writers interleave.
    await waitUntil(async () => (await snapshotFiles(dir, database, 'contended')).includes('snapshot-1') || javaRounds.child.exitCode !== null, 'Paimon Java’s first snapshot', 120_000);
    const syncSnapshots: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database, table: 'contended' }, source: generatorSource(SYNC_SHARDS, SYNC_ROWS, { seed: 100 + round }) } });
      assert.equal(started.statusCode, 202, started.body);
      const explain = async (id: string) => `${await explainSync(coordinator, id)}\nworker output (tail):\n${outputOf(worker).slice(-3000)}`;
      // A sync of 40 rows waits for the worker process and, under the lock, for Java's commits.
      const done = await waitForPhase(() => coordinator.syncs.get(started.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 180_000, explain);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
      if (done.state.phase === 'COMMITTED') syncSnapshots.push(done.state.snapshotId);
    }
    assert.deepEqual(await javaResult(javaRounds), { rounds: ROUNDS });

    const table = await openTable(e.store, database, 'contended');
    const ids = (await table.snapshots.listIds()).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 2 * ROUNDS }, (_, i) => i + 1), `snapshots 1..${2 * ROUNDS}, none lost`);
    const bySync: number[] = [];
    for (const id of ids) if ((await table.snapshot(id)).properties?.has('tributary.sync-id') === true) bySync.push(id);
    assert.deepEqual(bySync, [...syncSnapshots].sort((a, b) => a - b), 'each sync’s own snapshot, the other 20 are Java’s');
    const byJava = ids.filter((id) => !bySync.includes(id));
    assert.equal(byJava.length, ROUNDS);
    assert.ok(bySync.some((id) => id > Math.min(...byJava) && id < Math.max(...byJava)), 'the writers interleaved');

    const convert = rowConverter('expected', GENERATOR_COLUMNS, { fields: table.schema.fields });
    const expected: OracleRow[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < SYNC_SHARDS * SYNC_ROWS; i++) expected.push(convert(generatorRow(100 + round, i + 1), i) as OracleRow);
      for (let i = 0; i < JAVA_ROWS; i++) expected.push(javaRow(round, i));
    }
    assert.deepEqual(canonicalRows((await readRows(e, database, 'contended')) as InternalRow[] as OracleRow[]), canonicalRows(expected), 'Tributary reads every row of both writers');
    // Paimon Java's HiveCatalog reads them too (as text: order id, customer, store, status, order date in days).
    const { rows } = await javaResult<{ rows: string[][] }>(java('read', dir, database, 'contended'));
    const text = (r: readonly unknown[]) => [0, 1, 2, 4, 5].map((i) => String(r[i])).join('|');
    assert.deepEqual(rows.map(text).sort(), expected.map(text).sort(), 'Paimon Java reads every row of both writers');
    assert.deepEqual(await locks('contended'), [], 'no lock left behind');
  });
});
