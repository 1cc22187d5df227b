/**
 * Client mistakes are 4xx with a stable code, the server's own faults alone are 5xx, and a method
 * the API does not serve on a path it serves is 405 with `Allow` ("safe to expose": 4xx
 * for client mistakes). The schemathesis run (test/api-fuzz) explores the same from the OpenAPI
 * document; these pin the cases it first found.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { openObjectStore } from '@tributary/table';
import { inProcessCoordinator, s3, syncEnv } from '../sync/harness.ts';

describe('the REST API answers client mistakes with 4xx problems', () => {
  const e = syncEnv('api-errors');
  let c: Coordinator;

  before(async () => {
    c = await inProcessCoordinator(e);
    const created = await c.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'd', name: 't', columns: [{ name: 'id', type: 'INT' }] } });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => {
    await c.close();
  });

  const cases: readonly { readonly name: string; readonly method: 'GET' | 'POST'; readonly url: string; readonly payload?: object; readonly status: number; readonly code: string }[] = [
    {
      name: 'a source URI with a scheme other than file: or s3:',
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'd', table: 't' }, source: { kind: 'files', format: 'csv', uris: ['http://example.com/x.csv'] } },
      status: 400,
      code: 'STORAGE_URI_INVALID',
    },
    {
      name: 'a nested column type Tributary does not write',
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'd', name: 'nested', columns: [{ name: 'a', type: 'ARRAY<INT>' }] },
      status: 400,
      code: 'UNSUPPORTED_TYPE',
    },
    {
      name: 'a type string that is no type',
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'd', name: 'bad', columns: [{ name: 'a', type: '0' }] },
      status: 400,
      code: 'DATA_TYPE_INVALID',
    },
    {
      name: 'a source URI whose key is longer than S3 allows',
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'd', table: 't' }, source: { kind: 'files', format: 'csv', uris: [`${e.sourceRoot}/in/${'a'.repeat(1100)}.csv`] } },
      status: 400,
      code: 'OBJECT_KEY_INVALID',
    },
    {
      name: 'a table from a source file that does not exist',
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'd', name: 'from_nothing', fromSource: { kind: 'files', format: 'csv', uris: [`${e.sourceRoot}/in/no-such-file.csv`] } },
      status: 400,
      code: 'SOURCE_SPEC_INVALID',
    },
    ...(
      [
        ['target-file-size', '-1', 'TABLE_OPTION_INVALID'],
        ['target-file-size', '0 mb', 'TABLE_OPTION_INVALID'],
        ['snapshot.num-retained.min', '0', 'TABLE_OPTION_INVALID'],
        ['num-sorted-run.compaction-trigger', 'x', 'TABLE_OPTION_INVALID'],
        ['file.compression', 'zip', 'TABLE_OPTION_INVALID'],
        ['changelog-file.stats-mode', 'truncate(0)', 'TABLE_OPTION_INVALID'],
        ['file.compression.per.level', '0=zstd', 'TABLE_OPTION_INVALID'],
        ['changelog-file.format', 'avro', 'TABLE_UNSUPPORTED'],
        ['file.format.per.level', '0:orc', 'TABLE_UNSUPPORTED'],
        ['path', `${e.warehouse}/other.db/t`, 'TABLE_UNSUPPORTED'],
        ['branch', '../x', 'TABLE_UNSUPPORTED'],
      ] as const
    ).map(([option, value, code]) => ({
      // Accepted before, then every sync into the table aborted (or Paimon's readers looked elsewhere).
      name: `a table option no load could use: ${option} = ${value}`,
      method: 'POST' as const,
      url: '/v1/tables',
      payload: { database: 'd', name: 'opts', columns: [{ name: 'id', type: 'INT' }], options: { [option]: value } },
      status: 400,
      code,
    })),
    { name: 'a sync id longer than the schema allows', method: 'GET', url: `/v1/syncs/${'0'.repeat(101)}`, status: 400, code: 'REQUEST_INVALID' },
    { name: 'a sync id longer than the router takes', method: 'GET', url: `/v1/syncs/${'0'.repeat(2049)}`, status: 400, code: 'REQUEST_INVALID' },
    { name: 'a path parameter that is not percent-encoded UTF-8', method: 'GET', url: '/v1/syncs/%ff', status: 400, code: 'REQUEST_URL_INVALID' },
    { name: 'an unknown sync', method: 'GET', url: '/v1/syncs/nope', status: 404, code: 'SYNC_NOT_FOUND' },
    { name: 'an unknown path', method: 'GET', url: '/v1/nothing-here', status: 404, code: 'ROUTE_NOT_FOUND' },
  ];

  for (const k of cases) {
    test(`${k.name}: ${k.status} ${k.code}`, async () => {
      const response = await c.app.inject({ method: k.method, url: k.url, ...(k.payload === undefined ? {} : { payload: k.payload }) });
      assert.equal(response.statusCode, k.status, response.body);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assert.equal(response.json<{ code: string }>().code, k.code);
    });
  }

  test('a table from a source whose column names a caller could not give is refused like those names in columns, naming no cell', async () => {
    const src = openObjectStore(e.sourceRoot, s3);
    const headers: [string, string, string][] = [
      ['bad.csv', 'id,name,a/b,"x,y",,_KEY_id,_SEQUENCE_NUMBER', 'column 3 of the source'],
      ['seq.csv', 'id,_SEQUENCE_NUMBER', 'column 2 of the source'],
      ['html.csv', 'id,<img src=x onerror=alert(1)>', 'column 2 of the source'],
    ];
    for (const [file, header, column] of headers) {
      await src.put(`in/${file}`, new TextEncoder().encode(`${header}\nTOPSECRET,f,1,2,3,4,5\n`));
      const name = file.replace('.csv', '');
      const response = await c.app.inject({
        method: 'POST',
        url: '/v1/tables',
        payload: { database: 'd', name, fromSource: { kind: 'files', format: 'csv', uris: [`${e.sourceRoot}/in/${file}`] } },
      });
      assert.equal(response.statusCode, 400, `${file}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const problem = response.json<{ code: string; detail: string; context: Record<string, unknown> }>();
      assert.equal(problem.code, 'REQUEST_INVALID');
      assert.ok(problem.detail.includes(column), `${file}: ${problem.detail}`);
      for (const cell of ['TOPSECRET', '<img', 'a/b', 'x,y']) assert.ok(!response.body.includes(cell), `${file}: ${cell} in ${response.body}`);
      assert.equal((await c.app.inject({ method: 'GET', url: `/v1/tables/d/${name}` })).statusCode, 404, `${file}: no table made`);
    }
    // The same names given in columns get the same code.
    for (const name of ['_SEQUENCE_NUMBER', '_KEY_id', 'a/b']) {
      const given = await c.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'd', name: 'given', columns: [{ name: 'id', type: 'INT' }, { name, type: 'INT' }] } });
      assert.equal(given.statusCode, 400, `${name}: ${given.body}`);
      assert.equal(given.json<{ code: string }>().code, 'REQUEST_INVALID');
    }
    await src.put('in/good.csv', new TextEncoder().encode('id,name\n1,a\n'));
    const good = await c.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'd', name: 'good', fromSource: { kind: 'files', format: 'csv', uris: [`${e.sourceRoot}/in/good.csv`] } } });
    assert.equal(good.statusCode, 201, good.body);
  });

  test('a JSON body with a __proto__ or constructor.prototype key: 400 naming the forbidden key, not "not valid JSON"', async () => {
    for (const payload of ['{"__proto__":{"admin":true}}', '{"table":{"constructor":{"prototype":{"x":1}}}}']) {
      const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', headers: { 'content-type': 'application/json' }, payload });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const problem = response.json<{ code: string; detail: string }>();
      assert.equal(problem.code, 'REQUEST_INVALID');
      assert.match(problem.detail, /forbidden key/);
    }
    const broken = await c.app.inject({ method: 'POST', url: '/v1/syncs', headers: { 'content-type': 'application/json' }, payload: '{"table":' });
    assert.equal(broken.statusCode, 400);
    assert.match(broken.json<{ detail: string }>().detail, /not valid JSON/);
  });

  test('a method not served on a served path: 405 with Allow, before any body is parsed', async () => {
    for (const method of ['TRACE', 'QUERY', 'PATCH'] as const) {
      const response = await c.app.inject({ method, url: '/v1/schedules' });
      assert.equal(response.statusCode, 405, `${method}: ${response.body}`);
      assert.equal(response.headers['allow'], 'GET, HEAD');
      assert.equal(response.json<{ code: string }>().code, 'METHOD_NOT_ALLOWED');
    }
    const sync = await c.app.inject({ method: 'DELETE', url: '/v1/syncs/some-id' });
    assert.equal(sync.statusCode, 405);
    assert.equal(sync.headers['allow'], 'GET, HEAD');
  });

  test('the OpenAPI document declares problem+json for every error status, and 400 wherever a route takes input', async () => {
    const doc = (await c.app.inject({ method: 'GET', url: '/docs/json' })).json<{
      openapi: string;
      paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown; responses: Record<string, { content?: Record<string, unknown> }> }>>;
    }>();
    assert.match(doc.openapi, /^3\.1/);
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400 || response.content === undefined) continue;
          assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${method} ${path} ${status}`);
        }
        const takesInput = op.requestBody !== undefined || (op.parameters ?? []).length > 0;
        if (takesInput) assert.ok(op.responses['400'] !== undefined, `${method} ${path} declares no 400`);
      }
    }
    assert.ok(operations >= 8, `only ${operations} operations documented`);
  });
});
