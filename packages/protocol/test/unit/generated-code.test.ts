/**
 * The protobufjs static code under src/generated/ is checked in. This test regenerates it from
 * proto/commit_message.proto with the package's own `generate` script (into a temporary folder)
 * and fails if the checked-in files differ, so the .proto and the code cannot drift apart.
 * Fix a failure with `npm run generate -w @tributary/protocol` — and mind the golden vectors:
 * a schema change that alters the bytes needs an envelope version bump.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATED_DIR, GENERATED_FILES, generateInto } from '../../scripts/generate.ts';

test('the checked-in generated code equals a fresh generation from the .proto', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-protocol-generate-'));
  try {
    generateInto(dir);
    for (const file of GENERATED_FILES) {
      const fresh = readFileSync(join(dir, file), 'utf8');
      const checkedIn = readFileSync(join(GENERATED_DIR, file), 'utf8');
      assert.ok(fresh.length > 1000, `${file} was not generated`);
      assert.equal(checkedIn, fresh, `src/generated/${file} is stale: run npm run generate -w @tributary/protocol`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
