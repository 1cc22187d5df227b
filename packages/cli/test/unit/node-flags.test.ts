import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { commandOf, COORDINATOR_HEAP_GROWING_PERCENT, COORDINATOR_SEMI_SPACE_MB, nodeFlagsFor, WORKER_SEMI_SPACE_MB } from '../../bin/node-flags.js';

const bound = `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`;
const coordinatorBound = `--max-semi-space-size=${COORDINATOR_SEMI_SPACE_MB}`;
const coordinatorGrowth = `--heap-growing-percent=${COORDINATOR_HEAP_GROWING_PERCENT}`;
const bin = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url));

describe('the Node flags of a command (bin/node-flags.js)', () => {
  it('finds the command after global options, --config taking a value', () => {
    assert.equal(commandOf(['worker', '--concurrency', '2']), 'worker');
    assert.equal(commandOf(['--config', 'worker', 'coordinator']), 'coordinator');
    assert.equal(commandOf(['--config=x.json', 'worker']), 'worker');
    assert.equal(commandOf(['--version']), undefined);
  });

  it("bounds a worker's and a coordinator's young generation and a coordinator's old generation's growth, and only theirs", () => {
    assert.deepEqual(nodeFlagsFor(['worker'], [], undefined), [bound]);
    assert.deepEqual(nodeFlagsFor(['--config', 'c.json', 'worker', '--concurrency', '1'], ['--cpu-prof'], ''), [bound]);
    assert.deepEqual(nodeFlagsFor(['coordinator'], [], undefined), [coordinatorBound, coordinatorGrowth]);
    assert.deepEqual(nodeFlagsFor(['coordinator', '--port', '0'], [], '--max-semi-space-size=32'), []);
    assert.deepEqual(nodeFlagsFor(['--config', 'worker', 'sync', 'list'], [], undefined), []);
    assert.deepEqual(nodeFlagsFor([], [], undefined), []);
  });

  it('keeps a heap size the operator gave, in the Node flags or NODE_OPTIONS', () => {
    assert.deepEqual(nodeFlagsFor(['worker'], ['--max-semi-space-size=64'], undefined), []);
    assert.deepEqual(nodeFlagsFor(['worker'], ['--max-heap-size=512'], undefined), []);
    assert.deepEqual(nodeFlagsFor(['worker'], [], '--enable-source-maps --max_semi_space_size=8'), []);
    // A bound of the old generation alone does not size the young one.
    assert.deepEqual(nodeFlagsFor(['worker'], ['--max-old-space-size=300'], undefined), [bound]);
    // A growth the operator gave is kept; the young generation is still bounded.
    assert.deepEqual(nodeFlagsFor(['coordinator'], ['--heap-growing-percent=50'], undefined), [coordinatorBound]);
    assert.deepEqual(nodeFlagsFor(['coordinator'], ['--heap_growing_percent=0'], undefined), [coordinatorBound]);
  });

  it('starts a worker and a coordinator with their bounds in the same process (execve), a client command without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-flags-'));
    try {
      const out = join(dir, 'seen');
      // Preloaded into every image the command runs: its pid and Node flags, one line each.
      const preload = join(dir, 'preload.cjs');
      writeFileSync(preload, `require('node:fs').appendFileSync(${JSON.stringify(out)}, JSON.stringify([process.pid, process.execArgv]) + '\\n');`);
      const seen = (command: string): [number, string[]][] => {
        rmSync(out, { force: true });
        const ran = spawnSync(process.execPath, ['--require', preload, bin, command, '--help'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
        assert.equal(ran.status, 0, ran.stderr);
        return readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as [number, string[]]);
      };
      const worker = seen('worker');
      assert.equal(worker.length, 2, 'the command re-executes itself once');
      assert.equal(worker[1]?.[0], worker[0]?.[0], 'in the same process');
      assert.ok(worker[1]?.[1].includes(bound), JSON.stringify(worker));
      assert.ok(worker[1]?.[1].includes('--require'), 'its own Node flags are kept');
      const coordinator = seen('coordinator');
      assert.equal(coordinator.length, 2, 'the command re-executes itself once');
      assert.equal(coordinator[1]?.[0], coordinator[0]?.[0], 'in the same process');
      assert.ok(coordinator[1]?.[1].includes(coordinatorBound), JSON.stringify(coordinator));
      assert.ok(coordinator[1]?.[1].includes(coordinatorGrowth), JSON.stringify(coordinator));
      const client = seen('sync');
      assert.equal(client.length, 1);
      assert.ok(!client[0]?.[1].some((f) => f.startsWith('--max-semi-space-size') || f.startsWith('--heap-growing-percent')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
