/**
 * A files shard's read position (local files): every file of the shard with its size and ETag,
 * given on every batch and, for a shard without rows, on one batch without rows; newFilesOnly
 * leaves out the files the history lists by URI and ETag, and a rewritten file comes back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { FilesSource, loadedFileKey } from '../../src/files/source.ts';
import type { PlanContext } from '../../src/source.ts';
import { PLAN, localContext } from '../support/contexts.ts';

const dir = mkdtempSync(join(tmpdir(), 'files-positions-'));
const root = pathToFileURL(dir).href;
after(() => rmSync(dir, { recursive: true, force: true }));

const etagOf = (name: string): string => {
  const s = statSync(join(dir, name), { bigint: true });
  return `W/${s.size}-${s.mtimeNs}`;
};

test('every batch carries the shard\'s files with their sizes and ETags; an empty shard still gives them', async () => {
  writeFileSync(join(dir, 'a.ndjson'), '{"id":1}\n{"id":2}\n');
  writeFileSync(join(dir, 'empty.ndjson'), '');
  const source = new FilesSource({ kind: 'files', format: 'ndjson', uris: [`${root}/a.ndjson`, `${root}/empty.ndjson`] }, localContext(root, ['id']));
  const shards = await source.plan(PLAN);
  assert.equal(shards.length, 2);
  const batches = [];
  for (const shard of shards) for await (const batch of source.open(shard)) batches.push(batch);
  assert.deepEqual(batches.map((b) => [b.rows.length, b.readPosition]), [
    [2, { files: [{ uri: `${root}/a.ndjson`, size: 18, etag: etagOf('a.ndjson') }] }],
    [0, { files: [{ uri: `${root}/empty.ndjson`, size: 0, etag: etagOf('empty.ndjson') }] }],
  ]);
});

test('newFilesOnly plans only files the history does not list by URI and ETag', async () => {
  writeFileSync(join(dir, 'n-1.ndjson'), '{"id":1}\n');
  writeFileSync(join(dir, 'n-2.ndjson'), '{"id":2}\n');
  const spec = { kind: 'files', format: 'ndjson', uris: [`${root}/n-*`], newFilesOnly: true };
  const source = new FilesSource(spec, localContext(root, ['id']));
  const loaded = new Set([loadedFileKey(`${root}/n-1.ndjson`, etagOf('n-1.ndjson'))]);
  const ctx: PlanContext = { ...PLAN, history: { ...PLAN.history, loadedFiles: () => Promise.resolve(loaded) } };
  assert.deepEqual((await source.plan(ctx)).map((s) => s.spec.files), [[`${root}/n-2.ndjson`]]);
  loaded.add(loadedFileKey(`${root}/n-2.ndjson`, etagOf('n-2.ndjson')));
  await assert.rejects(source.plan(ctx), /already loaded/);
  // Rewritten (another size, so another tag): loaded again.
  writeFileSync(join(dir, 'n-1.ndjson'), '{"id":1}\n{"id":3}\n');
  assert.deepEqual((await source.plan(ctx)).map((s) => s.spec.files), [[`${root}/n-1.ndjson`]]);
});
