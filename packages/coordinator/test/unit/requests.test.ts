import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { StartSyncRequest } from '../../src/requests.ts';

test('StartSyncRequest takes the sync source union and fills the options', () => {
  const parsed = StartSyncRequest.parse({
    table: { database: 'shop', table: 'orders' },
    source: { kind: 'generator', seed: 7, shards: 8, rowsPerShard: 1000 },
  });
  assert.equal(parsed.mode, 'append');
  assert.equal(parsed.options.maxAttempts, 3);
  assert.equal(parsed.source.kind, 'generator');
  const files = StartSyncRequest.parse({
    table: { database: 'shop', table: 'orders' },
    source: { kind: 'files', format: 'ndjson', uris: ['s3://bucket/in/part-*'] },
    mode: 'upsert',
  });
  assert.equal(files.source.kind === 'files' ? files.source.filesPerShard : 0, 1);
  assert.equal(StartSyncRequest.safeParse({ table: { database: 'shop', table: 'orders' }, source: { kind: 'mysql' } }).success, false);
});

test('the sync request converts to JSON Schema for the OpenAPI document', () => {
  for (const [name, schema] of Object.entries({ StartSyncRequest })) {
    const json = z.toJSONSchema(schema, { io: 'input' });
    assert.equal(json.type, 'object', name);
    assert.ok(json.properties !== undefined && Object.keys(json.properties).length >= 3, name);
  }
});
