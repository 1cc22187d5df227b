/**
 * The coordinator process (`tributary coordinator`) as an operator starts it:
 * - no token configured and a non-loopback address: refuses to start (exit 2, a clear message);
 * - no token on loopback: runs open and says so once on stderr;
 * - tokens from a file: listens on 0.0.0.0, refuses requests without a token, serves with one,
 *   and prints neither the token nor its hash;
 * - a malformed token entry: refuses to start without echoing the entry.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { newToken } from '@tributary/coordinator';
import { syncEnv } from '../sync/harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Starts `tributary coordinator`; resolves when it exits, or once it printed its ready line (then `whileUp` runs
 * against its address and the process is stopped with SIGTERM).
 */
function runServer(env: NodeJS.ProcessEnv, whileUp?: (address: string) => Promise<void>): Promise<Run> {
  const child = spawn(process.execPath, ['packages/cli/src/main.ts', 'coordinator'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    let up = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /\{"listening":"([^"]+)"\}/.exec(stdout);
      if (match === null || up) return;
      up = true;
      const port = new URL(match[1] ?? '').port;
      (whileUp ?? (async () => {}))(`http://127.0.0.1:${port}`).then(
        () => child.kill('SIGTERM'),
        (error: unknown) => {
          child.kill('SIGTERM');
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('coordinator server process: authentication configuration', () => {
  const e = syncEnv('server-auth');
  const base = { ...e.env, TRIBUTARY_PORT: '0', TRIBUTARY_AUTH_TOKENS: '', TRIBUTARY_AUTH_TOKENS_FILE: '' };

  test('no token and 0.0.0.0: refuses to listen, exit 2, says why', async () => {
    const run = await runServer({ ...base, TRIBUTARY_HOST: '0.0.0.0' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /AUTH_NOT_CONFIGURED: no token is configured .* will not listen on 0\.0\.0\.0/);
    assert.ok(!run.stdout.includes('listening'));
  });

  test('no token on loopback: runs open and says so once', async () => {
    const run = await runServer({ ...base, TRIBUTARY_HOST: '127.0.0.1' }, async (address) => {
      assert.equal((await fetch(`${address}/v1/syncs`)).status, 200);
    });
    assert.equal(run.stderr.match(/authentication is OFF/g)?.length, 1, run.stderr);
  });

  test('tokens from a file: 0.0.0.0 is allowed; 401 without a token, 200 with it; neither token nor hash is printed', async () => {
    const reader = newToken('read', 'dashboard');
    const admin = newToken('admin', 'ci');
    const dir = mkdtempSync(join(tmpdir(), 'tributary-auth-'));
    const file = join(dir, 'tokens');
    writeFileSync(file, `# role:name:sha256\n${reader.entry}\n${admin.entry}\n`);
    const run = await runServer({ ...base, TRIBUTARY_HOST: '0.0.0.0', TRIBUTARY_AUTH_TOKENS_FILE: file }, async (address) => {
      const none = await fetch(`${address}/v1/syncs`);
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate')?.startsWith('Bearer'), true);
      assert.equal(((await none.json()) as { code: string }).code, 'AUTH_TOKEN_MISSING');
      assert.equal((await fetch(`${address}/v1/syncs`, { headers: { authorization: `Bearer ${reader.token}` } })).status, 200);
      const denied = await fetch(`${address}/v1/tables`, { method: 'POST', headers: { authorization: `Bearer ${reader.token}`, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(denied.status, 403);
      assert.equal((await fetch(`${address}/healthz`)).status, 200);
    });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /authentication is OFF/);
    for (const secret of [reader.token, admin.token, reader.entry.split(':')[2] ?? 'x', admin.entry.split(':')[2] ?? 'x']) {
      assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), 'no token or hash in the output');
    }
  });

  test('a malformed entry (a token pasted in clear): refuses to start and does not echo it', async () => {
    const pasted = newToken('admin', 'x').token;
    const run = await runServer({ ...base, TRIBUTARY_AUTH_TOKENS: `admin:${pasted}` });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /AUTH_CONFIG_INVALID: token entry 1 of TRIBUTARY_AUTH_TOKENS/);
    assert.ok(!run.stderr.includes(pasted));
  });
});
