import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { CreateTableRequest, isTributaryError } from '@tributary/protocol';
import { CreateTableFromSourceRequest, StartSyncRequest, tableRequestFromSource } from '../../src/requests.ts';

test('StartSyncRequest takes the sync source union and fills the options', () => {
  const parsed = StartSyncRequest.parse({
    table: { database: 'shop', table: 'orders' },
    source: { kind: 'generator', seed: 7, shards: 8, rowsPerShard: 1000 },
  });
  assert.equal(parsed.mode, 'append');
  assert.equal(parsed.options.maxAttempts, 5, 'five attempts: a load rides out an outage of about half a minute');
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

describe('a table made from a source is judged like one given by its columns', () => {
  const body = CreateTableFromSourceRequest.parse({ database: 'probe', name: 'from_files', fromSource: { kind: 'files', format: 'csv', uris: ['file:///in/x.csv'] } });
  const made = (...names: string[]) => ({ columns: names.map((name) => ({ name, type: 'STRING' })), primaryKeys: [], bucket: -1 });
  const refusal = (names: readonly string[]): { message: string; context: Record<string, unknown> } => {
    try {
      tableRequestFromSource(body, made(...names));
    } catch (error) {
      assert.ok(isTributaryError(error), String(error));
      assert.equal(error.code, 'REQUEST_INVALID');
      return { message: error.message, context: { ...error.context } };
    }
    assert.fail(`${names.join(',')} was accepted`);
  };

  test('names a caller may give pass, with the keys and bucket of the source', () => {
    const request = tableRequestFromSource(body, { columns: [{ name: 'id', type: 'BIGINT NOT NULL' }, { name: 'name', type: 'STRING' }], primaryKeys: ['id'], bucket: 2 });
    assert.deepEqual(request.columns, [{ name: 'id', type: 'BIGINT NOT NULL' }, { name: 'name', type: 'STRING' }]);
    assert.deepEqual([request.primaryKeys, request.bucket, request.partitionKeys], [['id'], 2, []]);
  });

  const refused: [string, RegExp][] = [
    ['', /letters, digits and _/],
    ['a/b', /letters, digits and _/],
    ['x,y', /letters, digits and _/],
    ['<img src=x onerror=alert(1)>', /letters, digits and _/],
    ['_KEY_id', /a name Paimon keeps/],
    ['_SEQUENCE_NUMBER', /a name Paimon keeps/],
    ['_VALUE_KIND', /a name Paimon keeps/],
    ['_ROW_ID', /a name Paimon keeps/],
    ['rowkind', /a name Paimon keeps/],
  ];
  for (const [name, reason] of refused) {
    test(`a source column ${JSON.stringify(name)} is refused with 400 REQUEST_INVALID naming its position, not its name`, () => {
      const { message, context } = refusal(['id', name]);
      assert.match(message, /^\/fromSource column 2 of the source /);
      assert.match(message, reason);
      assert.deepEqual(context, { part: 'fromSource', column: 2 });
      if (name.length > 3 && !name.startsWith('_') && name !== 'rowkind') assert.ok(!message.includes(name), message);
    });
    test(`the same name ${JSON.stringify(name)} given in columns is refused by the same schema`, () => {
      const given = CreateTableRequest.safeParse({ database: 'probe', name: 't', columns: [{ name: 'id', type: 'INT' }, { name, type: 'INT' }] });
      assert.equal(given.success, false);
      assert.match(given.error?.issues.map((i) => i.message).join('; ') ?? '', reason);
    });
  }

  test('a primary key from the source with an unaware bucket, or a duplicate column, is refused too', () => {
    assert.throws(() => tableRequestFromSource(body, { columns: [{ name: 'id', type: 'INT' }], primaryKeys: ['id'], bucket: -1 }), /\/bucket a primary-key table needs fixed buckets/);
    assert.match(refusal(['id', 'id']).message, /column 2 of the source duplicate column id/);
  });
});
