import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  CreateTableRequest,
  startSyncRequest,
  ProblemDetails,
  isTributaryError,
  parsePayload,
  toErrorData,
} from '@tributary/protocol';

const orders = {
  database: 'shop',
  name: 'orders',
  columns: [
    { name: 'order_id', type: 'BIGINT NOT NULL' },
    { name: 'dt', type: 'STRING NOT NULL' },
    { name: 'amount', type: 'DECIMAL(10, 2)' },
  ],
  partitionKeys: ['dt'],
  primaryKeys: ['order_id', 'dt'],
  bucket: 4,
};

test('CreateTableRequest fills defaults and accepts a partitioned primary-key table', () => {
  const parsed = CreateTableRequest.parse(orders);
  assert.deepEqual(parsed.options, {});
  assert.equal(parsed.bucket, 4);
  const append = CreateTableRequest.parse({ database: 'shop', name: 'events', columns: [{ name: 'id', type: 'INT' }] });
  assert.equal(append.bucket, -1);
  assert.deepEqual(append.primaryKeys, []);
});

test('CreateTableRequest refuses what Paimon or v1 would refuse, naming the field', () => {
  const cases: [string, unknown, string][] = [
    ['unknown partition key', { ...orders, partitionKeys: ['day'] }, 'partitionKeys.0'],
    ['partition key outside the primary key', { ...orders, primaryKeys: ['order_id'] }, 'partitionKeys.0'],
    ['primary key on a dynamic-bucket table', { ...orders, bucket: -1 }, 'bucket'],
    ['bucket 0', { ...orders, bucket: 0 }, 'bucket'],
    ['duplicate column', { ...orders, columns: [...orders.columns, { name: 'dt', type: 'INT' }] }, 'columns.3.name'],
    ['bad identifier', { ...orders, name: 'orders; drop' }, 'name'],
    ['unknown field', { ...orders, colour: 'red' }, ''],
  ];
  for (const [what, body, path] of cases) {
    assert.throws(
      () => parsePayload(CreateTableRequest, body, 'create-table request'),
      (e: unknown) => isTributaryError(e) && e.code === 'PAYLOAD_INVALID' && e.context['path'] === path,
      what,
    );
  }
});

test('a sync request may not set the snapshot properties Tributary writes itself', () => {
  const SyncRequest = startSyncRequest(z.looseObject({ kind: z.string() }));
  const request = (snapshotProperties: Record<string, string>) => ({ table: { database: 'shop', table: 'orders' }, source: { kind: 'generator', shards: 1, rowsPerShard: 1 }, options: { snapshotProperties } });
  assert.deepEqual(parsePayload(SyncRequest, request({ team: 'sales', 'tributary-like': 'x' }), 'sync request').options.snapshotProperties, { team: 'sales', 'tributary-like': 'x' });
  for (const key of ['tributary.positions', 'tributary.watermark', 'tributary.source-id', 'tributary.anything']) {
    assert.throws(
      () => parsePayload(SyncRequest, request({ [key]: '{}' }), 'sync request'),
      (e: unknown) => isTributaryError(e) && e.code === 'PAYLOAD_INVALID' && e.context['path'] === 'options.snapshotProperties' && !e.message.includes('{}'),
      key,
    );
  }
});

test('ProblemDetails describes a TributaryError as problem+json', () => {
  const data = toErrorData(new Error('boom'));
  const body = ProblemDetails.parse({ title: 'Internal error', status: 500, ...data });
  assert.equal(body.type, 'about:blank');
  assert.equal(body.code, 'INTERNAL');
  assert.equal(ProblemDetails.safeParse({ title: 'x', status: 200, code: 'X', retryable: false }).success, false);
});

test('the REST schemas convert to JSON Schema for the OpenAPI document', () => {
  for (const [name, schema] of Object.entries({ CreateTableRequest, ProblemDetails })) {
    const json = z.toJSONSchema(schema, { io: 'input' });
    assert.equal(json.type, 'object', name);
    assert.ok(json.properties !== undefined && Object.keys(json.properties).length >= 3, name);
  }
});
