/**
 * loadShardBlob against the shard's vote token and its accepted vote (sync/staging.ts), one defect
 * at a time, on a local-disk staging area: each is refused with its own code and field.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { crc32c } from '@node-rs/crc32';
import {
  PAIMON_COMMIT_MESSAGE_VERSION,
  encodeBlob,
  isTributaryError,
  planFingerprint,
  shardVoteToken,
  stagedBlobKey,
  type ShardVote,
} from '@tributary/protocol';
import { openObjectStore } from '@tributary/table';
import { loadShardBlob, type ShardTrust } from '../../../src/sync/staging.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const secret = new TextEncoder().encode('thirty-two bytes of cluster secret!!');
const plan = testPlan('tributary-sync-v', { options: { maxAttempts: 1 } });
const record = newSyncRecord('sync-v', plan, new Date(0).toISOString());
const token = shardVoteToken(secret, record.id, 'shard-0', planFingerprint(plan, 'file:///warehouse'));
const store = openObjectStore(pathToFileURL(mkdtempSync(join(tmpdir(), 'staging-vote-'))).href);

const blob = encodeBlob(
  {
    syncId: record.id,
    shardId: 'shard-0',
    attempt: 1,
    tablePath: 'db.db/orders',
    schemaId: 0n,
    paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
    tributaryVersion: '0.1.0',
    creationTimeMillis: 0n,
    rowCount: 10n,
    byteCount: 100n,
    fileCount: 0n,
    voteToken: token,
  },
  [],
);
const vote: ShardVote = { attemptId: '1', checksum: crc32c(blob), sha256: createHash('sha256').update(blob).digest('hex'), rows: 10, bytes: 100 };
await store.put(stagedBlobKey(record.id, 'shard-0', '1'), blob);

function trust(recorded: ShardVote | undefined, voteToken = token): ShardTrust {
  return { voteToken: () => voteToken, vote: () => Promise.resolve(recorded) };
}

const load = (t: ShardTrust) => loadShardBlob(store, record, 'db.db/orders', 'shard-0', '1', t);

test('the voted blob with its token loads', async () => {
  const loaded = await load(trust(vote));
  assert.deepEqual(loaded.attempt, { attemptId: '1', blobKey: stagedBlobKey(record.id, 'shard-0', '1'), checksum: vote.checksum, rows: 10, bytes: 100 });
});

test('another token, no vote, a vote of another attempt, or any voted value that differs: refused', async () => {
  const refused = async (t: ShardTrust, code: string, field?: string) =>
    assert.rejects(load(t), (e: unknown) => isTributaryError(e) && e.code === code && (field === undefined || e.context.field === field), `${code} ${field ?? ''}`);
  await refused(trust(vote, new Uint8Array(32)), 'BLOB_VOTE_TOKEN_INVALID');
  await refused(trust(undefined), 'SYNC_VOTE_MISMATCH', 'vote');
  await refused(trust({ ...vote, attemptId: '2' }), 'SYNC_VOTE_MISMATCH', 'vote');
  await refused(trust({ ...vote, checksum: vote.checksum ^ 1 }), 'SYNC_VOTE_MISMATCH', 'checksum');
  await refused(trust({ ...vote, rows: 11 }), 'SYNC_VOTE_MISMATCH', 'rows');
  await refused(trust({ ...vote, bytes: 101 }), 'SYNC_VOTE_MISMATCH', 'bytes');
  // A CRC32C is easy to match on purpose; the SHA-256 is not.
  await refused(trust({ ...vote, sha256: '0'.repeat(64) }), 'SYNC_VOTE_MISMATCH', 'sha256');
});
