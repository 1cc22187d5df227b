/**
 * How CSV headers and NDJSON keys map to the table's columns (local files), as Parquet's names do
 * (column-names.ts): exact first, then a unique case-insensitive match, at plan time and when read;
 * a file that shares no column with the table, a header naming a column twice and a name that is a
 * column's but for white space around it are refused with SOURCE_SCHEMA_MISMATCH naming the file; an NDJSON object never
 * reads an inherited property for a key it lacks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString } from '@tributary/table';
import { FilesSource } from '../../src/files/source.ts';
import type { PlanContext, PlannedSourceShard, SourceRow } from '../../src/source.ts';
import { PLAN, localContext } from '../support/contexts.ts';

const dir = mkdtempSync(join(tmpdir(), 'files-columns-'));
const root = pathToFileURL(dir).href;
after(() => rmSync(dir, { recursive: true, force: true }));

const ORDERS: PlanContext = {
  ...PLAN,
  target: [
    { name: 'order_id', type: parseDataTypeString('BIGINT NOT NULL') },
    { name: 'amount', type: parseDataTypeString('DECIMAL(10, 2)') },
  ],
};

function source(format: 'csv' | 'ndjson', name: string, text: string, columns: readonly string[] = ['order_id', 'amount'], unknownColumns?: 'ignore'): FilesSource {
  writeFileSync(join(dir, name), text);
  return new FilesSource({ kind: 'files', format, uris: [`${root}/${name}`], unknownColumns }, localContext(root, columns));
}

async function read(s: FilesSource, shards: readonly PlannedSourceShard[]): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for (const shard of shards) for await (const batch of s.open(shard)) rows.push(...batch.rows);
  return rows;
}

const mismatch = (name: string) => (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.file === `${root}/${name}` && !e.message.includes('SECRET');

describe('CSV headers and NDJSON keys match the table like Parquet names', () => {
  test('a name that differs in case only matches, at plan time (NOT NULL) and when read', async () => {
    const csv = source('csv', 'case.csv', 'Order_ID,AMOUNT\n1,9.99\n2,\n');
    assert.deepEqual(await read(csv, await csv.plan(ORDERS)), [
      ['1', '9.99'],
      ['2', null],
    ]);
    const ndjson = source('ndjson', 'case.ndjson', '{"ORDER_ID": 1, "Amount": 9.99}\n{"ORDER_ID": 2}\n');
    assert.deepEqual(await read(ndjson, await ndjson.plan(ORDERS)), [
      [1, 9.99],
      [2, null],
    ]);
    // Exact first: an object's order_id is its own key, not its ORDER_ID, whose value is then not
    // loaded: refused, unless unknownColumns is ignore.
    const text = '{"order_id": 1, "amount": 9.99}\n{"order_id": 2, "ORDER_ID": 3}\n';
    const exact = source('ndjson', 'exact.ndjson', text);
    await assert.rejects(read(exact, await exact.plan(ORDERS)), (e: unknown) => mismatch('exact.ndjson')(e) && (e as { context: { column?: string } }).context.column === 'ORDER_ID');
    const ignored = source('ndjson', 'exact.ndjson', text, undefined, 'ignore');
    assert.deepEqual(await read(ignored, await ignored.plan(ORDERS)), [
      [1, 9.99],
      [2, null],
    ]);
  });

  test('two names that match one column ignoring case are refused', async () => {
    const csv = source('csv', 'two.csv', 'ORDER_ID,Order_Id\n1,2\n');
    await assert.rejects(csv.plan(ORDERS), mismatch('two.csv'));
    await assert.rejects(read(csv, [{ id: 'files-00000', spec: { files: [`${root}/two.csv`] } }]), mismatch('two.csv'));
    const ndjson = source('ndjson', 'two.ndjson', '{"order_id": 1}\n{"ORDER_ID": 1, "Order_Id": 2}\n');
    await assert.rejects(read(ndjson, await ndjson.plan(ORDERS)), mismatch('two.ndjson'));
    // Judged over all of a file's objects: one column named two ways in two objects, also when one
    // of the names is exact (each object alone read its own, and both loaded).
    for (const [name, text] of [
      ['across.ndjson', '{"order_id": 1, "Amount": 5}\n{"order_id": 2, "AMOUNT": 7}\n'],
      ['across-exact.ndjson', '{"order_id": 1, "Amount": 5}\n{"order_id": 2, "amount": 7}\n'],
      ['across-late.ndjson', '{"order_id": 1, "amount": 5}\n{"order_id": 2}\n{"order_id": 3, "AMOUNT": 7}\n'],
    ] as const) {
      const across = source('ndjson', name, text);
      await assert.rejects(read(across, await across.plan(ORDERS)), (e: unknown) => mismatch(name)(e) && /name column amount both/.test((e as Error).message), name);
    }
  });

  test('a file that shares no column with the table is refused, not loaded as rows of NULLs', async () => {
    const nullable: PlanContext = { ...PLAN, target: [{ name: 'order_id', type: parseDataTypeString('BIGINT') }, { name: 'amount', type: parseDataTypeString('DECIMAL(10, 2)') }] };
    const semicolons = source('csv', 'semi.csv', 'order_id;amount\n1;SECRET\n');
    await assert.rejects(semicolons.plan(nullable), mismatch('semi.csv'));
    // The worker refuses it too (a file past the plan's first FILES_CHECKED, or changed since).
    await assert.rejects(read(semicolons, [{ id: 'files-00000', spec: { files: [`${root}/semi.csv`] } }]), mismatch('semi.csv'));
    // An NDJSON file is judged by all its objects (the plan sees its first only): refused when read,
    // also when the keys that are no column are ignored (the plan already refuses its key id otherwise).
    const otherText = '{"id": 1, "note": "SECRET"}\n{"id": 2}\n';
    await assert.rejects(source('ndjson', 'other.ndjson', otherText).plan(nullable), (e: unknown) => mismatch('other.ndjson')(e) && (e as { context: { column?: string } }).context.column === 'id');
    const other = source('ndjson', 'other.ndjson', otherText, undefined, 'ignore');
    await assert.rejects(read(other, await other.plan(nullable)), (e: unknown) => mismatch('other.ndjson')(e) && /none of the table's columns/.test((e as Error).message));
    // Some objects without any table key (sparse objects) are fine when others have one, once the
    // source ignores the keys that are no column (note).
    const sparseText = '{"note": "x"}\n{}\n{"amount": 1.5}\n';
    await assert.rejects(source('ndjson', 'sparse.ndjson', sparseText).plan(nullable), (e: unknown) => mismatch('sparse.ndjson')(e) && (e as { context: { column?: string } }).context.column === 'note');
    const sparse = source('ndjson', 'sparse.ndjson', sparseText, undefined, 'ignore');
    assert.deepEqual(await read(sparse, await sparse.plan(nullable)), [
      [null, null],
      [null, null],
      [null, 1.5],
    ]);
  });

  test('a name that is a table column but for white space around it is refused, not loaded as a column of NULLs', async () => {
    const padded = (e: unknown, name: string) => mismatch(name)(e) && /" amount" is the table's column amount with white space/.test((e as Error).message) && (e as { context: { column?: string } }).context.column === 'amount';
    // A header written `order_id, amount`: the nullable amount would be null in every row.
    const csv = source('csv', 'space.csv', 'order_id, amount\n1,9.99\n');
    await assert.rejects(csv.plan(ORDERS), (e: unknown) => padded(e, 'space.csv'));
    await assert.rejects(read(csv, [{ id: 'files-00000', spec: { files: [`${root}/space.csv`] } }]), (e: unknown) => padded(e, 'space.csv'));
    // Ignoring case too, and a tab or a trailing space are white space as well.
    for (const [name, header] of [
      ['tab.csv', 'order_id,\tAMOUNT'],
      ['trailing.csv', 'order_id,amount '],
    ] as const) {
      const other = source('csv', name, `${header}\n1,9.99\n`);
      await assert.rejects(other.plan(ORDERS), (e: unknown) => mismatch(name)(e) && (e as { context: { column?: string } }).context.column === 'amount', name);
    }
    // NDJSON: in any object, also one past the first (the plan reads the first only).
    const ndjson = source('ndjson', 'space.ndjson', '{"order_id": 1, "amount": 2}\n{"order_id": 2, " amount": 9.99}\n');
    await assert.rejects(read(ndjson, await ndjson.plan(ORDERS)), (e: unknown) => padded(e, 'space.ndjson'));
    // A padded name that is itself a table column is that column's, and the exact name still wins.
    const both: PlanContext = { ...PLAN, target: [...ORDERS.target, { name: ' amount', type: parseDataTypeString('INT') }] };
    const exact = source('csv', 'both.csv', 'order_id,amount, amount\n1,9.99,3\n', ['order_id', 'amount', ' amount']);
    assert.deepEqual(await read(exact, await exact.plan(both)), [['1', '9.99', '3']]);
  });

  test('a CSV header naming a table column twice is refused', async () => {
    const csv = source('csv', 'dup.csv', 'order_id,amount,amount\n1,SECRET,2\n');
    await assert.rejects(csv.plan(ORDERS), mismatch('dup.csv'));
    await assert.rejects(read(csv, [{ id: 'files-00000', spec: { files: [`${root}/dup.csv`] } }]), mismatch('dup.csv'));
  });
});

describe('NDJSON objects: own keys only', () => {
  test('a key named like an Object.prototype property that a line lacks is null, not the inherited value', async () => {
    const columns = ['id', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const s = source('ndjson', 'proto.ndjson', '{"id": 1, "__proto__": "x", "constructor": "c", "toString": "t", "hasOwnProperty": "h"}\n{"id": 2}\n', columns);
    assert.deepEqual(await read(s, await s.plan(PLAN)), [
      [1, 'x', 'c', 't', 'h'],
      [2, null, null, null, null],
    ]);
  });
});
