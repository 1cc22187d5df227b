import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { FilesSource } from '../../src/files/source.ts';
import type { SourceRow } from '../../src/source.ts';
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
    const source = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${root}/in/p-*`], filesPerShard: 2 }, localContext(root, ['id', 'name']));
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
