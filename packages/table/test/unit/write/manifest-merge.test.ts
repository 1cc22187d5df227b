import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMemorySize, planMinorCompaction } from '../../../src/write/manifest-merge.ts';

interface M { readonly name: string; readonly size: number }
const m = (name: string, size: number): M => ({ name, size });
const show = (steps: ReturnType<typeof planMinorCompaction<M>>) =>
  steps.map((s) => ('keep' in s ? s.keep.name : `[${s.merge.map((x) => x.name).join(',')}]`));

test('planMinorCompaction follows ManifestFileLegacyMerger.tryMinorCompaction', () => {
  const opts = { targetFileSize: 100, mergeMinCount: 3 };
  const cases: { name: string; input: M[]; want: string[] }[] = [
    { name: 'nothing', input: [], want: [] },
    { name: 'small tail below min count is kept', input: [m('a', 10), m('b', 10)], want: ['a', 'b'] },
    { name: 'small tail at min count is merged', input: [m('a', 10), m('b', 10), m('c', 10)], want: ['[a,b,c]'] },
    { name: 'a big manifest alone is kept', input: [m('big', 150), m('a', 10)], want: ['big', 'a'] },
    { name: 'groups reaching the target are merged', input: [m('a', 60), m('b', 50), m('c', 10), m('d', 95)], want: ['[a,b]', '[c,d]'] },
    { name: 'group then short tail', input: [m('a', 60), m('b', 50), m('c', 10)], want: ['[a,b]', 'c'] },
  ];
  for (const c of cases) assert.deepEqual(show(planMinorCompaction(c.input, (x) => x.size, opts)), c.want, c.name);
});

test('parseMemorySize reads Paimon memory sizes', () => {
  assert.equal(parseMemorySize('8 mb'), 8 * 1024 * 1024);
  assert.equal(parseMemorySize('128MB'), 128 * 1024 * 1024);
  assert.equal(parseMemorySize('1024'), 1024);
  assert.equal(parseMemorySize('2 kb'), 2048);
  assert.throws(() => parseMemorySize('lots'));
});
