import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { entryIdentifier, mergeEntries } from '../../../src/spec/file-entry.ts';
import type { ManifestEntry } from '../../../src/spec/manifest-entry.ts';
import { DT_ROW, EMPTY_ROW, SPARSE_FILE } from './manifest-fixtures.ts';

function entry(kind: 'ADD' | 'DELETE', name: string, more: Partial<ManifestEntry> & { level?: number } = {}): ManifestEntry {
  const { level = 0, ...rest } = more;
  return { kind, partition: DT_ROW, bucket: 0, totalBuckets: 2, file: { ...SPARSE_FILE, fileName: name, level }, ...rest };
}

test('identity: partition bytes, bucket, level, name, extra files, embedded index and external path', () => {
  const a = entry('ADD', 'f');
  assert.equal(entryIdentifier(a), entryIdentifier(entry('DELETE', 'f', { totalBuckets: 4 })));
  assert.equal(entryIdentifier(a), entryIdentifier({ ...a, file: { ...a.file, rowCount: 99n, creationTimeMillis: 5n } }));
  const differing: ManifestEntry[] = [
    { ...a, partition: EMPTY_ROW },
    { ...a, bucket: 1 },
    entry('ADD', 'f', { level: 1 }),
    entry('ADD', 'g'),
    { ...a, file: { ...a.file, extraFiles: ['x'] } },
    { ...a, file: { ...a.file, embeddedIndex: Uint8Array.of(0) } },
    { ...a, file: { ...a.file, externalPath: 's3://b/f' } },
  ];
  for (const other of differing) assert.notEqual(entryIdentifier(other), entryIdentifier(a));
  // Partition bytes are compared byte for byte, wherever the bytes live.
  const copy = new Uint8Array(DT_ROW.length + 4).subarray(4);
  copy.set(DT_ROW);
  assert.equal(entryIdentifier({ ...a, partition: copy }), entryIdentifier(a));
});

const cases: { name: string; input: ManifestEntry[]; output: string[] }[] = [
  { name: 'ADD then DELETE cancel', input: [entry('ADD', 'a'), entry('DELETE', 'a')], output: [] },
  { name: 'a DELETE without its ADD stays', input: [entry('DELETE', 'a')], output: ['DELETE a'] },
  { name: 'a DELETE before its ADD stays, and the later ADD is a conflict', input: [entry('DELETE', 'a'), entry('ADD', 'a')], output: ['conflict'] },
  { name: 'ADDs keep first-seen order', input: [entry('ADD', 'b'), entry('ADD', 'a'), entry('ADD', 'c'), entry('DELETE', 'a')], output: ['ADD b', 'ADD c'] },
  { name: 'an ADD after ADD+DELETE (file re-added) survives', input: [entry('ADD', 'a'), entry('DELETE', 'a'), entry('ADD', 'a')], output: ['ADD a'] },
  { name: 'adding a file twice is a conflict', input: [entry('ADD', 'a'), entry('ADD', 'a')], output: ['conflict'] },
  { name: 'a different level is a different file', input: [entry('ADD', 'a'), entry('DELETE', 'a', { level: 5 })], output: ['ADD a', 'DELETE a'] },
];

for (const c of cases) {
  test(`mergeEntries: ${c.name}`, () => {
    let got: string[];
    try {
      got = mergeEntries(c.input).map((e) => `${e.kind} ${e.file.fileName}`);
    } catch (error) {
      assert.equal((error as { code?: string }).code, 'MANIFEST_ENTRY_CONFLICT');
      got = ['conflict'];
    }
    assert.deepStrictEqual(got, c.output);
  });
}

test('mergeEntries: each file added once and deleted at most once, in order, leaves exactly the undeleted ADDs (property)', () => {
  const plan = fc.array(fc.boolean(), { maxLength: 20 });
  fc.assert(fc.property(plan, fc.integer({ min: 0, max: 1000 }), (deleted, seed) => {
    const adds = deleted.map((_, i) => entry('ADD', `f${i}`));
    const deletes = deleted.flatMap((d, i) => (d ? [entry('DELETE', `f${i}`)] : []));
    // Interleave deletes after their ADDs: all ADDs, then the deletes rotated by the seed.
    const rotated = deletes.map((_, i) => deletes[(i + seed) % deletes.length] as ManifestEntry);
    const merged = mergeEntries([...adds, ...rotated]).map((e) => e.file.fileName);
    assert.deepStrictEqual(merged, deleted.flatMap((d, i) => (d ? [] : [`f${i}`])));
  }));
});
