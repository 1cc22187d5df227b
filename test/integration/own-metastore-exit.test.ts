// A test's own Hive Metastore (test/support/src/hive-metastore.ts) is a daemon that outlives the
// process that started it unless `close` stops it. A test process that ends first (the exit
// watchdog's process.exit, a failed `before`) must take it along, not leave a JVM running for the
// rest of the run and after it.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@tributary/testkit';

const script = resolve(import.meta.dirname, '../../infra/hive-metastore.sh');

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('a process that exits without closing its own metastore stops it on its way out', async () => {
  const port = await freePort();
  const name = `exit-test-${port}`;
  const child = `
    import { ownMetastore } from '@tributary/testkit';
    const own = await ownMetastore('${name}', ${port});
    await own.start();
    console.log('started');
    process.exit(1); // as the exit watchdog ends a lingering file's process: no after hook, no close
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', child], { cwd: import.meta.dirname, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    const [code] = (await once(proc, 'exit')) as [number | null];
    assert.equal(out.trim(), 'started', 'the metastore was started');
    assert.equal(code, 1);
    // The kill is sent as the child exits; the JVM takes a moment to let go of its port.
    const deadline = Date.now() + 30_000;
    while ((await listening(port)) && Date.now() < deadline) await sleep(200);
    assert.equal(await listening(port), false, `the metastore on port ${port} still answers after its process exited`);
  } finally {
    // What close would have done: its database dropped (and the daemon stopped, were it still up), its directory deleted.
    for (const dir of readdirSync(tmpdir()).filter((d) => d.startsWith(`tributary-hms-${name}-`))) {
      const data = join(tmpdir(), dir);
      execFileSync('bash', [script, 'purge'], { env: { ...process.env, TRIBUTARY_DATA: data, TRIBUTARY_HIVE_METASTORE_PORT: String(port) }, stdio: 'ignore', timeout: 120_000 });
      rmSync(data, { recursive: true, force: true });
    }
  }
});
