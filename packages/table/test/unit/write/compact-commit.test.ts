import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTributaryError } from '@tributary/errors';
import { checkCommitConflicts, checkCompactFilesOnly, deltaEntries, deltaRecordCount, sameFiles, type PlanEntry, type PlanFile, type PlanMessage } from '../../../src/write/commit-plan.ts';
import { EMPTY_COMPACT_INCREMENT, dataFilesMessage, type CommitMessage } from '../../../src/spec/commit-message.ts';
import { SPARSE_FILE } from '../spec/manifest-fixtures.ts';

const P = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
const f = (fileName: string, rowCount = 10): PlanFile => ({ fileName, rowCount: BigInt(rowCount), maxSequenceNumber: 0n });
const compactMessage = (before: PlanFile[], after: PlanFile[]): PlanMessage => ({
  partition: P,
  bucket: 0,
  totalBuckets: 1,
  dataIncrement: { newFiles: [], deletedFiles: [], changelogFiles: [] },
  compactIncrement: { compactBefore: before, compactAfter: after },
});
const identify = (e: PlanEntry) => `${e.bucket}/${e.file.fileName}`;

test('a compaction message becomes DELETEs of compactBefore, then ADDs of compactAfter', () => {
  const entries = deltaEntries([compactMessage([f('a'), f('b')], [f('c', 15)])]);
  assert.deepEqual(entries.map((e) => `${e.kind} ${e.file.fileName}`), ['DELETE a', 'DELETE b', 'ADD c']);
  // Two retractions dropped: 20 rows rewritten into 15.
  assert.equal(deltaRecordCount(entries), -5n);
});

test('a compaction commits only while every file it rewrote is live', () => {
  const live: PlanEntry[] = ['a', 'b', 'x'].map((name) => ({ kind: 'ADD', partition: P, bucket: 0, totalBuckets: 1, file: f(name) }));
  const delta = deltaEntries([compactMessage([f('a'), f('b')], [f('c')])]);
  assert.doesNotThrow(() => checkCommitConflicts(live, delta, 'COMPACT', identify));
  // A load added x meanwhile: no matter. Another compaction removed b: conflict.
  const without = live.filter((e) => e.file.fileName !== 'b');
  assert.throws(() => checkCommitConflicts(without, delta, 'COMPACT', identify), (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_CONFLICT');
});

test('a retried compaction recognises its snapshot by the compactAfter files', () => {
  const message = compactMessage([f('a')], [f('c')]);
  assert.ok(sameFiles(deltaEntries([message]), [message]));
  assert.ok(!sameFiles(deltaEntries([compactMessage([f('a')], [f('d')])]), [message]));
});

test('a COMPACT commit takes compactBefore and compactAfter only', () => {
  const file = SPARSE_FILE;
  const ok: CommitMessage = { ...dataFilesMessage(P, 0, 1, {}), compactIncrement: { ...EMPTY_COMPACT_INCREMENT, compactBefore: [file], compactAfter: [] } };
  assert.doesNotThrow(() => checkCompactFilesOnly([ok]));
  const refused = (m: CommitMessage) => assert.throws(() => checkCompactFilesOnly([m]), (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_MESSAGE_UNSUPPORTED');
  refused(dataFilesMessage(P, 0, 1, { newFiles: [file] }));
  refused({ ...ok, dataIncrement: { ...ok.dataIncrement, newFiles: [file] } });
  refused({ ...ok, compactIncrement: { ...ok.compactIncrement, changelogFiles: [file] } });
  refused({ ...ok, compactIncrement: { ...ok.compactIncrement, compactBefore: [] } });
});
