/**
 * A file rewritten after the plan listed it is never read as a mix of versions: a shard reads the version listed or fails with SOURCE_FILE_CHANGED naming the file and no
 * cell; the read position it gives is that version. On a local disk (size and modification time
 * checked around every read) and on MinIO (every ranged GET sends If-Match).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { openObjectStore, S3ObjectStore } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { loadSourceAccess } from '../../src/access.ts';
import { FilesSource } from '../../src/files/source.ts';
import type { SourceContext, SourceRow } from '../../src/source.ts';
import { PLAN, localContext } from '../support/contexts.ts';

const dir = mkdtempSync(join(tmpdir(), 'files-pinned-'));
const root = pathToFileURL(dir).href;
after(() => rmSync(dir, { recursive: true, force: true }));

/** A CSV of `rows` rows whose every cell holds `tag` (a cell value no error may show), over 1 MiB for 20,000 rows. */
function csv(tag: string, rows: number): string {
  let text = 'id,s\n';
  for (let i = 0; i < rows; i++) text += `${i},${tag}${'x'.repeat(60)}\n`;
  return text;
}

const changed = (uri: string) => (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_FILE_CHANGED' && !e.retryable && e.context.file === uri && !e.message.includes('SECRET');

/** Reads the shards, calling `between` once after the first batch. */
async function readAll(source: FilesSource, between: () => Promise<void> | void = () => undefined): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  let first = true;
  for (const shard of await source.plan(PLAN)) {
    for await (const batch of source.open(shard)) {
      rows.push(...batch.rows);
      if (first) await between();
      first = false;
    }
  }
  return rows;
}

describe('a local file rewritten after it was listed', () => {
  test('rewritten between the plan and the read: SOURCE_FILE_CHANGED before any row', async () => {
    writeFileSync(join(dir, 'a.csv'), 'id,s\n1,SECRET-A\n');
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${root}/a.csv`] }, localContext(root, ['id', 's']));
    const [shard] = await source.plan(PLAN);
    assert.ok(shard !== undefined);
    writeFileSync(join(dir, 'a.csv'), 'id,s\n1,SECRET-B\n2,SECRET-B\n');
    const rows: SourceRow[] = [];
    await assert.rejects(async () => {
      for await (const batch of source.open(shard)) rows.push(...batch.rows);
    }, changed(`${root}/a.csv`));
    assert.deepEqual(rows, []);
  });

  test('rewritten in place, same size, while its shard reads it: SOURCE_FILE_CHANGED, never the new rows', async () => {
    const path = join(dir, 'big.csv');
    writeFileSync(path, csv('SECRET-A', 40_000));
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${root}/big.csv`] }, localContext(root, ['id', 's']));
    const rows: SourceRow[] = [];
    await assert.rejects(
      async () => {
        for (const shard of await source.plan(PLAN)) {
          for await (const batch of source.open(shard)) {
            rows.push(...batch.rows);
            if (rows.length === batch.rows.length) writeFileSync(path, csv('SECRET-B', 40_000)); // the same size
          }
        }
      },
      changed(`${root}/big.csv`),
    );
    assert.ok(rows.length > 0 && rows.every((r) => String(r[1]).startsWith('SECRET-A')), 'only rows of the listed version');
  });

  test('a file of a multi-file shard rewritten while another is read: the shard fails (the position would name the old version)', async () => {
    writeFileSync(join(dir, 'm-1.csv'), csv('SECRET-A', 30_000));
    writeFileSync(join(dir, 'm-2.csv'), 'id,s\n1000001,v1\n');
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${root}/m-*`], filesPerShard: 2 }, localContext(root, ['id', 's']));
    await assert.rejects(
      readAll(source, () => writeFileSync(join(dir, 'm-2.csv'), 'id,s\n1000001,v2\n')),
      changed(`${root}/m-2.csv`),
    );
  });

  test('unchanged: the read position is the version the plan listed', async () => {
    writeFileSync(join(dir, 'same.ndjson'), '{"id": 1}\n');
    const source = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${root}/same.ndjson`] }, localContext(root, ['id']));
    const [shard] = await source.plan(PLAN);
    assert.ok(shard !== undefined);
    const s = statSync(join(dir, 'same.ndjson'), { bigint: true });
    const version = { size: 10, etag: `W/${s.size}-${s.mtimeNs}` };
    assert.deepEqual(shard.spec, { files: [`${root}/same.ndjson`], versions: [version] });
    for await (const batch of source.open(shard)) assert.deepEqual(batch.readPosition, { files: [{ uri: `${root}/same.ndjson`, ...version }] });
  });
});

describe('an S3 file rewritten after it was listed (MinIO)', () => {
  const prefix = uniqueName('pinned');
  const sourceRoot = `s3://${services.s3.bucket}/${prefix}`;
  const store = openObjectStore(sourceRoot, services.s3);
  after(() => store.close());
  const context: SourceContext = {
    openStore: () => store,
    columns: ['id', 's'],
    access: loadSourceAccess({ env: { TRIBUTARY_SOURCE_ROOTS: sourceRoot }, readText: (path) => readFileSync(path, 'utf8'), realpath }),
  };
  const put = (key: string, text: string): Promise<void> => store.put(key, new TextEncoder().encode(text));

  test('a ranged GET pinned to an ETag fails with OBJECT_CHANGED once the object is rewritten', async () => {
    assert.ok(store instanceof S3ObjectStore);
    await put('g.csv', 'id,s\n1,SECRET-A\n');
    const etag = (await store.stat('g.csv'))?.etag ?? '';
    assert.deepEqual(new TextDecoder().decode(await store.getRange('g.csv', 0, 4, { ifMatch: etag })), 'id,s');
    await put('g.csv', 'id,s\n1,SECRET-B\n');
    await assert.rejects(store.getRange('g.csv', 0, 4, { ifMatch: etag }), (e) => isTributaryError(e) && e.code === 'OBJECT_CHANGED' && !e.retryable);
  });

  test('rewritten with the same size while its shard reads it: SOURCE_FILE_CHANGED, never the new rows', async () => {
    await put('big.csv', csv('SECRET-A', 40_000));
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${sourceRoot}/big.csv`] }, context);
    const rows: SourceRow[] = [];
    await assert.rejects(
      async () => {
        for (const shard of await source.plan(PLAN)) {
          for await (const batch of source.open(shard)) {
            if (rows.length === 0) await put('big.csv', csv('SECRET-B', 40_000));
            rows.push(...batch.rows);
          }
        }
      },
      changed(`${sourceRoot}/big.csv`),
    );
    assert.ok(rows.length > 0 && rows.every((r) => String(r[1]).startsWith('SECRET-A')), 'only rows of the listed version');
  });

  test('an NDJSON file rewritten between the plan and the read fails the same way, before any row', async () => {
    await put('n.ndjson', '{"id": 1, "s": "SECRET-A"}\n');
    const source = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${sourceRoot}/n.ndjson`] }, context);
    const [shard] = await source.plan(PLAN);
    assert.ok(shard !== undefined);
    await put('n.ndjson', '{"id": 2, "s": "SECRET-B"}\n');
    await assert.rejects(async () => {
      for await (const batch of source.open(shard)) assert.fail(`a batch of ${batch.rows.length} rows was read`);
    }, changed(`${sourceRoot}/n.ndjson`));
  });
});
