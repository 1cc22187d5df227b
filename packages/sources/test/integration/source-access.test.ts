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
import { isTributaryError } from '@tributary/protocol';
import { loadSourceAccess } from '../../src/access.ts';
import { credentialedStores, openObjectStore } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { openSource } from '../../src/registry.ts';
import type { SourceRow } from '../../src/source.ts';

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

  test('an S3 connection named by the source is the worker’s own: its key is used, a wrong one is refused by S3', async () => {
    const sourceRoot = `s3://${services.s3.bucket}/${uniqueName('w-access')}`;
    await openObjectStore(sourceRoot, services.s3).put('a.ndjson', new TextEncoder().encode('{"id": 5}\n'));
    writeFileSync(join(dir, 'right.key'), services.s3.secretAccessKey);
    writeFileSync(join(dir, 'wrong.key'), 'wrong-key');
    const connection = (file: string) => ({ kind: 's3', endpoint: services.s3.endpoint, region: services.s3.region, accessKeyId: services.s3.accessKeyId, secretAccessKeyFile: join(dir, file) });
    writeFileSync(join(dir, 'connections.json'), JSON.stringify({ connections: { right: connection('right.key'), wrong: connection('wrong.key') }, sourceRoots: [sourceRoot] }));
    const s3Access = loadSourceAccess({ env: { TRIBUTARY_CONNECTIONS_FILE: join(dir, 'connections.json') }, readText: (path) => readFileSync(path, 'utf8'), realpath });
    const stores = credentialedStores();
    // The process's own store has no credentials at all: only the connection's key can read.
    const readWith = async (name: string) => {
      const spec = { kind: 'files', format: 'ndjson', uris: ['ignored'], connection: name };
      const source = openSource(spec, { openStore: (r) => openObjectStore(r, { endpoint: services.s3.endpoint, accessKeyId: 'none', secretAccessKey: 'none' }), openCredentialedStore: stores, columns: ['id'], access: s3Access });
      const rows: SourceRow[] = [];
      for await (const batch of source.open({ id: 'files-00000', spec: { files: [`${sourceRoot}/a.ndjson`] } })) rows.push(...batch.rows);
      return rows;
    };
    assert.deepEqual(await readWith('right'), [[5]]);
    await assert.rejects(readWith('wrong'), (e) => isTributaryError(e) && e.code === 'STORAGE_ACCESS_DENIED' && !e.message.includes('wrong-key'));
    await assert.rejects(readWith('nope'), (e) => isTributaryError(e) && e.code === 'SOURCE_CONNECTION_UNKNOWN');
  });
});
