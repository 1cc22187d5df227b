/**
 * The bucketed layout's sorted runs are part of the sync's integrity chain: a shard's blob names
 * each run segment with its offset, length, rows and CRC32C, and the bucket job reads nothing else.
 * The worker runs in this process over a store that tampers with the run objects as they are
 * written (a fault at the storage edge, after the shard computed what its blob says): a run cut
 * short, a byte of a value altered, or one shard's run object replaced by another shard's. Each
 * time the bucket job refuses the run with a typed error (RUN_TRUNCATED, RUN_CORRUPT), the sync
 * ends ABORTED with that reason, nothing is committed and nothing staged is left; an untampered
 * sync of the same table commits, and pypaimon reads exactly its rows.
 *
 * And the values a run carries, end to end: three NDJSON shards whose keys overlap, with NULLs,
 * BIGINT and DECIMAL(18)/DECIMAL(38) at their limits, full-precision doubles, strings beyond U+E000
 * (where UTF-16 and UTF-8 orders part) and empty strings, nanosecond timestamps before 1970; the
 * table read by Tributary, Paimon Java and pypaimon is exactly the model (the later shard wins a key).
 * The same again with bucket jobs that merge at most 2 runs at once over shards that spill every 40
 * rows: the runs are merged in passes through intermediate runs, with the same result, the same
 * colliding-key count, and no intermediate run left once the sync committed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { startShardWorker, type ShardWorker, type WorkerTables } from '@tributary/worker';
import { Table, openObjectStore, warehouseTables, type ObjectBody, type ObjectStore } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, readResults, services, type OracleRow } from '@tributary/testkit';
import { createOrdersTable, generatorSource, inProcessCoordinator, listKeys, oneTo, pypaimonIds, readRows, s3, syncEnv, waitForPhase, waitUntil, FAST_LOCKS } from './harness.ts';

/** What to put instead of a run object's bytes (`index`: the run objects written so far, from 0). */
type Tamper = (bytes: Uint8Array, index: number) => Uint8Array;

async function bytesOf(body: ObjectBody): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The real store, except that `put` of a run object (`….run`) goes through the current tamper; `seen` is told every key put. */
function tamperingStore(store: ObjectStore, tamper: () => Tamper | undefined, counter: { runs: number }, seen?: (key: string) => void): ObjectStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'put') {
        return async (key: string, body: ObjectBody) => {
          seen?.(key);
          const fault = tamper();
          if (fault === undefined || !key.endsWith('.run')) return target.put(key, body);
          return target.put(key, fault(await bytesOf(body), counter.runs++));
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('sorted runs that are not what the shard wrote are refused; nothing commits', () => {
  const e = syncEnv('bucketed-runs');
  let coordinator: Coordinator;
  let worker: ShardWorker;
  let tamper: Tamper | undefined;
  const counter = { runs: 0 };

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    const real = warehouseTables(s3);
    const tables: WorkerTables = {
      openTable: async (warehouse, ref, schemaId) => {
        const table = await real.openTable(warehouse, ref, schemaId);
        return new Table(tamperingStore(table.store, () => tamper, counter), { database: table.database, name: table.name }, table.schema);
      },
      warehouseStore: (warehouse) => real.warehouseStore(warehouse),
    };
    // One spill per shard (the default run budget holds 300 rows): one run object per shard.
    worker = startShardWorker({ redis: services.redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables, sources: e.sources, concurrency: 2, ...FAST_LOCKS });
    await createOrdersTable(coordinator, 'shop', 'orders', { primaryKeys: ['order_id'], bucket: 2 });
  });
  after(async () => {
    await worker.close();
    await coordinator.close();
  });

  async function runSync(): Promise<Awaited<ReturnType<Coordinator['syncs']['get']>>> {
    counter.runs = 0;
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(2, 300), options: { layout: 'bucketed' } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    // Waits for the sync's end: the shards, the bucket jobs (refused or not) and the commit or abort.
    return waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
  }

  /** An aborted sync: the typed reason, in the bucket stage, and nothing of it left. */
  async function refused(sync: Awaited<ReturnType<typeof runSync>>, codes: readonly string[], what: string): Promise<void> {
    assert.ok(sync.state.phase === 'ABORTED', `${what}: ${JSON.stringify(sync.state)}`);
    assert.ok(codes.includes(sync.state.reason.code), `${what}: reason ${sync.state.reason.code}`);
    assert.ok(sync.timings.MERGING !== undefined, `${what}: it failed in the bucket stage`);
    assert.ok(sync.state.stagedDeleted, `${what}: staged files deleted`);
    assert.deepEqual((await listKeys(e, `.tributary/syncs/${sync.id}/`)).filter((k) => k.endsWith('.blob') || k.endsWith('.run') || k.endsWith('.parquet')), [], `${what}: no run or blob left`);
    assert.deepEqual((await listKeys(e, 'shop.db/orders/')).filter((k) => k.includes(`/data-${sync.id}-`)), [], `${what}: no data file of the sync left`);
  }

  test('a truncated run, an altered value and a swapped run object abort with RUN_* reasons; an intact sync then commits exactly', async () => {
    // The object cut 8 bytes short of what the blob says (its last segment's end record).
    tamper = (bytes, index) => (index === 0 ? bytes.subarray(0, bytes.length - 8) : bytes);
    await refused(await runSync(), ['RUN_TRUNCATED'], 'truncated');

    // One byte of the first key value (segment 0, block 0: header 8 + record 16 + the column's own 8).
    tamper = (bytes, index) => {
      if (index !== 0) return bytes;
      const altered = Uint8Array.from(bytes);
      altered[8 + 16 + 8 + 2] = (altered[8 + 16 + 8 + 2] as number) ^ 0x01;
      return altered;
    };
    await refused(await runSync(), ['RUN_CORRUPT'], 'altered');

    // The second run object written holds the first's bytes (another shard's runs, valid in themselves).
    let first: Uint8Array | undefined;
    tamper = (bytes, index) => {
      if (index === 0) first = bytes;
      return index === 1 && first !== undefined ? first : bytes;
    };
    await refused(await runSync(), ['RUN_CORRUPT', 'RUN_TRUNCATED'], 'swapped');

    tamper = undefined;
    const intact = await runSync();
    assert.equal(intact.state.phase, 'COMMITTED', JSON.stringify(intact.state));
    const table = await coordinator.tables.describeTable(e.warehouse, { database: 'shop', table: 'orders' });
    assert.equal(table?.latestSnapshotId, 1, 'only the intact sync committed');
    assert.deepEqual(await pypaimonIds(e, 'shop', 'orders'), oneTo(600), 'pypaimon reads exactly the intact sync');
  });
});

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const D18_MAX = 10n ** 18n - 1n;
const D38_MAX = 10n ** 38n - 1n;
const DOUBLES = [5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 0.1 + 0.2, 2.2250738585072014e-308, 9007199254740993.5, 1 / 3, -123456.789e-200];
const STRINGS = ['', '\ue000', '\uffff', '\uffef\ue000', '😀', 'a😀', '中文', 'a\u0000b', '\u{10ffff}', 'é', 'plain'];
const TIMES = [
  { epochMillis: -2_208_988_800_000, nanoOfMillis: 1 },
  { epochMillis: -1, nanoOfMillis: 999_999 },
  { epochMillis: 0, nanoOfMillis: 0 },
  { epochMillis: 1_709_251_199_123, nanoOfMillis: 456_789 },
  // The last nanosecond pyarrow's timestamp[ns] holds (pypaimon reads a later one wrapped around).
  { epochMillis: 9_223_372_036_854, nanoOfMillis: 775_807 },
];

/** An unscaled decimal as text with `scale` places. */
function decimalText(unscaled: bigint, scale: number): string {
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${unscaled < 0n ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

function timestampText(t: { epochMillis: number; nanoOfMillis: number }): string {
  const iso = new Date(t.epochMillis).toISOString();
  const millis = ((t.epochMillis % 1000) + 1000) % 1000;
  return `${iso.slice(0, 19)}.${String(millis * 1_000_000 + t.nanoOfMillis).padStart(9, '0')}Z`;
}

/** Row `id` of shard `shard`: every nullable column NULL in turn, edge values in turn. */
function adversarialRow(shard: number, id: number): { json: string; row: OracleRow } {
  const k = id * 7 + shard;
  const pick = <T>(values: readonly T[]): T => values[k % values.length] as T;
  const isNull = (column: number): boolean => (k + column) % 9 === 0;
  const b = isNull(0) ? null : pick([INT64_MIN, INT64_MAX, 0n, -1n, 2n ** 53n + 1n, BigInt(k)]);
  const d18 = isNull(1) ? null : pick([D18_MAX, -D18_MAX, 0n, -1n, 12345n]);
  const d38 = isNull(2) ? null : pick([D38_MAX, -D38_MAX, 2n ** 64n, -(2n ** 64n) - 1n, 2n ** 63n, -1n, 0n]);
  const f = isNull(3) ? null : pick(DOUBLES);
  const str = isNull(4) ? null : `${pick(STRINGS)}${shard === 2 ? '' : pick(['', 'x'])}`;
  const ts = isNull(5) ? null : pick(TIMES);
  const raw = (v: bigint | null, scale: number): string => (v === null ? 'null' : scale === 0 ? v.toString() : decimalText(v, scale));
  // Numbers written as JSON number literals (the source keeps those that are not exact doubles as text).
  const json = `{"id":${id},"b":${raw(b, 0)},"d18":${raw(d18, 4)},"d38":${raw(d38, 10)},"f":${f === null ? 'null' : JSON.stringify(f)},"s":${JSON.stringify(str)},"ts":${ts === null ? 'null' : JSON.stringify(timestampText(ts))},"shard":${shard}}`;
  return { json, row: [BigInt(id), b, d18, d38, f, str, ts, shard] };
}

/**
 * `passes`: the bucket jobs merge at most 2 runs at once and each shard spills every 40 rows, so each
 * bucket's 8 or more runs are merged in passes through intermediate runs (bucket-merge.ts), which
 * must give exactly the one-pass result, count colliding keys once and leave nothing behind.
 */
for (const passes of [false, true]) {
describe(`adversarial values through the bucketed layout, keys in several shards${passes ? ', merged in passes' : ''}: exactly the model in every reader`, () => {
  const e = syncEnv(passes ? 'bucketed-passes' : 'bucketed-values');
  let coordinator: Coordinator;
  let worker: ShardWorker;
  const putKeys: string[] = [];
  const put = (key: string): void => void putKeys.push(key);

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    const merging = passes ? { runBufferRows: 40, mergeFanIn: 2 } : {};
    // The keys the worker's table stores put (the intermediate runs are seen there).
    const real = warehouseTables(s3);
    const tables: WorkerTables = {
      openTable: async (warehouse, ref, schemaId) => {
        const table = await real.openTable(warehouse, ref, schemaId);
        return new Table(tamperingStore(table.store, () => undefined, { runs: 0 }, put), { database: table.database, name: table.name }, table.schema);
      },
      warehouseStore: (warehouse) => real.warehouseStore(warehouse),
    };
    worker = startShardWorker({ redis: services.redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables, sources: e.sources, concurrency: 2, ...FAST_LOCKS, ...merging });
  });
  after(async () => {
    await worker.close();
    await coordinator.close();
  });

  test('three shards, overlapping keys, two buckets: Tributary, Paimon Java and pypaimon read the model', async () => {
    // Shard 0: keys 1..300; shard 1: 250..420 (51 keys in both); shard 2: every 25th key of 1..425 (in all three for some).
    const shards = [Array.from({ length: 300 }, (_, i) => i + 1), Array.from({ length: 171 }, (_, i) => i + 250), Array.from({ length: 17 }, (_, i) => 1 + 25 * i)];
    const model = new Map<number, OracleRow>();
    const src = openObjectStore(e.sourceRoot, s3);
    for (const [shard, ids] of shards.entries()) {
      const rows = ids.map((id) => adversarialRow(shard, id));
      for (const [i, r] of rows.entries()) model.set(ids[i] as number, r.row);
      await src.put(`values/part-${shard}.ndjson`, new TextEncoder().encode(rows.map((r) => r.json).join('\n') + '\n'));
    }
    const columns = [
      { name: 'id', type: 'BIGINT NOT NULL' },
      { name: 'b', type: 'BIGINT' },
      { name: 'd18', type: 'DECIMAL(18, 4)' },
      { name: 'd38', type: 'DECIMAL(38, 10)' },
      { name: 'f', type: 'DOUBLE' },
      { name: 's', type: 'STRING' },
      { name: 'ts', type: 'TIMESTAMP(9)' },
      { name: 'shard', type: 'INT' },
    ];
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'values', columns, primaryKeys: ['id'], bucket: 2 } });
    assert.equal(created.statusCode, 201, created.body);
    const uris = [0, 1, 2].map((shard) => `${e.sourceRoot}/values/part-${shard}.ndjson`);
    const started = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'values' }, source: { kind: 'files', format: 'ndjson', uris, filesPerShard: 1 } },
    });
    assert.equal(started.statusCode, 202, started.body);
    const id = started.json<{ id: string }>().id;
    // Waits for the sync's end: three shards, two bucket jobs, the commit.
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.ok(done.timings.MERGING !== undefined, 'the default layout of a primary-key table: bucketed');
    assert.equal(done.state.phase === 'COMMITTED' ? done.state.collidingKeys : null, 51 + 17 - 2, 'keys in more than one shard');

    const want = canonicalRows([...model.values()]);
    const op = { op: 'read' as const, warehouse: e.warehouse, database: 'shop', table: 'values' };
    const [java, python] = await Promise.all([paimonJava.batch([op]), pypaimon.batch([op])]);
    assert.deepStrictEqual(canonicalRows((await readRows(e, 'shop', 'values')) as OracleRow[]), want, 'Tributary');
    assert.deepStrictEqual(canonicalRows(readResults(java)[0]!.rows), want, 'Paimon Java');
    assert.deepStrictEqual(canonicalRows(readResults(python)[0]!.rows), want, 'pypaimon');
    const intermediate = putKeys.filter((key) => new RegExp(`^\\.tributary/syncs/${id}/runs/data-${id}-bucket-[0-9]+-a[0-9]+-merge-[0-9a-f-]+\\.run$`).test(key));
    assert.equal(intermediate.length > 0, passes, `intermediate runs written: ${intermediate.length}`);
    if (passes) {
      // The coordinator deletes the runs (and any intermediate run left) right after recording COMMITTED.
      await waitUntil(async () => (await listKeys(e, `.tributary/syncs/${id}/runs/`)).length === 0, 'the runs and intermediate runs deleted once committed', 60_000);
    }
  });
});
}
