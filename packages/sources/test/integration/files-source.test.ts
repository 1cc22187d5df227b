import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { FilesSource } from '../../src/files/source.ts';
import type { SourceRow } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { PLAN, localContext } from '../support/contexts.ts';

const dir = mkdtempSync(join(tmpdir(), 'tributary-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const root = pathToFileURL(dir).href;
mkdirSync(join(dir, 'in'));

async function readAll(source: FilesSource): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for (const shard of await source.plan(PLAN)) for await (const batch of source.open(shard)) rows.push(...batch.rows);
  return rows;
}

describe('files source on a local disk', () => {
  test('CSV: header mapping, quotes, doubled quotes, line breaks inside quotes, CRLF, empty = null', async () => {
    writeFileSync(join(dir, 'in', 'a.csv'), 'name,id,note\r\n"Smith, J",1,"said ""hi""\nthen left"\r\nDoe,2,\r\n');
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${root}/in/a.csv`] }, localContext(root, ['id', 'name', 'note', 'absent']));
    assert.deepEqual(await readAll(source), [
      ['1', 'Smith, J', 'said "hi"\nthen left', null],
      ['2', 'Doe', null, null],
    ]);
  });

  test('NDJSON: projected by key, a glob over names, several files per shard, blank lines skipped', async () => {
    writeFileSync(join(dir, 'in', 'p-1.ndjson'), '{"id": 1, "name": "a"}\n\n{"id": 2}\n');
    writeFileSync(join(dir, 'in', 'p-2.ndjson'), '{"name": "c", "id": 3, "extra": true}\n');
    // p-2's key extra is no column: refused by default when read (the plan checks the first object of the first files only), ignored on request.
    const strict = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${root}/in/p-*`], filesPerShard: 2 }, localContext(root, ['id', 'name']));
    await assert.rejects(readAll(strict), (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.file === `${root}/in/p-2.ndjson` && e.context.column === 'extra');
    const source = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${root}/in/p-*`], filesPerShard: 2, unknownColumns: 'ignore' }, localContext(root, ['id', 'name']));
    assert.deepEqual((await source.plan(PLAN)).map((s) => s.id), ['files-00000']);
    assert.deepEqual(await readAll(source), [
      [1, 'a'],
      [2, null],
      [3, 'c'],
    ]);
  });

  test('NDJSON: a line that is not an object is a typed, non-retryable error naming the file and line', async () => {
    writeFileSync(join(dir, 'in', 'bad.ndjson'), '{"id": 1}\n[1, 2]\n');
    const source = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${root}/in/bad.ndjson`] }, localContext(root, ['id']));
    await assert.rejects(readAll(source), (e) => isTributaryError(e) && e.code === 'SOURCE_FILE_MALFORMED' && e.context.line === 2 && !e.retryable);
  });

  test('CSV and NDJSON: a batch holds one file\'s rows and names it; a value that does not fit names the file and its row', async () => {
    // Two files in one shard; the bad id is the second file's row 2 (rows counted from 0; CSV: after the header; NDJSON: blank lines not counted).
    writeFileSync(join(dir, 'in', 'r-1.csv'), 'id\n1\n2\n3\n');
    writeFileSync(join(dir, 'in', 'r-2.csv'), 'id\n4\n5\n99999999999\n6\n');
    writeFileSync(join(dir, 'in', 'r-1.ndjson'), '{"id": 1}\n{"id": 2}\n{"id": 3}\n');
    writeFileSync(join(dir, 'in', 'r-2.ndjson'), '{"id": 4}\n\n{"id": 5}\n{"id": 99999999999}\n{"id": 6}\n');
    const table: RowType = { fields: [{ id: 0, name: 'id', type: parseDataTypeString('INT') }] };
    for (const format of ['csv', 'ndjson'] as const) {
      const source = new FilesSource({ kind: 'files', format, uris: [`${root}/in/r-1.${format}`, `${root}/in/r-2.${format}`], filesPerShard: 2 }, localContext(root, ['id']));
      const [shard, ...others] = await source.plan(PLAN);
      assert.ok(shard !== undefined && others.length === 0);
      const convert = columnConverter('files-00000', await source.columns(), table);
      for (const from of [undefined, 4]) {
        const seen: unknown[] = [];
        let refused: unknown;
        for await (const batch of source.open(shard, from)) {
          seen.push({ file: batch.file?.uri.replace(root, ''), firstRow: batch.file?.firstRow, rows: batch.rows.length, first: batch.firstRowPosition });
          try {
            convert.batch(batch);
          } catch (error) {
            refused = error;
          }
        }
        // Resumed at shard row 4 (the second file's row 1): that file's batch starts at its row 1.
        const second = from === undefined ? { file: `/in/r-2.${format}`, firstRow: 0, rows: 4, first: 3 } : { file: `/in/r-2.${format}`, firstRow: 1, rows: 3, first: 4 };
        assert.deepEqual(seen, from === undefined ? [{ file: `/in/r-1.${format}`, firstRow: 0, rows: 3, first: 0 }, second] : [second], format);
        assert.ok(isTributaryError(refused) && refused.code === 'SOURCE_ROW_INVALID', `${format}: ${String(refused)}`);
        assert.deepEqual({ file: refused.context.file, fileRow: refused.context.fileRow, position: refused.context.position }, { file: `${root}/in/r-2.${format}`, fileRow: 2, position: 5 }, format);
        assert.doesNotMatch(refused.message, /99999999999/, 'no cell value in the message');
      }
    }
  });

  test('CSV and NDJSON: an empty file (no header, no object) passes the plan\'s column check and loads no row; the schema comes from the first file with a record', async () => {
    // A zero-row export is common; it says nothing of its columns, so the plan must not read it as "no column id".
    writeFileSync(join(dir, 'in', 'e-0.csv'), '');
    writeFileSync(join(dir, 'in', 'e-1.csv'), 'id,name\n1,a\n');
    writeFileSync(join(dir, 'in', 'e-0.ndjson'), '\n\n');
    writeFileSync(join(dir, 'in', 'e-1.ndjson'), '{"id": 1, "name": "a"}\n');
    const target = [
      { name: 'id', type: parseDataTypeString('INT NOT NULL') },
      { name: 'name', type: parseDataTypeString('STRING') },
    ];
    for (const format of ['csv', 'ndjson'] as const) {
      const uris = [`${root}/in/e-0.${format}`, `${root}/in/e-1.${format}`];
      const source = new FilesSource({ kind: 'files', format, uris }, localContext(root, ['id', 'name']));
      const shards = await source.plan({ ...PLAN, target });
      assert.equal(shards.length, 2, format);
      assert.deepEqual(await readAll(source), [[format === 'csv' ? '1' : 1, 'a']], format);
      const schema = await source.schema();
      assert.deepEqual(schema.columns.map((c) => c.name), ['id', 'name'], format);
      // A file that has a record but not the NOT NULL column is still refused at plan time.
      writeFileSync(join(dir, 'in', `e-2.${format}`), format === 'csv' ? 'name\nb\n' : '{"name": "b"}\n');
      const lacking = new FilesSource({ kind: 'files', format, uris: [...uris, `${root}/in/e-2.${format}`] }, localContext(root, ['id', 'name']));
      await assert.rejects(lacking.plan({ ...PLAN, target }), (e: Error & { column?: string }) => e.column === 'id' && /e-2\.\w+ has no column id, which is NOT NULL/.test(e.message), format);
      // Only empty files: no record to take a schema from, said so.
      const empty = new FilesSource({ kind: 'files', format, uris: [uris[0] as string] }, localContext(root, ['id', 'name']));
      await assert.rejects(empty.schema(), (e) => isTributaryError(e) && e.code === 'SOURCE_SPEC_INVALID' && /files are empty/.test(e.message), format);
    }
  });

  test('a missing file is refused with SOURCE_SPEC_INVALID (CSV and Parquet)', async () => {
    for (const format of ['csv', 'parquet'] as const) {
      // A shard that lists a file which is gone by the time it is read (planning refuses a missing file itself).
      const uri = `${root}/in/none.${format}`;
      const missing = new FilesSource({ kind: 'files', format, uris: [uri] }, localContext(root, ['id']));
      const read = async () => {
        for await (const batch of missing.open({ id: 'files-00000', spec: { files: [uri] } })) assert.fail(`read ${batch.rows.length} rows of a missing file`);
      };
      await assert.rejects(read(), (e) => isTributaryError(e) && e.code === 'SOURCE_SPEC_INVALID');
    }
  });

  test('planning refuses a URI no file matches, with the planner\'s own error', async () => {
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${root}/in/none.csv`] }, localContext(root, ['id']));
    await assert.rejects(source.plan(PLAN), /no source file matches/);
  });
});
