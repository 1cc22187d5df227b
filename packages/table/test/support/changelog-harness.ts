/**
 * Test harness for tables with changelog-producer = input: one load (a changelog write and its
 * commit), a streaming consumer fed only the changelog (a retracting SUM(amount) GROUP BY
 * store_id, and a replay that must reproduce the table), and the invariants every snapshot of a
 * load must hold.
 */
import assert from 'node:assert/strict';
import { RowKind, type ChangelogRecord, type CommitMessage, type InternalRow, type KeyedChange, type Table } from '@tributary/table';

export const STORE = 1;
export const AMOUNT = 2;

/** One load: changes netted by one writer from the latest snapshot, committed as one snapshot (or none). */
export async function load(table: Table, changes: readonly KeyedChange[], user = `load-${Math.random()}`): Promise<{ snapshotId: number | null; messages: CommitMessage[]; base: number | null }> {
  const latest = await table.latestSnapshot();
  const base = latest === null ? null : Number(latest.id);
  const write = await table.newChangelogWrite({ baseSnapshotId: base, writerId: 'cl' });
  await write.write(changes);
  const messages = write.prepareCommit();
  if (messages.length === 0) return { snapshotId: null, messages, base };
  const result = await table.newCommit(user).commit(messages, base === null ? {} : { baseSnapshotId: base });
  return { snapshotId: result.snapshotId, messages, base };
}

export const upsert = (row: InternalRow): KeyedChange => ({ kind: 'upsert', row });
export const del = (row: InternalRow): KeyedChange => ({ kind: 'delete', row });

export const KIND_NAMES = ['+I', '-U', '+U', '-D'] as const;

/** The changelog of a snapshot as `[kind, row]` pairs, in stream order. */
export async function changelogOf(table: Table, snapshotId: number): Promise<[string, InternalRow][]> {
  const out: [string, InternalRow][] = [];
  for await (const r of table.changelog(snapshotId)) out.push([KIND_NAMES[r.kind] as string, r.row]);
  return out;
}

export async function records(table: Table, snapshotId: number): Promise<ChangelogRecord[]> {
  const out: ChangelogRecord[] = [];
  for await (const r of table.changelog(snapshotId)) out.push(r);
  return out;
}

function keyText(row: InternalRow, keyIndex: readonly number[]): string {
  return JSON.stringify(keyIndex.map((i) => row[i]), (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

export function rowText(row: InternalRow): string {
  return JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

/**
 * A downstream consumer fed only the changelog: replays it into a keyed state (-U/-D must retract
 * exactly the row it holds, +I must find the key absent) and keeps a retracting SUM(amount) per store.
 */
export class ChangelogConsumer {
  readonly state = new Map<string, InternalRow>();
  readonly sums = new Map<string, bigint>();
  readonly #keyIndex: readonly number[];
  /** Columns left out when rows are compared (the table's row-deduplicate-ignore-fields: their changes alone emit nothing). */
  readonly ignored: readonly number[];

  constructor(keyIndex: readonly number[], ignored: readonly number[] = []) {
    this.#keyIndex = keyIndex;
    this.ignored = ignored;
  }

  comparable(row: InternalRow): string {
    return rowText(row.map((v, i) => (this.ignored.includes(i) ? null : v)));
  }

  apply(kind: number, row: InternalRow): void {
    const key = keyText(row, this.#keyIndex);
    const held = this.state.get(key);
    const store = String(row[STORE]);
    const amount = row[AMOUNT] as bigint;
    if (kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE) {
      assert.ok(held !== undefined, `${KIND_NAMES[kind]} of a key the stream does not hold`);
      assert.equal(this.comparable(row), this.comparable(held), `${KIND_NAMES[kind]} must retract exactly the row the stream holds`);
      this.state.delete(key);
      this.sums.set(store, (this.sums.get(store) ?? 0n) - amount);
    } else {
      if (kind === RowKind.INSERT) assert.equal(held, undefined, '+I of a key the stream already holds');
      if (kind === RowKind.UPDATE_AFTER) assert.equal(held, undefined, '+U without its -U');
      this.state.set(key, row);
      this.sums.set(store, (this.sums.get(store) ?? 0n) + amount);
    }
  }

  async consume(table: Table, snapshotId: number): Promise<void> {
    for await (const r of table.changelog(snapshotId)) this.apply(r.kind, r.row);
  }

  /** The SUM per store without the zero groups. */
  sumsNonZero(): Map<string, bigint> {
    return new Map([...this.sums].filter(([, v]) => v !== 0n).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

export function sumOf(rows: readonly InternalRow[]): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const row of rows) sums.set(String(row[STORE]), (sums.get(String(row[STORE])) ?? 0n) + (row[AMOUNT] as bigint));
  return new Map([...sums].filter(([, v]) => v !== 0n).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The consumer's state and SUM equal the table's batch read at this snapshot. */
export async function assertConsumerMatches(table: Table, consumer: ChangelogConsumer, snapshotId: number): Promise<void> {
  const rows = await table.newRead({ snapshotId }).toArray();
  assert.deepEqual(consumer.sumsNonZero(), sumOf(rows), `retracting SUM over the changelog = SUM over the table at snapshot ${snapshotId}`);
 const replayed = [...consumer.state.values()].map((r) => consumer.comparable(r)).sort();
  assert.deepEqual(replayed, rows.map((r) => consumer.comparable(r)).sort(), `replaying the changelog reproduces the table at snapshot ${snapshotId}`);
}

/**
 * The invariants of a load's snapshot: one new APPEND snapshot, changelogManifestList set exactly
 * when there are changelog rows, changelogRecordCount = those rows, changelog files named
 * `changelog-…-<n>.parquet`, each -U immediately followed by the +U of its key, and data sequence
 * numbers above the bucket's maximum in the base.
 */
export async function assertSnapshotInvariants(table: Table, snapshotId: number, base: number | null, keyIndex: readonly number[]): Promise<void> {
  const snapshot = await table.snapshot(snapshotId);
  assert.equal(snapshot.commitKind, 'APPEND');
  assert.equal(Number(snapshot.id), (base ?? 0) + 1, 'exactly one new snapshot');
  const rows = await records(table, snapshotId);
  assert.equal(snapshot.changelogManifestList !== null, rows.length > 0, 'changelogManifestList is set exactly when there is a changelog');
  assert.equal(snapshot.changelogRecordCount, rows.length === 0 ? null : BigInt(rows.length));
  for (const r of rows) assert.match(r.fileName, /^changelog-cl-[0-9a-f-]{36}-\d+\.parquet$/);
  rows.forEach((r, i) => {
    if (r.kind === RowKind.UPDATE_BEFORE) {
      const next = rows[i + 1];
      assert.equal(next?.kind, RowKind.UPDATE_AFTER, '-U is immediately followed by +U');
      assert.equal(keyText(next.row, keyIndex), keyText(r.row, keyIndex), '-U and +U share the key');
    }
    if (r.kind === RowKind.UPDATE_AFTER) assert.equal(rows[i - 1]?.kind, RowKind.UPDATE_BEFORE, '+U is immediately preceded by -U');
  });
  if (base === null) return;
  const before = await table.newRead({ snapshotId: base }).plan();
  const after = await table.newRead({ snapshotId }).plan();
  const baseNames = new Set(before.map((e) => e.file.fileName));
  for (const added of after.filter((e) => !baseNames.has(e.file.fileName))) {
    const bucketMax = before.filter((e) => e.bucket === added.bucket).reduce((m, e) => (e.file.maxSequenceNumber > m ? e.file.maxSequenceNumber : m), -1n);
    assert.ok(added.file.minSequenceNumber > bucketMax, 'new data sequence numbers are above the bucket maximum of the base');
  }
}
