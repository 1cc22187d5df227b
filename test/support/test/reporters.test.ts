import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const support = resolve(import.meta.dirname, '..');

function withoutTestContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...rest } = env;
  return rest;
}

/** Runs a test file with the reporters scripts/test.mjs uses; returns stdout and the exit code. */
function runWithReporters(source: string): { out: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'reporters-'));
  try {
    writeFileSync(join(dir, 'sample.test.mjs'), source);
    const result = spawnSync(
      process.execPath,
      [
        '--test',
        `--test-reporter=${join(support, 'spec-reporter.mjs')}`,
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(support, 'summary-reporter.mjs')}`,
        '--test-reporter-destination=stdout',
        'sample.test.mjs',
      ],
      // Without NODE_TEST_CONTEXT the child is a run of its own, not a subtest of this one.
      { cwd: dir, encoding: 'utf8', env: { ...withoutTestContext(process.env), NO_COLOR: '1' } },
    );
    return { out: result.stdout, status: result.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sample = `import test from 'node:test';
test('fine', () => {});
test('known gap', { todo: 'the oracle drops it' }, () => { throw new Error('todo-boom'); });
test('broken', () => { throw new Error('real-boom'); });
`;

test('a failing todo test is listed under its own header without a stack; a real failure stays under "failing tests"', () => {
  const { out, status } = runWithReporters(sample);
  assert.equal(status, 1, 'the real failure fails the run');
  const failing = out.slice(out.indexOf('failing tests:'));
  assert.ok(out.includes('failing tests:'), out);
  assert.match(failing, /broken/);
  assert.match(failing, /real-boom/);
  assert.doesNotMatch(failing.split('todo tests')[0] ?? '', /known gap|todo-boom/, 'the todo test is not a failing test');
  assert.doesNotMatch(out, /todo-boom/, 'no stack trace of the todo test anywhere');
  assert.match(out, /todo tests \(known gaps, not failures\):\n {2}known gap \(sample\.test\.mjs:3; fails as expected\): the oracle drops it\n/);
  assert.match(out, /\n1 passed, 1 failed, 1 skipped\n/);
});

test('a run whose only non-passing test is a todo passes, with no "failing tests" header', () => {
  const { out, status } = runWithReporters(sample.split('\n').slice(0, 3).join('\n'));
  assert.equal(status, 0, out);
  assert.doesNotMatch(out, /failing tests/);
  assert.match(out, /known gap \(sample\.test\.mjs:3; fails as expected\)/);
  assert.match(out, /\n1 passed, 0 failed, 1 skipped\n/);
});
