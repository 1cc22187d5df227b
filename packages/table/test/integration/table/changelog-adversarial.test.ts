/**
 * The changelog a bucket job writes (ChangelogWrite.writeBucketRecords, the column-wise path a sync
 * takes) checked by Paimon Java against a model built here, not against Tributary's reader:
 *
 * - adversarial values in every column: full-precision doubles with -0.0, NaN and the infinities,
 *   38-digit decimals, astral and combining unicode, empty and long strings, empty bytes, timestamps
 *   at year 1 and 9999, NULLs;
 * - small row groups (256 rows), so each probed file has many row groups and the reader's page
 *   buffers are handed out again and again within one probe;
 * - loads mixing updates, no-op updates (NaN for NaN, an identical row), a sign-of-zero change,
 *   deletes, deletes of absent keys, new keys between stored ones and new keys above every stored
 *   one (their row groups are encoded once for the data and the changelog file), re-inserts of
 *   deleted keys.
 *
 * Paimon Java's `$audit_log` between consecutive snapshots (changelog mode) must hold exactly the
 * model's changelog rows, and Java and pypaimon must read the model's table at every snapshot.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { mulberry32, paimonJava, pypaimon, readResults, type OracleRow, type TableRef } from '@tributary/testkit';
import { LocalObjectStore, batchFromRows, createTable, type InternalRow, type Table } from '@tributary/table';
import { keyValueRowType } from '../../../src/format/key-value.ts';

const FIELDS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 's', type: 'STRING' },
  { name: 'b', type: 'BYTES' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'amount', type: 'DECIMAL(38, 10)' },
  { name: 'at', type: 'TIMESTAMP(6)' },
  { name: 'flag', type: 'BOOLEAN' },
];
const D = 3;
const ROW_GROUP_ROWS = 256;
const BATCH_ROWS = 1000;
const KINDS = ['+I', '-U', '+U', '-D'];

// Seeded, so a failure replays.
const draw = mulberry32(20261205);
const random = () => draw() / 4294967296;
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(values: readonly T[]): T => values[int(values.length)] as T;

const PIECES = ['a', 'Z', ' ', '\t', 'é', 'e\u0301', 'ß', 'Ω', '中', '文', '\u{1F600}', '\u{1F468}\u200D\u{1F469}', '\u{10FFFF}', '\u0000', '"', '\\', '\n'];
function text(): string | null {
  switch (int(8)) {
    case 0:
      return null;
    case 1:
      return pick(['', ' ', '  ']);
    case 2:
      return Array.from({ length: 300 + int(1700) }, () => pick(PIECES)).join('');
    default:
      return Array.from({ length: int(20) }, () => pick(PIECES)).join('');
  }
}
const bytes = (): Uint8Array | null => (int(6) === 0 ? null : Uint8Array.from({ length: int(5) === 0 ? 0 : int(64) }, () => int(256)));
const scratch = new DataView(new ArrayBuffer(8));
function double(): number | null {
  switch (int(10)) {
    case 0:
      return null;
    case 1:
      return pick([0, -0, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MAX_VALUE, 0.1 + 0.2, 2 ** 53 + 2]);
    default: {
      // Any finite double, every bit of the mantissa random.
      scratch.setUint32(0, int(2 ** 32));
      scratch.setUint32(4, int(2 ** 32));
      const value = scratch.getFloat64(0);
      return Number.isFinite(value) ? value : 1.5;
    }
  }
}
const MAX_DECIMAL = 10n ** 38n - 1n;
function decimal(): bigint | null {
  switch (int(8)) {
    case 0:
      return null;
    case 1:
      return pick([0n, MAX_DECIMAL, -MAX_DECIMAL, 1n, -1n]);
    default: {
      let value = 0n;
      for (let i = int(38) + 1; i > 0; i--) value = value * 10n + BigInt(int(10));
      return int(2) === 0 ? value : -value;
    }
  }
}
const YEAR_1 = -62_135_596_800_000;
const YEAR_9999_END = 253_402_300_799_999;
function timestamp(): { epochMillis: number; nanoOfMillis: number } | null {
  switch (int(8)) {
    case 0:
      return null;
    case 1:
      return pick([
        { epochMillis: YEAR_1, nanoOfMillis: 0 },
        { epochMillis: YEAR_9999_END, nanoOfMillis: 999_000 },
        { epochMillis: -1, nanoOfMillis: 999_000 },
      ]);
    default:
      return { epochMillis: YEAR_1 + int(YEAR_9999_END - YEAR_1), nanoOfMillis: int(1000) * 1000 };
  }
}
const flag = (): boolean | null => pick([null, true, false]);
const freshRow = (id: number): InternalRow => [BigInt(id), text(), bytes(), double(), decimal(), timestamp(), flag()];

// ---- the model: the table as a map, and the changelog rule written out here ----------------------

/** Values as the rule compares them: doubles by their bits' meaning in Java's Double.compare (-0.0 ≠ 0.0, NaN = NaN). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === 'number') return Object.is(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (typeof a === 'object') {
    const x = a as { epochMillis: number; nanoOfMillis: number };
    const y = b as { epochMillis: number; nanoOfMillis: number };
    return x.epochMillis === y.epochMillis && x.nanoOfMillis === y.nanoOfMillis;
  }
  return a === b;
}
const sameRow = (a: InternalRow, b: InternalRow) => a.every((v, i) => sameValue(v, b[i]));

/** One value as comparable text: every double, NaN and -0 included, keeps its identity. */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return `n:${v}`;
  if (typeof v === 'number') return `d:${Object.is(v, -0) ? '-0' : String(v)}`;
  if (v instanceof Uint8Array) return `x:${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'object') {
    const t = v as { epochMillis: number; nanoOfMillis: number };
    return `t:${t.epochMillis}.${t.nanoOfMillis}`;
  }
  return `${typeof v}:${JSON.stringify(v)}`;
}
const rowText = (row: readonly unknown[]) => row.map(valueText).join('|');

type Change = { readonly kind: 'upsert' | 'delete'; readonly row: InternalRow };

/** Applies a load's changes (one per key) to the model; returns its changelog rows as text. */
function applyToModel(model: Map<number, InternalRow>, changes: readonly Change[]): string[] {
  const changelog: string[] = [];
  for (const change of changes) {
    const id = Number(change.row[0]);
    const before = model.get(id);
    if (change.kind === 'delete') {
      if (before !== undefined) changelog.push(rowText(['-D', ...before]));
      model.delete(id);
    } else if (before === undefined) {
      changelog.push(rowText(['+I', ...change.row]));
      model.set(id, change.row);
    } else if (!sameRow(before, change.row)) {
      changelog.push(rowText(['-U', ...before]), rowText(['+U', ...change.row]));
      model.set(id, change.row);
    }
  }
  return changelog;
}

// ---- the loads ----------------------------------------------------------------------------------

/** Load 1: 20,000 keys (the even ids below 40,000) into an empty table: every key new. */
function firstLoad(): Change[] {
  return Array.from({ length: 20_000 }, (_, i) => ({ kind: 'upsert' as const, row: freshRow(2 * i) }));
}

/** A later load over the model, in key order: every kind of change, then `above` new keys over every stored one. */
function laterLoad(model: ReadonlyMap<number, InternalRow>, from: number, above: number, deleted: ReadonlySet<number>): Change[] {
  const changes: Change[] = [];
  for (let id = 0; id < from; id++) {
    const stored = model.get(id);
    const dice = random();
    if (stored !== undefined) {
      if (dice < 0.12) changes.push({ kind: 'upsert', row: [stored[0] as bigint, ...freshRow(id).slice(1)] });
      else if (dice < 0.15) changes.push({ kind: 'upsert', row: [...stored] }); // identical: nothing
      else if (dice < 0.18) {
        // Only the double changes (or not): its sign of zero, NaN again, or a neighbour of its value.
        const d = stored[D] as number | null;
        const next = d === null ? 0 : Number.isNaN(d) ? Number.NaN : d === 0 ? (Object.is(d, -0) ? 0 : -0) : d * (1 + Number.EPSILON);
        changes.push({ kind: 'upsert', row: stored.map((v, i) => (i === D ? next : v)) });
      } else if (dice < 0.23) changes.push({ kind: 'delete', row: [stored[0] as bigint, null, null, null, null, null, null] });
    } else if (deleted.has(id) && dice < 0.5) {
      changes.push({ kind: 'upsert', row: freshRow(id) }); // a deleted key back
    } else if (dice < 0.03) {
      changes.push({ kind: 'upsert', row: freshRow(id) }); // a new key between stored ones
    } else if (dice < 0.04) {
      changes.push({ kind: 'delete', row: [BigInt(id), null, null, null, null, null, null] }); // absent: nothing
    }
  }
  for (let id = from; id < from + above; id++) {
    // New keys above every stored one; now and then a delete of a key never stored among them.
    changes.push(id % 997 === 0 ? { kind: 'delete', row: [BigInt(id), null, null, null, null, null, null] } : { kind: 'upsert', row: freshRow(id) });
  }
  return changes;
}

describe('changelog of adversarial loads, written column-wise, read by Paimon Java against a model', () => {
  let dir = '';
  let table: Table;
  let ref: TableRef;
  const model = new Map<number, InternalRow>();
  /** Per snapshot: the model's changelog rows and table rows, as text. */
  const expected: { changelog: string[]; table: string[] }[] = [];

  async function commitLoad(changes: readonly Change[]): Promise<void> {
    const latest = await table.latestSnapshot();
    const base = latest === null ? null : Number(latest.id);
    const write = await table.newChangelogWrite({ baseSnapshotId: base, writerId: 'adversarial', rowGroupRows: ROW_GROUP_ROWS });
    // The bucket job's merged records: key, _SEQUENCE_NUMBER, _VALUE_KIND (3: a retraction), the columns.
    const recordType = keyValueRowType({ fields: table.schema.fields }, ['id']);
    const batches = [];
    for (let i = 0; i < changes.length; i += BATCH_ROWS) {
      batches.push(batchFromRows(recordType, changes.slice(i, i + BATCH_ROWS).map((c) => [c.row[0] ?? null, 0n, c.kind === 'delete' ? 3 : 0, ...c.row])));
    }
    await write.writeBucketRecords(batches);
    await table.newCommit('adversarial').commit(write.prepareCommit(), base === null ? {} : { baseSnapshotId: base });
    expected.push({ changelog: applyToModel(model, changes), table: [...model.values()].map(rowText) });
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-adversarial-'));
    table = await createTable(new LocalObjectStore(dir), {
      database: 'compat',
      name: 'adversarial',
      schema: { fields: FIELDS, primaryKeys: ['id'], options: { bucket: '1', 'changelog-producer': 'input' } },
    });
    ref = { warehouse: dir, database: 'compat', table: 'adversarial' };
    const deleted = new Set<number>();
    const remember = (changes: readonly Change[]) => {
      for (const c of changes) if (c.kind === 'delete' && model.has(Number(c.row[0]))) deleted.add(Number(c.row[0]));
    };
    await commitLoad(firstLoad());
    for (const [from, above] of [
      [40_000, 4_000],
      [44_000, 3_000],
    ] as const) {
      const changes = laterLoad(model, from, above, deleted);
      remember(changes);
      await commitLoad(changes);
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('the loads are what this test means them to be', () => {
    const kinds = expected.map((e) => KINDS.map((k) => e.changelog.filter((line) => line.startsWith(`string:"${k}"|`)).length));
    // Load 1 all +I; loads 2 and 3 every kind, and fewer changelog rows than changes (no-ops, absent deletes).
    assert.deepEqual(kinds[0], [20_000, 0, 0, 0]);
    for (const [i, [inserts = 0, before = 0, after = 0, deletes = 0]] of kinds.slice(1).entries()) {
      assert.ok(inserts > 3_000 && before > 1_000 && before === after && deletes > 500, `load ${i + 2}: ${String(kinds[i + 1])}`);
    }
  });

  test("Paimon Java's $audit_log between consecutive snapshots holds exactly the model's changelog", async () => {
    const reads = readResults(
      await paimonJava.batch(
        [0, 1, 2].map((from) => ({
          op: 'read' as const,
          ...ref,
          table: 'adversarial$audit_log',
          ...(from === 0 ? { snapshotId: 1 } : { options: { 'incremental-between': `${from},${from + 1}`, 'incremental-between-scan-mode': 'changelog' } }),
        })),
        { timeoutMs: 300_000 },
      ),
    );
    // Snapshot 1 read whole through $audit_log (the first snapshot has no earlier one to scan from): all +I.
    assert.deepEqual(reads[0]?.rows.map((r) => rowText(r)).sort(), expected[0]?.changelog.slice().sort(), 'snapshot 1');
    for (const i of [1, 2]) {
      const java = (reads[i]?.rows ?? []).map((r: OracleRow) => rowText(r));
      assert.equal(java.length, expected[i]?.changelog.length, `snapshot ${i + 1}: changelog rows`);
      assert.deepEqual(java.slice().sort(), expected[i]?.changelog.slice().sort(), `snapshot ${i + 1}: the model's rows and kinds`);
    }
  });

  test('Paimon Java reads the model at every snapshot, pypaimon at the last', async () => {
    const reads = readResults(await paimonJava.batch([1, 2, 3].map((snapshotId) => ({ op: 'read' as const, ...ref, snapshotId })), { timeoutMs: 300_000 }));
    for (const [i, read] of reads.entries()) {
      assert.deepEqual(read.rows.map((r) => rowText(r)).sort(), expected[i]?.table.slice().sort(), `Java, snapshot ${i + 1}`);
    }
    const python = await pypaimon.read(ref);
    assert.deepEqual(python.rows.map((r) => rowText(r)).sort(), expected[2]?.table.slice().sort(), 'pypaimon, latest');
  });
});
