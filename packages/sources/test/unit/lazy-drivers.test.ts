import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The CommonJS modules a fresh Node has loaded after importing `modules` (ESM imports of CommonJS go through its cache). */
function loadedAfter(...modules: string[]): string[] {
  const script = `${modules.map((m) => `await import(${JSON.stringify(m)});`).join(' ')}
const { createRequire } = await import('node:module');
console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: here, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(ran.status, 0, ran.stderr);
  return JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? '[]') as string[];
}

const drivers = /\/node_modules\/(mysql2|pg|pg-copy-streams)\//;

describe('the database drivers are loaded when first used', () => {
  it('importing the sources and the catalog loads neither mysql2 nor pg (a coordinator of other sources does not hold them)', () => {
    const loaded = loadedAfter('@tributary/sources', '@tributary/catalog');
    assert.ok(loaded.length > 0, 'the probe sees CommonJS modules at all');
    assert.deepEqual(loaded.filter((path) => drivers.test(path)), []);
  });

  it('the probe does see a driver once it is imported', () => {
    assert.ok(loadedAfter('@tributary/sources', 'mysql2/promise').some((path) => drivers.test(path)));
  });
});
