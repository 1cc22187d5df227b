/**
 * `npm run test:api-fuzz`: schemathesis (pinned in requirements.txt, installed by infra/oracles.sh
 * into .cache/venv-fuzz) generates requests from the coordinator's own OpenAPI document, valid and
 * invalid, and replays stateful sequences, against a real coordinator process on real Redis and
 * MinIO. Every check must pass: no 5xx, no response that breaks its declared schema, status or
 * content type, no valid request refused and no invalid one accepted (schemathesis.toml lists the
 * few answers the schema cannot predict, with their reasons).
 *
 * TRIBUTARY_FUZZ_SEED replays one run (the seed is printed either way); TRIBUTARY_FUZZ_EXAMPLES
 * sets examples per operation for a longer run.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { freePort } from '@tributary/testkit';
import { outputOf, spawnCoordinator, stop, syncEnv } from '../integration/sync/harness.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const schemathesis = fileURLToPath(new URL('../../.cache/venv-fuzz/bin/schemathesis', import.meta.url));
const seed = process.env.TRIBUTARY_FUZZ_SEED ?? '20261201';

function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

const e = syncEnv('api-fuzz');
// The run authenticates as an admin, as an operator's client would: every route is reachable.
const token = randomBytes(32).toString('base64url');
const authorization = `Bearer ${token}`;
let coordinator: ChildProcess;
let base: string;

before(async () => {
  assert.ok(existsSync(schemathesis), `schemathesis is not installed at ${schemathesis}: run bash infra/oracles.sh`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  coordinator = await spawnCoordinator(e, port, { TRIBUTARY_AUTH_TOKENS: `admin:fuzz:${createHash('sha256').update(token).digest('hex')}` });
  // One table, so reads and syncs meet something that exists as well as the many that do not.
  const created = await fetch(`${base}/v1/tables`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ database: 'A', name: 'A', columns: [{ name: 'id', type: 'BIGINT NOT NULL' }], primaryKeys: ['id'], bucket: 1 }),
  });
  assert.equal(created.status, 201, await created.text());
});

after(async () => {
  if (coordinator !== undefined) await stop(coordinator);
});

// Four thousand requests: minutes on a quiet machine, over ten at load 35 (the runner's 600 s per
// test cut such a run short here).
test('schemathesis finds no failure in the coordinator API', { timeout: 1_500_000 }, async () => {
  const args = ['--config-file', 'schemathesis.toml', 'run', `${base}/docs/json`, '--url', base, '--header', `Authorization: ${authorization}`, '--workers', '1', '--seed', seed];
  if (process.env.TRIBUTARY_FUZZ_EXAMPLES !== undefined) args.push('--max-examples', process.env.TRIBUTARY_FUZZ_EXAMPLES);
  const { code, output } = await run(schemathesis, args, here);
  const summary = output.split('\n').filter((l) => /generated|passed|failures?|Seed:/.test(l)).join('\n');
  console.log(`schemathesis (seed ${seed}):\n${summary}`);
  // The coordinator's side too: whether it is still running, and its last lines (a crash names itself there).
  const state = coordinator.exitCode === null && coordinator.signalCode === null ? 'still running' : `exited (${coordinator.exitCode ?? coordinator.signalCode})`;
  const server = `coordinator ${state}; its output, tail:\n${outputOf(coordinator).slice(-4000)}`;
  assert.equal(code, 0, `schemathesis failed (replay with TRIBUTARY_FUZZ_SEED=${seed} npm run test:api-fuzz):\n${output.slice(-12_000)}\n${server}`);
});
