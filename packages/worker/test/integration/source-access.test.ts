/**
 * The worker checks a job against its own configuration, whatever the job says: a files shard that
 * lists a file outside the roots (directly, by `..` or through a symlink) is refused before
 * anything is read; a file under a root is read.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isTributaryError, loadSourceAccess } from '@tributary/protocol';
import { openObjectStore } from '@tributary/table';
import { openSource } from '../../src/sources/open-source.ts';
import type { SourceRow } from '../../src/sources/source.ts';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tributary-access-')));
after(() => rmSync(dir, { recursive: true, force: true }));
const root = join(dir, 'root');
mkdirSync(root);
writeFileSync(join(root, 'a.ndjson'), '{"id": 1}\n');
writeFileSync(join(dir, 'outside.ndjson'), '{"id": 666}\n');
symlinkSync(join(dir, 'outside.ndjson'), join(root, 'link.ndjson'));

const access = loadSourceAccess({ env: { TRIBUTARY_SOURCE_ROOTS: `file://${root}` }, readText: (path) => readFileSync(path, 'utf8'), realpath });

async function read(files: string[]): Promise<SourceRow[]> {
  const source = openSource({ kind: 'files', format: 'ndjson', uris: ['ignored: the shard lists the files'] }, { openStore: (r) => openObjectStore(r), columns: ['id'], access });
  const rows: SourceRow[] = [];
  for await (const batch of source.open({ id: 'files-00000', spec: { files } })) rows.push(...batch.rows);
  return rows;
}

describe('worker: a job is checked against the worker’s source roots', () => {
  test('files outside the roots are refused before they are read; files under a root are read', async () => {
    for (const uri of [`file://${dir}/outside.ndjson`, `file://${root}/../outside.ndjson`, `file://${root}/link.ndjson`, 'file:///etc/passwd']) {
      await assert.rejects(read([`file://${root}/a.ndjson`, uri]), (e) => isTributaryError(e) && e.code === 'SOURCE_NOT_ALLOWED' && e.context.index === 1, uri);
    }
    assert.deepEqual(await read([`file://${root}/a.ndjson`]), [[1]]);
  });
});
