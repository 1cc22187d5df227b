import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { TRIBUTARY_VERSION } from '../../src/version.ts';

test('the version is the one in package.json, and every package carries the same one', () => {
  assert.match(TRIBUTARY_VERSION, /^\d+\.\d+\.\d+/);
  const packages = new URL('../../../', import.meta.url);
  for (const name of readdirSync(packages)) {
    const manifest = JSON.parse(readFileSync(new URL(`${name}/package.json`, packages), 'utf8')) as { version?: string };
    assert.equal(manifest.version, TRIBUTARY_VERSION, `packages/${name}`);
  }
});
