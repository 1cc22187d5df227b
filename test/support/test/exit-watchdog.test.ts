import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const watchdog = resolve(import.meta.dirname, '..', 'exit-watchdog.mjs');

/** Runs one test file under node's runner with the watchdog, as scripts/test.mjs does, with a 1 s linger. */
function runWithWatchdog(source: string): { out: string; status: number | null; signal: NodeJS.Signals | null } {
  const dir = mkdtempSync(join(tmpdir(), 'exit-watchdog-'));
  try {
    writeFileSync(join(dir, 'sample.test.mjs'), source);
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const result = spawnSync(process.execPath, ['--test', `--import=${watchdog}`, 'sample.test.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      // Without NODE_TEST_CONTEXT the child is a run of its own, not a subtest of this one.
      env: { ...env, NO_COLOR: '1', TRIBUTARY_TEST_LINGER_MS: '1000' },
      // Only if the watchdog failed: the file would otherwise run for ever.
      timeout: 60_000,
    });
    return { out: `${result.stdout}${result.stderr}`, status: result.status, signal: result.signal };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a test file whose process outlives its tests fails, naming what is still open, instead of stalling the run', () => {
  const run = runWithWatchdog(`import test from 'node:test';\ntest('passes but leaves an interval running', () => { setInterval(() => {}, 1000); });\n`);
  assert.equal(run.signal, null, 'ended by the watchdog, not by the guard timeout');
  assert.equal(run.status, 1);
  assert.match(run.out, /exit-watchdog: .*sample\.test\.mjs still running 1 s after its tests ended; open: .*Timeout/);
  assert.match(run.out, /pass 1/, "the file's own results are still reported");
});

test('a test file that ends by itself is left alone', () => {
  const run = runWithWatchdog(`import test from 'node:test';\ntest('fine', () => {});\n`);
  assert.equal(run.status, 0, run.out);
  assert.doesNotMatch(run.out, /exit-watchdog/);
});
