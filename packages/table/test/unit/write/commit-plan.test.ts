import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_SEQUENCE_NUMBER,
  bucketsToRebase,
  checkCommitConflicts,
  checkDistinctPaths,
  deltaEntries,
  deltaRecordCount,
  maxSequenceNumbers,
  nextSnapshot,
  overwriteDeletes,
  sameFiles,
  checkDataFilesOnly,
  type CommitKind,
  type PlanEntry,
  type PlanFile,
  type PlanMessage,
  type SequencedFile,
} from '../../../src/write/commit-plan.ts';
import { bucketKey } from '../../../src/spec/binary-row.ts';
import { dataFilesMessage } from '../../../src/spec/commit-message.ts';
import { hasIdentity } from '../../../src/spec/snapshot.ts';
import { isTributaryError } from '@tributary/errors';
import { SPARSE_FILE } from '../spec/manifest-fixtures.ts';

const P1 = Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
const P2 = Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0);
const f = (fileName: string, rowCount = 10, maxSequenceNumber = 0): PlanFile => ({ fileName, rowCount: BigInt(rowCount), maxSequenceNumber: BigInt(maxSequenceNumber) });
const add = (name: string, partition = P1, bucket = 0, totalBuckets = 2, rows = 10): PlanEntry => ({ kind: 'ADD', partition, bucket, totalBuckets, file: f(name, rows) });
const del = (e: PlanEntry): PlanEntry => ({ ...e, kind: 'DELETE' });
/** A message of these files (the data increment: what the plan reads of a CommitMessage). */
function planMessage<F extends PlanFile>(
  partition: Uint8Array,
  bucket: number,
  totalBuckets: number,
  files: { newFiles?: F[]; deletedFiles?: F[]; changelogFiles?: F[] },
): PlanMessage<F> {
  return { partition, bucket, totalBuckets, dataIncrement: { newFiles: files.newFiles ?? [], deletedFiles: files.deletedFiles ?? [], changelogFiles: files.changelogFiles ?? [] } };
}
const identify = (e: PlanEntry): string => `${Buffer.from(e.partition).toString('hex')}|${e.bucket}|${e.file.fileName}`;

function conflictCode(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    assert.ok(isTributaryError(e), String(e));
    return e.code;
  }
}

test('checkCommitConflicts from a case table (ConflictDetection)', () => {
  const a = add('a');
  const b = add('b', P1, 1);
  const cases: { name: string; live: PlanEntry[]; delta: PlanEntry[]; kind?: CommitKind; want?: string }[] = [
    { name: 'pure append', live: [a], delta: [add('c')] },
    { name: 'delete a live file', live: [a, b], delta: [del(a)] },
    { name: 'delete a file someone else deleted', live: [b], delta: [del(a)], want: 'COMMIT_CONFLICT' },
    { name: 'delete twice in one delta', live: [a], delta: [del(a), del(a)], want: 'COMMIT_CONFLICT' },
    { name: 'add a file already in the table', live: [a], delta: [add('a')], want: 'COMMIT_CONFLICT' },
    { name: 'same name in another bucket is another file', live: [a], delta: [add('a', P1, 1)] },
    { name: 'total buckets change in a partition', live: [a], delta: [add('c', P1, 0, 4)], want: 'COMMIT_CONFLICT' },
    { name: 'total buckets differ across partitions', live: [a], delta: [add('c', P2, 0, 4)] },
    { name: 'bucket-unaware entries are not checked', live: [add('x', P1, 0, -1)], delta: [add('c', P1, 0, 2)] },
    { name: 'overwrite may rescale', live: [a], delta: [del(a), add('c', P1, 0, 4)], kind: 'OVERWRITE' },
    { name: 'rescale without deleting the old files', live: [a], delta: [add('c', P1, 0, 4)], kind: 'APPEND', want: 'COMMIT_CONFLICT' },
  ];
  for (const c of cases) {
    assert.equal(conflictCode(() => checkCommitConflicts(c.live, c.delta, c.kind ?? 'APPEND', identify)), c.want, c.name);
  }
});

test('checkDistinctPaths from a case table: one path, one file', () => {
  // P1 and P2 are distinct rows that share one directory (as NULL and '' share __DEFAULT_PARTITION__);
  // P3 has a directory of its own.
  const P3 = Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0);
  const directory = (p: Uint8Array) => (p[12] === 3 ? 'p=c/' : 'p=__DEFAULT_PARTITION__/');
  const locate = (e: PlanEntry) => `${directory(e.partition)}bucket-${e.bucket}/${e.file.fileName}`;
  const a = add('a');
  const level = (e: PlanEntry, l: number): PlanEntry => ({ ...e, file: { ...e.file, level: l } as PlanFile });
  const cases: { name: string; live: PlanEntry[]; added: PlanEntry[]; deleted?: PlanEntry[]; want?: string }[] = [
    { name: 'distinct names', live: [a], added: [add('b'), add('c', P2)] },
    { name: 'two added files, one path (two partitions, one directory)', live: [], added: [add('b'), add('b', P2)], want: 'COMMIT_PATH_DUPLICATE' },
    { name: 'two added files, one path (one partition)', live: [], added: [add('b'), add('b')], want: 'COMMIT_PATH_DUPLICATE' },
    { name: 'an added file at a live path of another partition', live: [a], added: [add('a', P2)], want: 'COMMIT_PATH_DUPLICATE' },
    { name: 'an added file at a live path, live file deleted, other partition', live: [a], added: [add('a', P2)], deleted: [del(a)], want: 'COMMIT_PATH_DUPLICATE' },
    { name: 'a level upgrade moves the live file (same partition row)', live: [a], added: [level(add('a'), 5)], deleted: [del(a)] },
    { name: 'an upgrade without deleting the old entry', live: [a], added: [level(add('a'), 5)], want: 'COMMIT_PATH_DUPLICATE' },
    { name: 'same name, another directory', live: [a], added: [add('a', P3)] },
    { name: 'same name, another bucket', live: [a], added: [add('a', P2, 1)] },
    { name: 'live files that share a path among themselves are not ours to refuse', live: [a, add('a', P2)], added: [add('b')] },
  ];
  for (const c of cases) {
    assert.equal(conflictCode(() => checkDistinctPaths(c.live, c.added, c.deleted ?? [], locate)), c.want, c.name);
  }
});

test('sameFiles: the found snapshot added exactly the messages\' new files', () => {
  const msg = (partition: Uint8Array, bucket: number, ...names: string[]) => planMessage(partition, bucket, 2, { newFiles: names.map((n) => f(n)) });
  const cases: { name: string; delta: PlanEntry[]; messages: ReturnType<typeof msg>[]; want: boolean }[] = [
    { name: 'the same files (lost acknowledgement)', delta: [add('a'), add('b', P2, 1)], messages: [msg(P2, 1, 'b'), msg(P1, 0, 'a')], want: true },
    { name: 'deleted entries of the snapshot are not compared', delta: [add('a'), del(add('x'))], messages: [msg(P1, 0, 'a')], want: true },
    { name: 'nothing added, nothing to add', delta: [], messages: [], want: true },
    { name: 'other files (a reused identity)', delta: [add('a')], messages: [msg(P1, 0, 'b')], want: false },
    { name: 'one file more', delta: [add('a')], messages: [msg(P1, 0, 'a', 'b')], want: false },
    { name: 'one file less', delta: [add('a'), add('b')], messages: [msg(P1, 0, 'a')], want: false },
    { name: 'the same name in another partition', delta: [add('a')], messages: [msg(P2, 0, 'a')], want: false },
    { name: 'the same name in another bucket', delta: [add('a')], messages: [msg(P1, 1, 'a')], want: false },
    { name: 'a file twice against twice another', delta: [add('a'), add('a')], messages: [msg(P1, 0, 'a', 'b')], want: false },
  ];
  for (const c of cases) assert.equal(sameFiles(c.delta, c.messages), c.want, c.name);
});

test('overwriteDeletes deletes the live files of the given partitions only', () => {
  const live = [add('a', P1), add('b', P2), add('c', P1, 1)];
  const names = (es: PlanEntry[]) => es.map((e) => `${e.kind}:${e.file.fileName}`);
  assert.deepEqual(names(overwriteDeletes(live, [P1])), ['DELETE:a', 'DELETE:c']);
  assert.deepEqual(names(overwriteDeletes(live, [Uint8Array.from(P2)])), ['DELETE:b']);
  assert.deepEqual(names(overwriteDeletes(live, [])), []);
  assert.deepEqual(names(overwriteDeletes(live, undefined)), ['DELETE:a', 'DELETE:b', 'DELETE:c']);
  // the DELETE copies the live entry so its identity matches
  const [d] = overwriteDeletes(live, [P1]);
  assert.equal(d?.partition, live[0]?.partition);
});

test('deltaEntries and deltaRecordCount', () => {
  const msgs = [
    planMessage(P1, 0, 2, { newFiles: [f('n1', 5), f('n2', 7)], deletedFiles: [f('old', 3)] }),
    planMessage(P2, 1, 2, { newFiles: [f('n3', 1)] }),
  ];
  const delta = deltaEntries(msgs);
  assert.deepEqual(delta.map((e) => `${e.kind}:${e.file.fileName}:${e.bucket}`), ['ADD:n1:0', 'ADD:n2:0', 'DELETE:old:0', 'ADD:n3:1']);
  assert.equal(deltaRecordCount(delta), 5n + 7n - 3n + 1n);
  assert.equal(deltaRecordCount([]), 0n);
});

test('deltaRecordCount is the exact BigInt sum, across 2^53 and with number counts', () => {
  const reference = (delta: readonly PlanEntry[]) => delta.reduce((n, e) => n + (e.kind === 'ADD' ? BigInt(e.file.rowCount) : -BigInt(e.file.rowCount)), 0n);
  const big = 2n ** 53n;
  const count = fc.oneof(
    fc.bigInt({ min: 0n, max: 1000n }),
    fc.bigInt({ min: big - 3n, max: big + 3n }),
    fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  );
  const entry = fc.tuple(fc.constantFrom('ADD' as const, 'DELETE' as const), count).map(([kind, rows]): PlanEntry => ({ kind, partition: P1, bucket: 0, totalBuckets: 2, file: { fileName: 'f', rowCount: rows, maxSequenceNumber: 0n } }));
  fc.assert(fc.property(fc.array(entry, { maxLength: 12 }), (delta) => deltaRecordCount(delta) === reference(delta)), { numRuns: 3000 });
  // Partial sums that pass 2^53 - 1 and come back.
  const at = (kind: 'ADD' | 'DELETE', rows: bigint | number): PlanEntry => ({ kind, partition: P1, bucket: 0, totalBuckets: 2, file: { fileName: 'f', rowCount: rows, maxSequenceNumber: 0n } });
  assert.equal(deltaRecordCount([at('ADD', Number.MAX_SAFE_INTEGER), at('ADD', 2), at('DELETE', 5n)]), big - 1n + 2n - 5n);
  assert.equal(deltaRecordCount([at('DELETE', Number.MAX_SAFE_INTEGER), at('DELETE', 1n), at('ADD', 1n)]), -big + 1n);
  // A count that is no integer is refused, as BigInt refuses it.
  assert.throws(() => deltaRecordCount([at('ADD', 1.5), at('ADD', 1.5)]), RangeError);
});

test('maxSequenceNumbers per (partition, bucket)', () => {
  const e = (p: Uint8Array, bucket: number, seq: number): PlanEntry => ({ kind: 'ADD', partition: p, bucket, totalBuckets: 2, file: f(`s${seq}`, 1, seq) });
  const max = maxSequenceNumbers([e(P1, 0, 4), e(P1, 0, 9), e(P1, 1, 2), e(P2, 0, 7)]);
  assert.equal(max.get(bucketKey(P1, 0)), 9n);
  assert.equal(max.get(bucketKey(P1, 1)), 2n);
  assert.equal(max.get(bucketKey(P2, 0)), 7n);
  assert.equal(max.get(bucketKey(P2, 1)), undefined);
});

test('bucketsToRebase from a case table: rebase where live rows reach our sequence numbers', () => {
  const sf = (name: string, min: bigint, max: bigint): SequencedFile => ({ fileName: name, rowCount: max - min + 1n, minSequenceNumber: min, maxSequenceNumber: max });
  const live = (p: Uint8Array, bucket: number, max: bigint): PlanEntry => ({ kind: 'ADD', partition: p, bucket, totalBuckets: 2, file: sf('live', 0n, max) });
  const msg = (p: Uint8Array, bucket: number, ...files: SequencedFile[]) => planMessage(p, bucket, 2, { newFiles: files });
  const k = (p: Uint8Array, bucket: number) => bucketKey(p, bucket);
  const cases: { name: string; live: PlanEntry[]; messages: ReturnType<typeof msg>[]; want: [string, bigint][] }[] = [
    { name: 'empty table', live: [], messages: [msg(P1, 0, sf('a', 0n, 9n))], want: [] },
    { name: 'live rows below ours: our base is still the latest', live: [live(P1, 0, 9n)], messages: [msg(P1, 0, sf('a', 10n, 19n))], want: [] },
    { name: 'a concurrent commit from the same base', live: [live(P1, 0, 19n)], messages: [msg(P1, 0, sf('a', 10n, 19n))], want: [[k(P1, 0), 20n]] },
    { name: 'live max equals our min', live: [live(P1, 0, 10n)], messages: [msg(P1, 0, sf('a', 10n, 12n))], want: [[k(P1, 0), 11n]] },
    { name: 'other buckets and partitions do not count', live: [live(P1, 1, 99n), live(P2, 0, 99n)], messages: [msg(P1, 0, sf('a', 10n, 19n))], want: [] },
    {
      name: 'one start per bucket over all its messages (shards), from their smallest number',
      live: [live(P1, 0, 50n), live(P2, 1, 3n)],
      messages: [msg(P1, 0, sf('s0', 10n, 19n)), msg(P1, 0, sf('s1', 10n + 2n ** 32n, 12n + 2n ** 32n)), msg(P2, 1, sf('s0', 4n, 8n))],
      want: [[k(P1, 0), 51n]],
    },
    { name: 'a message without new files', live: [live(P1, 0, 50n)], messages: [msg(P1, 0)], want: [] },
  ];
  for (const c of cases) assert.deepEqual([...bucketsToRebase(c.live, c.messages)], c.want, c.name);
  // Shifting past Long.MAX_VALUE is refused.
  const near = [live(P1, 0, MAX_SEQUENCE_NUMBER - 5n)];
  assert.equal(conflictCode(() => bucketsToRebase(near, [msg(P1, 0, sf('a', 0n, 9n))])), 'SEQUENCE_RANGE_EXHAUSTED');
  assert.deepEqual([...bucketsToRebase(near, [msg(P1, 0, sf('a', 0n, 4n))])], [[k(P1, 0), MAX_SEQUENCE_NUMBER - 4n]]);
});

test('bucketsToRebase starts as the per-bucket maxima over every live ADD and our new files say, in first-seen order', () => {
  const sf = (min: bigint, max: bigint): SequencedFile => ({ fileName: 'f', rowCount: 1n, minSequenceNumber: min, maxSequenceNumber: max });
  // The rule written out with one bucket key per file and per live entry.
  const reference = (live: readonly PlanEntry[], messages: readonly PlanMessage<SequencedFile>[]): [string, bigint][] => {
    const ours = new Map<string, { min: bigint; max: bigint }>();
    for (const m of messages) {
      for (const file of m.dataIncrement.newFiles) {
        const key = bucketKey(m.partition, m.bucket);
        const seen = ours.get(key);
        const min = BigInt(file.minSequenceNumber);
        const max = BigInt(file.maxSequenceNumber);
        ours.set(key, seen === undefined ? { min, max } : { min: min < seen.min ? min : seen.min, max: max > seen.max ? max : seen.max });
      }
    }
    const liveMax = maxSequenceNumbers(live);
    return [...ours].flatMap(([key, range]): [string, bigint][] => {
      const max = liveMax.get(key);
      return max === undefined || max < range.min ? [] : [[key, max + 1n]];
    });
  };
  const seq = fc.bigInt({ min: 0n, max: 40n });
  const where = { partition: fc.constantFrom(P1, P2, Uint8Array.from(P2)), bucket: fc.integer({ min: 0, max: 2 }) };
  const liveEntry = fc.record({ kind: fc.constantFrom('ADD' as const, 'DELETE' as const), ...where, totalBuckets: fc.constant(2), file: seq.map((s) => sf(0n, s)) });
  const message = fc.record({ ...where, files: fc.array(fc.tuple(seq, seq).map(([a, b]) => (a <= b ? sf(a, b) : sf(b, a))), { maxLength: 3 }) })
    .map(({ partition, bucket, files }) => planMessage(partition, bucket, 2, { newFiles: files }));
  fc.assert(
    fc.property(fc.array(liveEntry, { maxLength: 8 }), fc.array(message, { maxLength: 8 }), (live, messages) => {
      assert.deepEqual([...bucketsToRebase(live, messages)], reference(live, messages));
    }),
    { numRuns: 2000 },
  );
});

test('hasIdentity needs both user and identifier', () => {
  const id = { commitUser: 'sync-1', commitIdentifier: 9223372036854775807n };
  assert.equal(hasIdentity({ commitUser: 'sync-1', commitIdentifier: 9223372036854775807n }, id), true);
  assert.equal(hasIdentity({ commitUser: 'sync-1', commitIdentifier: 9223372036854775806n }, id), false);
  assert.equal(hasIdentity({ commitUser: 'sync-2', commitIdentifier: 9223372036854775807n }, id), false);
});

test('nextSnapshot: ids, counts, carried fields and the watermark (tryCommitOnce)', () => {
  const parts = {
    uuid: 'u-1',
    timeMillis: 1700000000000,
    schemaId: 2,
    identity: { commitUser: 'sync-9', commitIdentifier: 9223372036854775807n },
    kind: 'APPEND' as const,
    base: { fileName: 'manifest-list-a-0', size: 100 },
    delta: { fileName: 'manifest-list-a-1', size: 90 },
    changelog: null,
    deltaEntries: [add('n', P1, 0, 2, 7), del(add('o', P1, 0, 2, 3))],
    changelogEntries: [],
  };
  const first = nextSnapshot(null, parts);
  assert.equal(first.id, 1n);
  assert.equal(first.version, 3);
  assert.equal(first.schemaId, 2n);
  assert.equal(first.totalRecordCount, 4n);
  assert.equal(first.deltaRecordCount, 4n);
  assert.equal(first.changelogRecordCount, null);
  assert.equal(first.changelogManifestList, null);
  assert.equal(first.watermark, null);
  assert.equal(first.nextRowId, 0n);
  assert.equal(first.commitIdentifier, 9223372036854775807n);
  assert.equal(first.timeMillis, 1700000000000n);
  const carried = { ...first, id: 41n, totalRecordCount: 100n, indexManifest: 'index-manifest-x-0', nextRowId: 5n, watermark: 50n };
  const cases: { watermark: bigint | undefined; want: bigint }[] = [
    { watermark: undefined, want: 50n },
    { watermark: 10n, want: 50n },
    { watermark: 60n, want: 60n },
  ];
  for (const c of cases) {
    const next = nextSnapshot(carried, { ...parts, kind: 'OVERWRITE', ...(c.watermark === undefined ? {} : { watermark: c.watermark }), properties: { sync: 's1' } });
    assert.equal(next.id, 42n);
    assert.equal(next.totalRecordCount, 104n);
    assert.equal(next.indexManifest, 'index-manifest-x-0');
    assert.equal(next.nextRowId, 5n);
    assert.equal(next.commitKind, 'OVERWRITE');
    assert.equal(next.watermark, c.want);
    assert.deepEqual([...(next.properties ?? [])], [['sync', 's1']]);
  }
  const withChangelog = nextSnapshot(null, { ...parts, changelog: { fileName: 'manifest-list-a-2', size: 5 }, changelogEntries: [add('c', P1, 0, 2, 6)] });
  assert.equal(withChangelog.changelogRecordCount, 6n);
  assert.equal(withChangelog.changelogManifestListSize, 5n);
});

test('index files or compaction output in a message are refused with a typed error', () => {
  const message = dataFilesMessage(P1, 3, 16, { newFiles: [SPARSE_FILE] });
  checkDataFilesOnly([message]);
  const compacted = { ...message, compactIncrement: { ...message.compactIncrement, compactAfter: message.dataIncrement.newFiles } };
  assert.throws(
    () => checkDataFilesOnly([message, compacted]),
    (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_MESSAGE_UNSUPPORTED',
  );
});

test('checkCommitConflicts decides as a Map keyed by the identifier does (same outcome, same error), names shared or not', () => {
  type Levelled = PlanEntry & { readonly file: PlanFile & { readonly level: number } };
  const byLevel = (e: Levelled): string => `${Buffer.from(e.partition).toString('hex')}|${e.bucket}|${e.file.level}|${e.file.fileName}`;
  // The check as it was written first: one Map keyed by every entry's identifier.
  const reference = (live: readonly Levelled[], delta: readonly Levelled[], kind: CommitKind): string | undefined => {
    const merged = new Map<string, Levelled>();
    for (const e of live) merged.set(byLevel(e), e);
    for (const e of delta) {
      const id = byLevel(e);
      if (e.kind === 'ADD') {
        if (merged.has(id)) return `COMMIT_CONFLICT: file ${e.file.fileName} is already in the table`;
        merged.set(id, e);
      } else {
        if (!merged.has(id)) return `COMMIT_CONFLICT: file ${e.file.fileName} to delete is no longer live (deleted by a concurrent commit)`;
        merged.delete(id);
      }
    }
    if (kind === 'OVERWRITE') return undefined;
    const totals = new Map<string, number>();
    for (const e of merged.values()) {
      if (e.totalBuckets <= 0) continue;
      const key = Buffer.from(e.partition).toString('hex');
      const seen = totals.get(key);
      if (seen === undefined) totals.set(key, e.totalBuckets);
      else if (seen !== e.totalBuckets) return `COMMIT_CONFLICT: total buckets of a partition changed from ${seen} to ${e.totalBuckets}; only OVERWRITE may rescale`;
    }
    return undefined;
  };
  const entry = fc.record({
    kind: fc.constantFrom('ADD' as const, 'DELETE' as const),
    partition: fc.constantFrom(P1, P2, Uint8Array.from(P1)),
    bucket: fc.integer({ min: 0, max: 1 }),
    totalBuckets: fc.constantFrom(-1, 2, 4),
    file: fc.record({ fileName: fc.constantFrom('a', 'b', 'c'), rowCount: fc.constant(1n), maxSequenceNumber: fc.constant(0n), level: fc.integer({ min: 0, max: 1 }) }),
  });
  const outcome = (fn: () => void): string | undefined => {
    try {
      fn();
      return undefined;
    } catch (e) {
      assert.ok(isTributaryError(e), String(e));
      return `${e.code}: ${e.message}`;
    }
  };
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 6 }), fc.array(entry, { maxLength: 6 }), fc.constantFrom<CommitKind>('APPEND', 'OVERWRITE', 'COMPACT'), (rawLive, delta, kind) => {
      const live = rawLive.map((e) => ({ ...e, kind: 'ADD' as const }));
      assert.equal(outcome(() => checkCommitConflicts(live, delta, kind, byLevel)), reference(live, delta, kind));
    }),
    { numRuns: 3000 },
  );
});
