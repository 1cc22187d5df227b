// infra/lib.sh's with_progress: a long first-time step (MinIO's build, a venv, Maven) prints a line
// with the elapsed time while it runs, and its exit status is the step's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const lib = resolve(import.meta.dirname, '../../infra/lib.sh');

function withProgress(step: string): { stderr: string; stdout: string; status: number | null } {
  const data = mkdtempSync(join(tmpdir(), 'infra-progress-'));
  try {
    const script = `source "$1"; set +e; with_progress "the step" bash -c "$2"; echo "status $?"`;
    const result = spawnSync('bash', ['-c', script, 'bash', lib, step], {
      encoding: 'utf8',
      env: { ...process.env, TRIBUTARY_DATA: data, TRIBUTARY_PROGRESS_SECONDS: '1' },
    });
    return { stderr: result.stderr, stdout: result.stdout, status: result.status };
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

test('a step that runs longer than the interval prints "still running" lines with the elapsed seconds', () => {
  // The step itself is what takes time here: 2.6 s of work at a 1 s interval.
  const { stderr, stdout } = withProgress('sleep 2.6; echo done');
  const lines = stderr.split('\n').filter((line) => line.startsWith('[infra] the step: still running, '));
  assert.ok(lines.length >= 2, stderr);
  const seconds = lines.map((line) => Number(/running, (\d+) s$/.exec(line)?.[1]));
  assert.deepEqual(seconds, [...seconds].sort((a, b) => a - b), 'elapsed time grows');
  assert.ok(seconds.every((s) => s >= 1 && s <= 4), stderr);
  assert.match(stdout, /^done\nstatus 0\n$/);
});

test("a quick step prints no progress line, and a failing step's exit status comes through", () => {
  const { stderr, stdout } = withProgress('echo quick; exit 7');
  assert.doesNotMatch(stderr, /still running/);
  assert.equal(stdout, 'quick\nstatus 7\n');
});
