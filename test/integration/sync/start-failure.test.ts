/**
 * A coordinator that cannot start (here: its JDBC catalog's database does not answer) closes what it
 * had opened already (Redis, queues) before it throws, so an embedding process exits by itself
 * instead of hanging on open connections.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, services } from '@tributary/testkit';
import { s3, syncEnv } from './harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

// Starts a coordinator, reports how the start ended, and returns: nothing keeps the process alive
// but what the coordinator left open.
const SCRIPT = `
import { startCoordinator } from '@tributary/coordinator';
const config = JSON.parse(process.env.START_CONFIG);
try {
  await startCoordinator({ ...config, clusterSecret: new TextEncoder().encode(config.clusterSecret) });
  console.log('started');
} catch (error) {
  console.log('refused ' + (error && error.code));
}
`;

test('a coordinator whose start fails part-way leaves nothing open: the process exits by itself', async () => {
  const e = syncEnv('start-failure');
  const config = {
    redis: services.redis,
    prefix: e.prefix,
    warehouse: e.warehouse,
    s3,
    clusterSecret: 'x'.repeat(48),
    catalog: { type: 'jdbc', uri: `jdbc:postgresql://127.0.0.1:${await freePort()}/catalog`, user: 'tributary', password: 'not-used' },
  };
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: root, env: { ...process.env, START_CONFIG: JSON.stringify(config) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = once(child, 'exit');
  // Generous: the start itself (loading the code, the refused connection) is what takes time here.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  assert.match(out, /^refused CATALOG_UNAVAILABLE$/m, out);
  assert.equal(signal, null, `the process did not exit by itself within 60 s: ${out}`);
  assert.equal(code, 0, out);
});
