/**
 * Malformed and truncated input through the files source on a local disk: a CSV or NDJSON file cut
 * at every byte offset gives exactly the rows it holds whole, or SOURCE_FILE_MALFORMED, never another
 * row; each kind of malformed text names the file, line and column and no cell value; a Parquet
 * file cut anywhere is SOURCE_FILE_MALFORMED naming the file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { isTributaryError, type TributaryError } from '@tributary/protocol';
import { FilesSource } from '../../src/files/source.ts';
import type { SourceRow } from '../../src/source.ts';
import { PLAN, localContext } from '../support/contexts.ts';
import { writePyarrowFiles } from '../support/pyarrow-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'tributary-malformed-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const root = pathToFileURL(dir).href;
mkdirSync(join(dir, 'in'));

/** Cell values that must never appear in an error message. */
const SECRETS = ['cobalt', 'Smith', 'hunter2', 'naïve', '中文', 'left'];

const CSV = [
  'id,name,note\r\n',
  '1,cobalt,plain\n',
  '2,"Smith, J","said ""hi""\nthen left"\r\n',
  '3,"naïve 😀",\n',
  '4,中文,"a,b\r\nc"\n',
  '5,"",""\n',
  '\n',
  '10,cobalt,hunter2\n',
];
const CSV_ROWS: SourceRow[] = [
  ['1', 'cobalt', 'plain'],
  ['2', 'Smith, J', 'said "hi"\nthen left'],
  ['3', 'naïve 😀', null],
  ['4', '中文', 'a,b\r\nc'],
  ['5', null, null],
  ['10', 'cobalt', 'hunter2'],
];

const NDJSON = [
  '{"id": 1, "name": "cobalt", "note": "plain"}\n',
  '{"id": 2, "name": "Smith, J", "note": "said \\"hi\\"\\nthen left"}\r\n',
  '\n',
  '{"id": 3, "name": "naïve 😀", "note": null}\n',
  '{"id": 4, "name": "中文", "note": "a,b"}\n',
  '{"id": 10, "name": "cobalt", "note": "hunter2"}\n',
];
const NDJSON_ROWS: SourceRow[] = [
  [1, 'cobalt', 'plain'],
  [2, 'Smith, J', 'said "hi"\nthen left'],
  [3, 'naïve 😀', null],
  [4, '中文', 'a,b'],
  [10, 'cobalt', 'hunter2'],
];

let files = 0;

function source(format: 'csv' | 'ndjson' | 'parquet', content: Uint8Array | string, extra: Record<string, unknown> = {}): { source: FilesSource; uri: string } {
  const name = `f-${files++}.${format}`;
  writeFileSync(join(dir, 'in', name), content);
  const uri = `${root}/in/${name}`;
  return { source: new FilesSource({ kind: 'files', format, uris: [uri], ...extra }, localContext(root, ['id', 'name', 'note'])), uri };
}

async function readAll(s: FilesSource): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for (const shard of await s.plan(PLAN)) for await (const batch of s.open(shard)) rows.push(...batch.rows);
  return rows;
}

async function outcome(s: FilesSource): Promise<SourceRow[] | TributaryError> {
  try {
    return await readAll(s);
  } catch (error) {
    if (isTributaryError(error)) return error;
    throw error;
  }
}

function assertMalformed(error: unknown, uri: string, where: { line?: number; column?: string } = {}): true {
  assert.ok(isTributaryError(error), `not a typed error: ${String(error)}`);
  assert.equal(error.code, 'SOURCE_FILE_MALFORMED', error.message);
  assert.equal(error.retryable, false);
  assert.equal(error.context.file, uri);
  if (where.line !== undefined) assert.equal(error.context.line, where.line, error.message);
  if (where.column !== undefined) assert.equal(error.context.column, where.column, error.message);
  const shown = `${error.message} ${JSON.stringify(error.context)}`;
  for (const secret of SECRETS) assert.ok(!shown.includes(secret), `a cell value in: ${shown}`);
  return true;
}

/** Byte offsets at which a whole number of records (by `parts`) ends. */
function boundaries(parts: readonly string[]): Map<number, number> {
  const ends = new Map<number, number>();
  let offset = 0;
  ends.set(0, 0);
  let records = 0;
  for (const part of parts) {
    offset += Buffer.byteLength(part);
    if (part.trim() !== '') records++;
    ends.set(offset, records);
  }
  return ends;
}

describe('files cut at every byte offset', () => {
  for (const [format, parts, rows, headerRecords] of [
    ['csv', CSV, CSV_ROWS, 1],
    ['ndjson', NDJSON, NDJSON_ROWS, 0],
  ] as const) {
    test(`${format}: exactly the whole rows of the prefix, or SOURCE_FILE_MALFORMED; never another row`, async () => {
      const whole = Buffer.from(parts.join(''));
      assert.deepEqual(await readAll(source(format, whole).source), rows);
      const ends = boundaries(parts);
      for (let length = 0; length < whole.length; length++) {
        const { source: cut, uri } = source(format, whole.subarray(0, length));
        const result = await outcome(cut);
        const complete = ends.get(length);
        if (complete !== undefined) {
          // The cut falls between records: exactly the rows before it, no error.
          assert.deepEqual(result, rows.slice(0, Math.max(0, complete - headerRecords)), `cut at ${length}`);
        } else {
          assert.ok(!Array.isArray(result), `cut at ${length} gave rows ${JSON.stringify(result)}`);
          assertMalformed(result, uri);
        }
      }
    });
  }
});

describe('malformed text names the file, line and column, never a value', () => {
  test('CSV: an unclosed quote, too few and too many fields, a stray quote, text after a closing quote', async () => {
    const cases: [string, number, string][] = [
      ['id,name,note\n1,cobalt,"hunter2\n2,x,y\n', 2, 'note'],
      ['id,name,note\n1,cobalt\n', 2, 'note'],
      ['id,name,note\n1,cobalt,hunter2,extra\n', 2, '#4'],
      ['id,name,note\n1,co"balt,x\n', 2, 'name'],
      ['id,name,note\n1,"cobalt"x,y\n', 2, 'name'],
      ['id,name,note\n1,"a\nb",c\n2,"cobalt"\r3\n', 4, 'name'],
    ];
    for (const [text, line, column] of cases) {
      const { source: s, uri } = source('csv', text);
      await assert.rejects(readAll(s), (e) => assertMalformed(e, uri, { line, column }));
    }
  });

  test('an unclosed quote at the end is refused even when an unterminated last line is allowed', async () => {
    const { source: s, uri } = source('csv', 'id,name,note\n1,cobalt,"hunter2', { allowUnterminatedLastLine: true });
    await assert.rejects(readAll(s), (e) => assertMalformed(e, uri, { line: 2, column: 'note' }));
  });

  test('invalid UTF-8 names the line and column it is in (CSV) or the line (NDJSON)', async () => {
    const bad = Buffer.concat([Buffer.from('id,name,note\n1,cobalt,x\n2,"a\nb'), Buffer.from([0xc3, 0x28]), Buffer.from('",hunter2\n')]);
    const csv = source('csv', bad);
    await assert.rejects(readAll(csv.source), (e) => assertMalformed(e, csv.uri, { line: 4, column: 'name' }));
    const ndjson = source('ndjson', Buffer.concat([Buffer.from('{"id": 1}\n{"name": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}\n')]));
    await assert.rejects(readAll(ndjson.source), (e) => assertMalformed(e, ndjson.uri, { line: 2 }));
  });

  test('NDJSON: a cut line, invalid JSON and a line that is not an object', async () => {
    for (const [text, line] of [
      ['{"id": 1}\n{"id": 2, "name": "hunter2', 2],
      ['{"id": 1}\n{"id": 2, "name": hunter2}\n', 2],
      ['{"id": 1}\n\n["hunter2"]\n', 3],
    ] as const) {
      const { source: s, uri } = source('ndjson', text, { allowUnterminatedLastLine: true });
      await assert.rejects(readAll(s), (e) => assertMalformed(e, uri, { line }));
    }
  });

  test('a last line without its terminator is refused by default and read with allowUnterminatedLastLine', async () => {
    for (const [format, text, rows] of [
      ['csv', 'id,name\n1,cobalt', [['1', 'cobalt', null]]],
      ['ndjson', '{"id": 1}\n{"id": 2, "name": "cobalt"}', [[1, null, null], [2, 'cobalt', null]]],
    ] as const) {
      const strict = source(format, text);
      await assert.rejects(readAll(strict.source), (e) => assertMalformed(e, strict.uri, { line: format === 'csv' ? 2 : 2 }) && /may be truncated/.test((e as Error).message));
      assert.deepEqual(await readAll(source(format, text, { allowUnterminatedLastLine: true }).source), rows);
    }
  });
});

describe('a truncated Parquet file', () => {
  test('cut at several offsets: SOURCE_FILE_MALFORMED naming the file', async () => {
    const path = join(dir, 'whole.parquet');
    writePyarrowFiles([{ path, start: 0, count: 200, ts_unit: 'us', row_group: 64 }]);
    const whole = readFileSync(path);
    const offsets = [0, 1, 4, 8, 100, Math.floor(whole.length / 2), whole.length - 9, whole.length - 8, whole.length - 5, whole.length - 4, whole.length - 1];
    for (const length of offsets) {
      const { source: s, uri } = source('parquet', whole.subarray(0, length));
      await assert.rejects(readAll(s), (e) => assertMalformed(e, uri), `cut at ${length}`);
    }
  });
});
