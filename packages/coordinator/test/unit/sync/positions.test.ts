/**
 * The fold of shards' source positions into snapshot properties: bounded whatever the shard count,
 * servers summarised by their lowest and highest position, the full list in an object when it
 * does not fit, and read back (loaded files, watermarks) as a later plan reads them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { errorFrom, isTributaryError } from '@tributary/errors';
import type { ShardReadPosition } from '@tributary/protocol';
import { tableErrors } from '@tributary/table';
import { INLINE_LIMIT, POSITIONS_PROPERTY, foldPositions, loadedFilesOf, positionsObjectKey, watermarkOf, watermarkProperty } from '../../../src/sync/positions.ts';

const order = (file: number, offset: number) => `mysql-bin.${String(file).padStart(6, '0')}:${String(offset).padStart(20, '0')}`;
const binlog = (host: string, file: number, offset: number): ShardReadPosition => ({
  server: { id: host, log: { file: `mysql-bin.${String(file).padStart(6, '0')}`, offset }, order: order(file, offset) },
});

test('no position (the generator): no property', () => {
  assert.deepEqual(foldPositions('s', [{ id: 'a', readPosition: undefined }]), { properties: {} });
});

test('10,000 MySQL shards over 4 hosts: per host the shard count and the lowest and highest position, inline', () => {
  const shards = Array.from({ length: 10_000 }, (_, i) => ({ id: `db${i}.t`, readPosition: binlog(`h${i % 4}:3306`, 1 + (i % 7), 1000 + i) }));
  const folded = foldPositions('sync-1', shards);
  assert.equal(folded.object, undefined);
  const text = folded.properties[POSITIONS_PROPERTY] ?? '';
  assert.ok(Buffer.byteLength(text) < 2000, `${Buffer.byteLength(text)} bytes`);
  const parsed = JSON.parse(text) as { shards: number; servers: Record<string, { shards: number; lowest: unknown; highest: unknown }> };
  assert.equal(parsed.shards, 10_000);
  assert.deepEqual(Object.keys(parsed.servers), ['h0:3306', 'h1:3306', 'h2:3306', 'h3:3306']);
  // Host 0 has shards i = 0, 4, 8, … at file 1 + (i mod 7): the lowest is file 1 at i = 0; the highest
  // file 7 at the largest i with i mod 4 = 0 and i mod 7 = 6, which is 9988.
  assert.deepEqual(parsed.servers['h0:3306'], { shards: 2500, lowest: { file: 'mysql-bin.000001', offset: 1000 }, highest: { file: 'mysql-bin.000007', offset: 1000 + 9988 } });
});

test('more servers than the summary holds: a count inline, every position in the object', () => {
  const shards = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, readPosition: binlog(`h${i}:3306`, 1, i) }));
  const folded = foldPositions('sync-2', shards);
  const parsed = JSON.parse(folded.properties[POSITIONS_PROPERTY] ?? '') as { serverCount: number; servers?: unknown; object: string; objectSha256: string };
  assert.equal(parsed.serverCount, 100);
  assert.equal(parsed.servers, undefined);
  assert.equal(parsed.object, positionsObjectKey('sync-2'));
  assert.ok(folded.object);
  assert.equal(createHash('sha256').update(folded.object.bytes).digest('hex'), parsed.objectSha256);
});

test('files: inline while small, else in the object; loadedFilesOf reads either and checks the object\'s SHA-256', async () => {
  const file = (i: number) => ({ uri: `s3://b/in/file-${i}.csv`, size: i, etag: `e${i}` });
  const small = foldPositions('s', [{ id: 'f0', readPosition: { files: [file(1), file(2)] } }]);
  assert.equal(small.object, undefined);
  assert.deepEqual(await loadedFilesOf(small.properties, () => Promise.reject(new Error('no object expected'))), [
    ['s3://b/in/file-1.csv', 'e1'],
    ['s3://b/in/file-2.csv', 'e2'],
  ]);

  const shards = Array.from({ length: 50 }, (_, s) => ({ id: `files-${s}`, readPosition: { files: Array.from({ length: 20 }, (_, k) => file(s * 20 + k)) } }));
  const big = foldPositions('s', shards);
  const text = big.properties[POSITIONS_PROPERTY] ?? '';
  assert.ok(Buffer.byteLength(text) <= INLINE_LIMIT);
  assert.deepEqual(JSON.parse(text).files, { count: 1000, bytes: (999 * 1000) / 2 });
  assert.ok(big.object);
  const bytes = big.object.bytes;
  const loaded = await loadedFilesOf(big.properties, (key) => (key === positionsObjectKey('s') ? Promise.resolve(bytes) : Promise.reject(new Error(key))));
  assert.deepEqual(new Set(loaded.map(([uri, etag]) => `${uri} ${etag}`)), new Set(Array.from({ length: 1000 }, (_, i) => `s3://b/in/file-${i}.csv e${i}`)));
  const changed = Uint8Array.from(bytes);
  changed[10] = (changed[10] ?? 0) ^ 1;
  await assert.rejects(loadedFilesOf(big.properties, () => Promise.resolve(changed)), (e: unknown) => isTributaryError(e) && e.code === 'SYNC_HISTORY_UNREADABLE' && /SHA-256/.test(e.message));
});

test('a watermark is read back only for its source and column', () => {
  const properties = { 'tributary.source-id': 'abc', 'tributary.watermark': watermarkProperty('updated_at', '2025-01-01 00:00:01.000') };
  assert.deepEqual(watermarkOf(properties, 'abc', 'updated_at'), { value: '2025-01-01 00:00:01.000' });
  assert.equal(watermarkOf(properties, 'other', 'updated_at'), undefined);
  assert.equal(watermarkOf(properties, 'abc', 'id'), undefined);
  assert.deepEqual(watermarkOf({ ...properties, 'tributary.watermark': watermarkProperty('id', null) }, 'abc', 'id'), { value: null });
});

test('a snapshot whose positions or watermark are not what Tributary writes is SYNC_HISTORY_UNREADABLE, never "nothing loaded"', async () => {
  const unreadable = (snapshotId: number) => (e: unknown) =>
    isTributaryError(e) && e.code === 'SYNC_HISTORY_UNREADABLE' && e.context['snapshotId'] === snapshotId && !e.message.includes('secret-cell');
  const noObject = () => Promise.reject(new Error('no object expected'));
  for (const text of ['not json', '"secret-cell"', '{"files": {"list": [["s3://b/x.csv"]]}}', '[]']) {
    await assert.rejects(loadedFilesOf({ [POSITIONS_PROPERTY]: text }, noObject, 7), unreadable(7), text);
  }
  const missing = { [POSITIONS_PROPERTY]: JSON.stringify({ files: { count: 1, bytes: 1 }, object: 'k', objectSha256: 'a'.repeat(64) }) };
  const notFound = () => Promise.reject(errorFrom(tableErrors, 'OBJECT_NOT_FOUND', 'no object at k'));
  await assert.rejects(loadedFilesOf(missing, notFound, 8), unreadable(8), 'the object gone');
  const bytes = new TextEncoder().encode('{"shards": 1}');
  const notPositions = { [POSITIONS_PROPERTY]: JSON.stringify({ files: { count: 1, bytes: 1 }, object: 'k', objectSha256: createHash('sha256').update(bytes).digest('hex') }) };
  await assert.rejects(loadedFilesOf(notPositions, () => Promise.resolve(bytes), 9), unreadable(9), 'an object of another shape');
  for (const text of ['not json', '{"column": 3}']) {
    assert.throws(() => watermarkOf({ 'tributary.source-id': 'abc', 'tributary.watermark': text }, 'abc', 'id', 5), unreadable(5), text);
    assert.equal(watermarkOf({ 'tributary.source-id': 'other', 'tributary.watermark': text }, 'abc', 'id', 5), undefined, 'another source’s snapshot is not read');
  }
});
