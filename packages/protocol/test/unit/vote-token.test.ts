/**
 * Vote tokens (src/vote-token.ts) and where envelope version 2 carries them: the fingerprint
 * follows the plan and nothing else, the token follows the secret, sync, shard and plan, the
 * decoders refuse a blob without its shard's token, and a version 1 blob cannot carry one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import {
  clusterSecretFromEnv,
  decodeBlob,
  decodeBlobStream,
  decodeVoteToken,
  encodeBlob,
  encodeVoteToken,
  isTributaryError,
  checkPlanSeal,
  planFingerprint,
  planSeal,
  sealedShardEntry,
  shardVoteToken,
  syncPlanBasics,
  syncPlanFingerprint,
  verifiedSyncPlanHead,
  type PlanFingerprintInput,
} from '@tributary/protocol';
import { expectationOf, sampleHeader } from '../support/samples.ts';
import { chunked, goldenVectors } from '../support/vectors.ts';

const code = (c: string) => (e: unknown) => isTributaryError(e) && e.code === c;

const plan: PlanFingerprintInput = {
  table: { database: 'shop', table: 'orders' },
  source: { kind: 'generator', seed: 1, shards: 2, rowsPerShard: 10, batchRows: 10 },
  shards: [
    { id: 'shard-00000', spec: { index: 0, count: 2 } },
    { id: 'shard-00001', spec: { index: 1, count: 2 } },
  ],
  baseSnapshotId: null,
  schemaId: 0,
  commitUser: 'tributary-sync-1',
  commitIdentifier: '9223372036854775807',
  mode: 'upsert',
  options: { snapshotProperties: { origin: 'nightly' } },
};
const warehouse = 's3://bucket/warehouse';
const secret = new TextEncoder().encode('a cluster secret of at least thirty-two bytes');

test('the plan fingerprint ignores key order and follows every planned value', () => {
  const fingerprint = planFingerprint(plan, warehouse);
  assert.match(fingerprint, /^[0-9a-f]{64}$/);
  const reordered: PlanFingerprintInput = {
    commitIdentifier: plan.commitIdentifier,
    commitUser: plan.commitUser,
    schemaId: plan.schemaId,
    baseSnapshotId: plan.baseSnapshotId,
    shards: plan.shards.map((s) => ({ spec: { count: s.spec.count, index: s.spec.index }, id: s.id })),
    source: { batchRows: 10, rowsPerShard: 10, shards: 2, seed: 1, kind: 'generator' },
    table: { table: 'orders', database: 'shop' },
    options: { snapshotProperties: { origin: 'nightly' } },
    mode: 'upsert',
  };
  assert.equal(planFingerprint(reordered, warehouse), fingerprint);
  const changed: PlanFingerprintInput[] = [
    { ...plan, source: { ...plan.source, rowsPerShard: 11 } },
    { ...plan, shards: [plan.shards[0]!, { id: 'shard-00001', spec: { index: 1, count: 3 } }] },
    { ...plan, shards: [plan.shards[0]!] },
    { ...plan, baseSnapshotId: 1 },
    { ...plan, schemaId: 1 },
    { ...plan, table: { database: 'shop', table: 'other' } },
    { ...plan, mode: 'overwrite' },
    { ...plan, options: { snapshotProperties: { origin: 'other' } } },
    { ...plan, commitIdentifier: '1' },
    { ...plan, schemaSha256: 'a'.repeat(64) },
    { ...plan, options: { ...plan.options, badRows: 'reject' } },
    { ...plan, options: { ...plan.options, layout: 'bucketed' } },
    { ...plan, options: { ...plan.options, deletes: { fullExtract: { partition: {} } } } },
  ];
  for (const other of changed) assert.notEqual(planFingerprint(other, warehouse), fingerprint, JSON.stringify(other));
  assert.notEqual(planFingerprint(plan, 's3://bucket/other'), fingerprint, 'the warehouse');
});

test('a worker recomputes the fingerprint from the head it reads: a head changed with its stored fingerprint kept is refused', () => {
  const basics = syncPlanBasics(plan, warehouse);
  const fingerprint = syncPlanFingerprint(basics);
  const head = { ...basics, fingerprint };
  assert.equal(verifiedSyncPlanHead('sync-1', JSON.stringify(head)).fingerprint, fingerprint);
  assert.equal(fingerprint, planFingerprint(plan, warehouse), 'the coordinator computes the same from its record');
  const altered = [
    { ...head, source: { ...head.source, rowsPerShard: 5000, seed: 999 } },
    { ...head, warehouse: 's3://bucket/elsewhere' },
    { ...head, deletes: { fullExtract: { partition: {} } } },
    { ...head, shards: { ...head.shards, count: 1 } },
    { ...head, fingerprint: undefined },
  ];
  for (const a of altered) assert.throws(() => verifiedSyncPlanHead('sync-1', JSON.stringify(a)), code('SYNC_PLAN_ALTERED'), JSON.stringify(a));
});

test('a shard entry carries a seal bound to the sync, its field, the fingerprint and its slot and spec', () => {
  const fingerprint = planFingerprint(plan, warehouse);
  const { seal, ...body } = sealedShardEntry(secret, 'sync-1', 'shard:shard-00000', fingerprint, 0, { index: 0, count: 2 });
  checkPlanSeal(secret, 'sync-1', 'shard:shard-00000', fingerprint, body, seal);
  const refused: [string, string, string, unknown][] = [
    ['sync-2', 'shard:shard-00000', fingerprint, body],
    ['sync-1', 'shard:shard-00001', fingerprint, body],
    ['sync-1', 'shard:shard-00000', planFingerprint({ ...plan, schemaId: 1 }, warehouse), body],
    ['sync-1', 'shard:shard-00000', fingerprint, { ...body, slot: 1 }],
    ['sync-1', 'shard:shard-00000', fingerprint, { ...body, spec: { index: 0, count: 2, rows: 5000 } }],
  ];
  for (const [sync, field, fp, value] of refused) assert.throws(() => checkPlanSeal(secret, sync, field, fp, value, seal), code('SYNC_PLAN_ALTERED'));
  assert.equal(planSeal(secret, 'sync-1', 'positions', fingerprint, { a: '1', b: '2' }), planSeal(secret, 'sync-1', 'positions', fingerprint, { b: '2', a: '1' }), 'key order does not matter');
});

test('a shard token follows the secret, the sync, the shard and the fingerprint', () => {
  const fingerprint = planFingerprint(plan, warehouse);
  const token = shardVoteToken(secret, 'sync-1', 'shard-00000', fingerprint);
  assert.equal(token.length, 32);
  assert.deepEqual(decodeVoteToken(encodeVoteToken(token)), token);
  assert.match(encodeVoteToken(token), /^[A-Za-z0-9_-]{43}$/);
  const others = [
    shardVoteToken(new TextEncoder().encode('another cluster secret, also thirty-two bytes'), 'sync-1', 'shard-00000', fingerprint),
    shardVoteToken(secret, 'sync-2', 'shard-00000', fingerprint),
    shardVoteToken(secret, 'sync-1', 'shard-00001', fingerprint),
    shardVoteToken(secret, 'sync-1', 'shard-00000', planFingerprint({ ...plan, schemaId: 1 }, warehouse)),
  ];
  for (const other of others) assert.notDeepEqual(other, token);
});

test('a blob without its shard\'s token is refused by both decoders, and the error does not show a token', async () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, []);
  const wrong = { ...expectationOf(header), voteToken: new Uint8Array(32).fill(9) };
  assert.throws(() => decodeBlob(blob, wrong), (e: unknown) => code('BLOB_VOTE_TOKEN_INVALID')(e) && !JSON.stringify(e).includes(encodeVoteToken(wrong.voteToken)));
  await assert.rejects(decodeBlobStream(chunked(blob), wrong), code('BLOB_VOTE_TOKEN_INVALID'));
  // A version 1 blob has no token: readable, but not where a token is expected.
  const v1 = goldenVectors(1).find((g) => g.name === 'no-messages')!;
  assert.equal(decodeBlob(v1.blob, expectationOf(v1.header)).header.voteToken, undefined);
  assert.throws(() => decodeBlob(v1.blob, { ...expectationOf(v1.header), voteToken: header.voteToken! }), code('BLOB_VOTE_TOKEN_INVALID'));
});

test('a version 1 blob that carries a vote token was not written by a version 1 encoder', () => {
  const v2 = encodeBlob(sampleHeader(), []);
  const forged = Uint8Array.from(v2);
  forged[5] = 1; // envelope version 2 → 1, same header bytes
  new DataView(forged.buffer).setUint32(forged.length - 4, crc32c(forged.subarray(0, forged.length - 4)), false);
  assert.throws(() => decodeBlob(forged, expectationOf(sampleHeader())), code('BLOB_HEADER_INVALID'));
});

test('the encoder refuses a header without a 32-byte vote token', () => {
  assert.throws(() => encodeBlob(sampleHeader({ voteToken: undefined }), []), code('BLOB_VALUE_OUT_OF_RANGE'));
  assert.throws(() => encodeBlob(sampleHeader({ voteToken: new Uint8Array(31) }), []), code('BLOB_VALUE_OUT_OF_RANGE'));
});

test('the cluster secret comes from exactly one of the value and the file, with at least 32 bytes', () => {
  const value = 'x'.repeat(32);
  const noFile = (): string => {
    throw new Error('no file');
  };
  assert.deepEqual(clusterSecretFromEnv({ TRIBUTARY_CLUSTER_SECRET: value }, noFile), new TextEncoder().encode(value));
  assert.deepEqual(clusterSecretFromEnv({ TRIBUTARY_CLUSTER_SECRET_FILE: '/s' }, () => `${value}\n`), new TextEncoder().encode(value));
  const refused = (env: Parameters<typeof clusterSecretFromEnv>[0], read: (path: string) => string = noFile) =>
    assert.throws(() => clusterSecretFromEnv(env, read), (e: unknown) => code('CLUSTER_SECRET_INVALID')(e) && !(e as Error).message.includes('short-secret'));
  refused({});
  refused({ TRIBUTARY_CLUSTER_SECRET: 'short-secret' });
  refused({ TRIBUTARY_CLUSTER_SECRET: value, TRIBUTARY_CLUSTER_SECRET_FILE: '/s' }, () => value);
  refused({ TRIBUTARY_CLUSTER_SECRET_FILE: '/missing' });
  refused({ TRIBUTARY_CLUSTER_SECRET_FILE: '/s' }, () => 'short-secret\n');
});
