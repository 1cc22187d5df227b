import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { commandOf, COORDINATOR_HEAP_GROWING_PERCENT, COORDINATOR_SEMI_SPACE_MB, nodeEnvFor, nodeFlagsFor, WORKER_MMAP_THRESHOLD_BYTES, WORKER_SEMI_SPACE_MB } from '../../bin/node-flags.js';

const bound = `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`;
const coordinatorBound = `--max-semi-space-size=${COORDINATOR_SEMI_SPACE_MB}`;
const coordinatorGrowth = `--heap-growing-percent=${COORDINATOR_HEAP_GROWING_PERCENT}`;
const threshold = { MALLOC_MMAP_THRESHOLD_: String(WORKER_MMAP_THRESHOLD_BYTES) };
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

  it("fixes a worker's malloc mmap threshold, and only a worker's, unless its environment sets one", () => {
    assert.deepEqual(nodeEnvFor(['worker'], {}), threshold);
    assert.deepEqual(nodeEnvFor(['--config', 'c.json', 'worker', '--concurrency', '1'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }), threshold);
    assert.deepEqual(nodeEnvFor(['coordinator'], {}), {});
    assert.deepEqual(nodeEnvFor(['--config', 'worker', 'sync', 'list'], {}), {});
    assert.deepEqual(nodeEnvFor(['constructor'], {}), {});
    assert.deepEqual(nodeEnvFor([], {}), {});
    assert.deepEqual(nodeEnvFor(['worker'], { MALLOC_MMAP_THRESHOLD_: '1048576' }), {});
    assert.deepEqual(nodeEnvFor(['worker'], { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' }), {});
    assert.deepEqual(nodeEnvFor(['worker'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536' }), {});
  });

  it('starts a worker and a coordinator with their bounds (and a worker with its threshold) in the same process (execve), a client command without either', () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-flags-'));
    try {
      const out = join(dir, 'seen');
      // Preloaded into every image the command runs: its pid, Node flags and malloc threshold, one line each.
      const preload = join(dir, 'preload.cjs');
      writeFileSync(preload, `require('node:fs').appendFileSync(${JSON.stringify(out)}, JSON.stringify([process.pid, process.execArgv, process.env.MALLOC_MMAP_THRESHOLD_ ?? null]) + '\\n');`);
      const seen = (command: string, flags: string[] = [], env: Record<string, string> = {}): [number, string[], string | null][] => {
        rmSync(out, { force: true });
        const { MALLOC_MMAP_THRESHOLD_: _, ...inherited } = process.env;
        const ran = spawnSync(process.execPath, ['--require', preload, ...flags, bin, command, '--help'], { encoding: 'utf8', env: { ...inherited, NODE_OPTIONS: '', ...env } });
        assert.equal(ran.status, 0, ran.stderr);
        return readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as [number, string[], string | null]);
      };
      const worker = seen('worker');
      assert.equal(worker.length, 2, 'the command re-executes itself once');
      assert.equal(worker[1]?.[0], worker[0]?.[0], 'in the same process');
      assert.ok(worker[1]?.[1].includes(bound), JSON.stringify(worker));
      assert.ok(worker[1]?.[1].includes('--require'), 'its own Node flags are kept');
      assert.equal(worker[0]?.[2], null);
      assert.equal(worker[1]?.[2], String(WORKER_MMAP_THRESHOLD_BYTES), 'with its malloc threshold');
      // The operator's young generation: no flag of ours, but still the threshold.
      const sized = seen('worker', ['--max-semi-space-size=32']);
      assert.equal(sized.length, 2, 'the command re-executes itself once');
      assert.ok(!sized[1]?.[1].includes(bound), JSON.stringify(sized));
      assert.equal(sized[1]?.[2], String(WORKER_MMAP_THRESHOLD_BYTES));
      // The operator's young generation and threshold: nothing to add, no re-execution.
      const both = seen('worker', ['--max-semi-space-size=32'], { MALLOC_MMAP_THRESHOLD_: '1048576' });
      assert.equal(both.length, 1, JSON.stringify(both));
      assert.equal(both[0]?.[2], '1048576');
      const coordinator = seen('coordinator');
      assert.equal(coordinator.length, 2, 'the command re-executes itself once');
      assert.equal(coordinator[1]?.[0], coordinator[0]?.[0], 'in the same process');
      assert.ok(coordinator[1]?.[1].includes(coordinatorBound), JSON.stringify(coordinator));
      assert.ok(coordinator[1]?.[1].includes(coordinatorGrowth), JSON.stringify(coordinator));
      assert.equal(coordinator[1]?.[2], null, 'no malloc threshold');
      const client = seen('sync');
      assert.equal(client.length, 1);
      assert.equal(client[0]?.[2], null);
      assert.ok(!client[0]?.[1].some((f) => f.startsWith('--max-semi-space-size') || f.startsWith('--heap-growing-percent')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
