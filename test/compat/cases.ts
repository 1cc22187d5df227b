// The tables and rows the cross-read tests share: one column of every type Tributary writes, rows
// with each type's extremes and nulls, and a model that computes the rows a table must hold after a
// sequence of commits. The model knows nothing of any implementation, so a reader that agrees with
// it is right on its own terms, not merely consistent with Tributary's writer.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import type { InternalRow, Table } from '@tributary/table';
import { canonicalRows, type OracleRow, type OracleTimestamp, type RowKindShort, type TableDefinition } from '@tributary/testkit';

// ---- columns ------------------------------------------------------------------------------------

const TIMESTAMP_PRECISIONS = [0, 2, 3, 6, 7, 9] as const;
const LTZ_PRECISIONS = [0, 3, 6, 9] as const;

/** The key columns first (id, region), then one column per type and precision. */
export const fields = [
  { name: 'id', type: 'INT' },
  { name: 'region', type: 'STRING' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 'i8', type: 'TINYINT' },
  { name: 'i16', type: 'SMALLINT' },
  { name: 'i32', type: 'INT' },
  { name: 'i64', type: 'BIGINT' },
  { name: 'f32', type: 'FLOAT' },
  { name: 'f64', type: 'DOUBLE' },
  { name: 'd9', type: 'DECIMAL(9, 2)' },
  { name: 'd18', type: 'DECIMAL(18, 4)' },
  { name: 'd38', type: 'DECIMAL(38, 10)' },
  { name: 'd38i', type: 'DECIMAL(38, 0)' },
  { name: 'c', type: 'CHAR(5)' },
  { name: 'vc', type: 'VARCHAR(20)' },
  { name: 's', type: 'STRING' },
  { name: 'bin', type: 'BINARY(3)' },
  { name: 'vb', type: 'VARBINARY(10)' },
  { name: 'by', type: 'BYTES' },
  { name: 'dt', type: 'DATE' },
  { name: 'tm', type: 'TIME' },
  { name: 'tm3', type: 'TIME(3)' },
  ...TIMESTAMP_PRECISIONS.map((p) => ({ name: `ts${p}`, type: `TIMESTAMP(${p})` })),
  ...LTZ_PRECISIONS.map((p) => ({ name: `ltz${p}`, type: `TIMESTAMP(${p}) WITH LOCAL TIME ZONE` })),
] as const;

export type FieldName = (typeof fields)[number]['name'];
const fieldIndex = new Map<string, number>(fields.map((f, i) => [f.name, i]));

/**
 * Columns pypaimon 2.1.0 mis-reads in primary-key tables, whoever wrote the files (Paimon Java's
 * too): when it merges a bucket of several files it drops the nanoseconds of TIMESTAMP(7..9) and
 * TIMESTAMP_LTZ(7..9), keeping microseconds. The primary-key tables pypaimon reads leave these
 * columns out; its append tables keep them.
 */
export const PYPAIMON_PK_UNREADABLE_COLUMNS: readonly FieldName[] = ['ts7', 'ts9', 'ltz9'];
const pypaimonFields = fields.filter((f) => !PYPAIMON_PK_UNREADABLE_COLUMNS.includes(f.name));

/** Tables of every layout: append (unaware and fixed bucket), primary key (flat, partitioned, with a sequence field), all NOT NULL; PK fields become NOT NULL as Java makes them. */
export const tables = {
  appendUnaware: { fields, partitionKeys: ['region'] },
  appendFixed: { fields, options: { bucket: '2', 'bucket-key': 'id' } },
  pkPartitioned: { fields, partitionKeys: ['region'], primaryKeys: ['id', 'region'], options: { bucket: '2' } },
  pkFlat: { fields, primaryKeys: ['id'], options: { bucket: '4' } },
  pkPartitionedPy: { fields: pypaimonFields, partitionKeys: ['region'], primaryKeys: ['id', 'region'], options: { bucket: '2' } },
  pkFlatPy: { fields: pypaimonFields, primaryKeys: ['id'], options: { bucket: '4' } },
  pkSequence: { fields: pypaimonFields, primaryKeys: ['id'], options: { bucket: '2', 'sequence.field': 'i64' } },
  /** Every column NOT NULL: Parquet REQUIRED columns. */
  notNull: { fields: fields.map((f) => ({ name: f.name, type: `${f.type} NOT NULL` })), options: { bucket: '2', 'bucket-key': 'id' } },
} as const satisfies Record<string, TableDefinition>;
export type TableName = keyof typeof tables;

/** Rows of `fields` cut down to the columns of `definition` (matched by name). */
export function project(rows: readonly OracleRow[], definition: TableDefinition): OracleRow[] {
  const indices = definition.fields.map((f) => fieldIndex.get(f.name)!);
  if (indices.length === fields.length) return [...rows];
  return rows.map((r) => indices.map((i) => r[i] ?? null));
}

/** An operation on rows of `fields`, cut down to the columns of `definition`. */
export function projectOperation(operation: Operation, definition: TableDefinition): Operation {
  return { ...operation, rows: project(operation.rows, definition) };
}

// ---- values -------------------------------------------------------------------------------------

/** A timestamp truncated (towards the past, as Paimon does) to `precision` fractional digits. */
export function timestamp(epochNanos: bigint, precision: number): OracleTimestamp {
  const unit = 10n ** BigInt(9 - precision);
  let nanos = epochNanos - (((epochNanos % unit) + unit) % unit);
  const millis = nanos >= 0n ? nanos / 1_000_000n : -((-nanos + 999_999n) / 1_000_000n);
  nanos -= millis * 1_000_000n;
  return { epochMillis: Number(millis), nanoOfMillis: Number(nanos) };
}

const NANOS_PER_DAY = 86_400_000_000_000n;
const YEAR_1 = -719_162n * NANOS_PER_DAY; // 0001-01-01T00:00:00
const YEAR_10000 = 2_932_897n * NANOS_PER_DAY; // 10000-01-01T00:00:00, one nanosecond past the largest
// An INT64 of nanoseconds (how pypaimon writes precision 7..9) spans 1677-09-21 .. 2262-04-11.
// Kept a little inside, so truncating to a coarser precision stays in range.
const NANOS_MIN = -9_223_372_036_000_000_000n;
const NANOS_MAX = 9_223_372_036_854_775_807n;

function timestamps(prefix: 'ts' | 'ltz', epochNanos: (precision: number) => bigint): Partial<Record<FieldName, OracleRowValue>> {
  const precisions = prefix === 'ts' ? TIMESTAMP_PRECISIONS : LTZ_PRECISIONS;
  return Object.fromEntries(precisions.map((p) => [`${prefix}${p}`, timestamp(epochNanos(p), p)]));
}

type OracleRowValue = OracleRow[number];
type Values = Partial<Record<FieldName, OracleRowValue>>;

const bytes = (...values: number[]) => new Uint8Array(values);
const maxUnscaled = (digits: number) => 10n ** BigInt(digits) - 1n;

/** Largest values of every type (timestamps of precision 7..9 stay in INT64-nanosecond range). */
const maxima: Values = {
  b: true, i8: 127, i16: 32767, i32: 2147483647, i64: 9223372036854775807n,
  f32: 3.4028234663852886e38, f64: Number.MAX_VALUE,
  d9: maxUnscaled(9), d18: maxUnscaled(18), d38: maxUnscaled(38), d38i: maxUnscaled(38),
  c: 'zzzzz', vc: '😀'.repeat(5), s: '4-byte 😀𝄞 ✓ ünï', bin: bytes(255, 255, 255), vb: new Uint8Array(10).fill(255),
  by: new Uint8Array(300).fill(0xab), dt: 2932896, tm: 86_399_000, tm3: 86_399_999,
  ...timestamps('ts', (p) => (p > 6 ? NANOS_MAX : YEAR_10000 - 1n)),
  ...timestamps('ltz', (p) => (p > 6 ? NANOS_MAX : YEAR_10000 - 1n)),
};

/** Smallest values, negative decimals, dates and timestamps before 1970. */
const minima: Values = {
  b: false, i8: -128, i16: -32768, i32: -2147483648, i64: -9223372036854775808n,
  f32: -3.4028234663852886e38, f64: -Number.MAX_VALUE,
  d9: -maxUnscaled(9), d18: -maxUnscaled(18), d38: -maxUnscaled(38), d38i: -maxUnscaled(38),
  c: 'AAAAA', vc: '', s: '', bin: bytes(0, 0, 0), vb: new Uint8Array(0), by: new Uint8Array(0),
  dt: -719162, tm: 0, tm3: 0,
  ...timestamps('ts', (p) => (p > 6 ? NANOS_MIN : YEAR_1)),
  ...timestamps('ltz', (p) => (p > 6 ? NANOS_MIN : YEAR_1)),
};

/** Ordinary values just either side of zero and of the epoch. */
const nearZero: Values = {
  b: true, i8: -1, i16: 1, i32: -1, i64: 0n, f32: -0, f64: 5e-324,
  d9: -1n, d18: 1n, d38: -12345678901234567890n, d38i: 0n,
  c: 'a😀bcd', vc: 'naïve', s: 'x'.repeat(40), bin: bytes(0, 128, 255), vb: bytes(1, 2, 3), by: bytes(0),
  dt: -1, tm: 1000, tm3: 1,
  ...timestamps('ts', () => -1n), // 1969-12-31T23:59:59.999999999, truncated per precision
  ...timestamps('ltz', () => 1_700_000_000_123_456_789n),
};

/** The floats JSON cannot carry as numbers. */
const specialFloats: Values = {
  f32: Number.NaN, f64: Number.NEGATIVE_INFINITY, i64: 42n, s: 'special floats',
  ...timestamps('ts', () => 0n),
};

/** A row of `fields`: the given values, null elsewhere. */
export function row(id: number, region: string, values: Values = {}): OracleRow {
  const out: OracleRowValue[] = fields.map(() => null);
  out[0] = id;
  out[1] = region;
  for (const [name, value] of Object.entries(values)) {
    const index = fieldIndex.get(name);
    if (index === undefined) throw new Error(`no field ${name}`);
    out[index] = value ?? null;
  }
  return out;
}

/** A copy of `base` with some values changed. */
export function withValues(base: OracleRow, values: Values): OracleRow {
  const out = [...base];
  for (const [name, value] of Object.entries(values)) out[fieldIndex.get(name)!] = value ?? null;
  return out;
}

/** Six rows over two partitions ('eu', 'us'): maxima, minima, nulls, near zero, special floats, an ordinary row. */
export function extremeRows(firstId = 1): OracleRow[] {
  return [
    row(firstId, 'eu', maxima),
    row(firstId + 1, 'eu', minima),
    row(firstId + 2, 'us'),
    row(firstId + 3, 'us', nearZero),
    row(firstId + 4, 'eu', specialFloats),
    row(firstId + 5, 'us', { i32: 7, s: 'plain', d9: 12550n, dt: 19723, ts3: timestamp(1_704_067_200_000_000_000n, 3) }),
  ];
}

/** Rows with a value in every column (for NOT NULL tables). */
export function fullRows(firstId: number): OracleRow[] {
  return [row(firstId, 'eu', maxima), row(firstId + 1, 'us', minima), row(firstId + 2, '', nearZero)];
}

/**
 * Updates and deletes over extremeRows(1), as Paimon's row kinds: the second commit of a
 * primary-key table, written by Java in one direction and by Tributary in the other.
 */
export function primaryKeyChanges(): Operation {
  const [maxRow, minRow, nullRow, zeroRow, , plainRow] = extremeRows(1) as [OracleRow, OracleRow, OracleRow, OracleRow, OracleRow, OracleRow];
  return {
    type: 'write',
    rows: [
      withValues(maxRow, { s: 'updated max', i64: -5n }),
      minRow,
      withValues(zeroRow, { s: 'retracted' }),
      withValues(plainRow, { s: 'updated plain', ts9: timestamp(-1n, 9) }),
      ...plainRows(100, 3, 'eu', 'second'),
      withValues(nullRow, { s: 'first of two in one commit' }),
      withValues(nullRow, { s: 'second of two in one commit' }),
    ],
    kinds: ['+U', '-D', '-U', '+U', '+I', '+I', '+I', '+I', '+U'],
  };
}

/** Ordinary rows, for commits after the first. */
export function plainRows(firstId: number, count: number, region: string, tag: string): OracleRow[] {
  return Array.from({ length: count }, (_, i) =>
    row(firstId + i, region, {
      i32: firstId + i, i64: BigInt(firstId + i) * 1_000_000_007n, s: `${tag}-${firstId + i}`, d18: BigInt(-i * 12345),
      dt: 19000 + i, ts6: timestamp(BigInt(firstId + i) * 1_000_000_001_000n, 6), f64: i / 3,
    }),
  );
}

/**
 * Commits on a table with `sequence.field = i64`: later records with a smaller i64 lose, also
 * deletes; within one commit the larger i64 wins whatever the order. `withKinds` false: inserts
 * only, each key once per commit (for pypaimon).
 */
export function sequenceFieldOperations(withKinds: boolean): Operation[] {
  const base = plainRows(1, 8, 'eu', 'first'); // i64 = id * 1_000_000_007
  const at = (i: number, i64: bigint, s: string) => withValues(base[i]!, { i64, s });
  const changes: OracleRow[] = [
    at(0, 5n, 'smaller i64: loses'),
    at(1, 9_000_000_000n, 'larger i64: wins'),
    at(2, 9_000_000_000n, 'larger of two in one commit: wins'),
    at(2, 8_000_000_000n, 'smaller of two in one commit, written last: loses'),
    at(3, 4_000_000_028n, 'equal i64, written later: wins'),
  ];
  const deletes: OracleRow[] = [at(4, 1n, 'delete with a smaller i64: ignored'), at(5, 9_000_000_000n, 'delete with a larger i64')];
  return [
    { type: 'write', rows: base },
    withKinds
      ? { type: 'write', rows: [...changes, ...deletes], kinds: [...changes.map(() => '+U' as const), '-D', '-D'] }
      : { type: 'write', rows: changes },
  ];
}

// ---- the model ----------------------------------------------------------------------------------

/** What a commit does, in terms every writer can carry out. */
export type Operation =
  | { readonly type: 'write'; readonly rows: readonly OracleRow[]; readonly kinds?: readonly RowKindShort[] }
  /** Replaces the rows of the partitions (`region` values), or of the whole table, with `rows`; Tributary only. */
  | { readonly type: 'overwrite'; readonly regions?: readonly string[]; readonly rows: readonly OracleRow[] };

/**
 * The rows of a table after each commit, by Paimon's semantics: an append table keeps every row;
 * a primary-key table (merge engine deduplicate) keeps, per key, the last record, or with
 * `sequence.field` the record with the largest such value (the last of equals); the key is gone
 * when that record is a -U or -D.
 */
export class ExpectedTable {
  readonly #primaryKeys: readonly number[] | undefined;
  readonly #sequenceField: number | undefined;
  readonly #region: number;
  #appended: OracleRow[] = [];
  readonly #winners = new Map<string, { readonly row: OracleRow; readonly kind: RowKindShort }>();
  readonly snapshots: OracleRow[][] = [];

  constructor(definition: TableDefinition) {
    const keys = definition.primaryKeys ?? [];
    const index = (name: string) => definition.fields.findIndex((f) => f.name === name);
    this.#primaryKeys = keys.length > 0 ? keys.map(index) : undefined;
    const sequenceField = definition.options?.['sequence.field'];
    this.#sequenceField = sequenceField === undefined ? undefined : index(sequenceField);
    this.#region = index('region');
  }

  get rows(): OracleRow[] {
    if (this.#primaryKeys === undefined) return [...this.#appended];
    return [...this.#winners.values()].filter((w) => w.kind === '+I' || w.kind === '+U').map((w) => w.row);
  }

  apply(operation: Operation): OracleRow[] {
    if (operation.type === 'overwrite') {
      const { regions } = operation;
      const replaced = (r: OracleRow) => regions === undefined || regions.includes(r[this.#region] as string);
      this.#appended = this.#appended.filter((r) => !replaced(r));
      for (const [key, winner] of this.#winners) if (replaced(winner.row)) this.#winners.delete(key);
    }
    const kinds = operation.type === 'write' ? operation.kinds : undefined;
    operation.rows.forEach((r, i) => this.#applyRow(r, kinds?.[i] ?? '+I'));
    this.snapshots.push(this.rows);
    return this.rows;
  }

  #applyRow(row: OracleRow, kind: RowKindShort): void {
    const keys = this.#primaryKeys;
    if (keys === undefined) {
      assert.equal(kind, '+I', 'append tables take inserts only');
      this.#appended.push(row);
      return;
    }
    const key = JSON.stringify(keys.map((k) => String(row[k])));
    const current = this.#winners.get(key);
    const field = this.#sequenceField;
    if (current !== undefined && field !== undefined) {
      const [now, was] = [row[field], current.row[field]];
      assert.ok(typeof now === 'bigint' && typeof was === 'bigint', 'the model orders BIGINT sequence fields only');
      if (now < was) return;
    }
    this.#winners.set(key, { row, kind });
  }
}

// ---- helpers ------------------------------------------------------------------------------------

export const RowKindByte: Readonly<Record<RowKindShort, number>> = { '+I': 0, '-U': 1, '+U': 2, '-D': 3 };

export function assertRows(actual: readonly OracleRow[], expected: readonly OracleRow[], what: string): void {
  assert.deepStrictEqual(canonicalRows(actual), canonicalRows(expected), what);
}

/** A fresh warehouse directory per call, removed when the test file ends. */
export function warehouses(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  after(async () => {
    if (process.env['TRIBUTARY_KEEP_WAREHOUSES'] === undefined) {
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), `tributary-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}

// ---- Tributary as a writer ----------------------------------------------------------------------

/**
 * Carries out one operation as one Tributary commit; returns the snapshot id it made. Each call is
 * a commit user of its own, as each Java batch commit is: the identity (user, Long.MAX_VALUE) of a
 * batch commit would otherwise find the first commit and stop.
 */
export async function tributaryCommit(table: Table, operation: Operation): Promise<number> {
  const write = await table.newWrite();
  const kinds = operation.type === 'write' ? operation.kinds?.map((k) => RowKindByte[k]) : undefined;
  await write.writeRows(operation.rows as InternalRow[], kinds);
  const messages = await write.prepareCommit();
  const result = await table.newCommit(`tributary-compat-${randomUUID()}`).commit(
    messages,
    operation.type !== 'overwrite'
      ? {}
      : operation.regions === undefined
        ? { kind: 'OVERWRITE' }
        : { kind: 'OVERWRITE', overwritePartitions: operation.regions.map((region) => table.partitionRow({ region })) },
  );
  assert.equal(result.alreadyCommitted, false, 'a new commit');
  return result.snapshotId;
}

/**
 * Many rows with most columns filled from a seeded generator: repeated strings (dictionary pages),
 * distinct ones, nulls every seventh value, negative and large numbers. Deterministic per seed.
 */
export function bulkRows(firstId: number, count: number, region: (i: number) => string, seed = 1): OracleRow[] {
  let state = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
  const next = (): bigint => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
    return state;
  };
  const signed = (bits: number) => BigInt.asIntN(bits, next() >> BigInt(64 - bits));
  return Array.from({ length: count }, (_, i) => {
    const id = firstId + i;
    const maybe = <T>(k: number, value: T): T | null => ((id + k) % 7 === 0 ? null : value);
    return row(id, region(i), {
      b: maybe(1, (next() & 1n) === 1n),
      i8: maybe(2, Number(signed(8))),
      i16: maybe(3, Number(signed(16))),
      i32: maybe(4, Number(signed(32))),
      i64: maybe(5, signed(64)),
      f32: maybe(6, Math.fround(Number(signed(32)) / 1024)),
      f64: maybe(0, Number(signed(53)) / 3),
      d9: maybe(1, signed(28) % 1_000_000_000n),
      d18: maybe(2, signed(60) % 1_000_000_000_000_000_000n),
      d38: maybe(3, signed(64) * signed(64)),
      c: maybe(4, `c${String(id % 1000).padStart(4, '0')}`),
      vc: maybe(5, `k${id % 50}`),
      s: maybe(6, `row ${id} ${'é😀'.repeat(id % 5)} ${next().toString(36)}`),
      vb: maybe(0, new Uint8Array([id & 255, (id >> 8) & 255, 7])),
      by: maybe(1, new Uint8Array(Number(next() % 40n)).fill(id & 255)),
      dt: maybe(2, Number(signed(20))),
      tm3: maybe(3, Number(next() % 86_400_000n)),
      ts3: maybe(4, timestamp(signed(62), 3)),
      ts6: maybe(5, timestamp(signed(62), 6)),
      ts9: maybe(6, timestamp(signed(62), 9)),
      ltz6: maybe(0, timestamp(signed(62), 6)),
    });
  });
}
