import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactSource } from '../../src/access.ts';
import { MysqlSourceSpec, mysqlShardId, nameMatcher, type MysqlShard } from '../../src/mysql/spec.ts';
import { chunkEndSelect, keyCondition, nextKeySelect, quoteIdentifier, shardSelect } from '../../src/mysql/sql.ts';
import { SyncSourceSpec } from '../../src/registry.ts';

test('name patterns: LIKE semantics (case-sensitive) or an exact list', () => {
  const cases: [pattern: string | string[], name: string, matches: boolean][] = [
    ['shop_%', 'shop_0', true],
    ['shop_%', 'shop', false], // `_` needs one character
    ['shop_%', 'shopX12', true], // `_` is any character, as in SQL
    ['shop\\_%', 'shopX12', false],
    ['shop\\_%', 'shop_12', true],
    ['orders_%', 'Orders_1', false],
    ['%', 'anything', true],
    ['a.b', 'axb', false], // no regular-expression leaks
    ['a.b', 'a.b', true],
    ['x%y', 'x\ny', true],
    [['shop_0', 'shop_2'], 'shop_2', true],
    [['shop_0', 'shop_2'], 'shop_1', false],
    [['shop_%'], 'shop_1', false], // a list is exact
  ];
  for (const [pattern, name, matches] of cases) assert.equal(nameMatcher(pattern)(name), matches, `${JSON.stringify(pattern)} ~ ${name}`);
});

test('name patterns: every other character is itself (a database named shop-eu, MySQL quoting characters)', () => {
  // The pattern becomes a `u` regular expression, which refuses escapes such as `\-`: a name with
  // a `-` threw "Invalid regular expression" for every pattern holding one.
  for (let code = 32; code < 127; code++) {
    const ch = String.fromCharCode(code);
    if (ch === '%' || ch === '_' || ch === '\\') continue;
    const name = `a${ch}b`;
    assert.equal(nameMatcher(name)(name), true, `${JSON.stringify(name)} matches itself`);
    assert.equal(nameMatcher(name)(`a${ch === 'x' ? 'y' : 'x'}b`), false, `${JSON.stringify(name)} matches only itself`);
  }
  assert.equal(nameMatcher('shop-eu%')('shop-eu-2'), true);
  assert.equal(nameMatcher('日本_%')('日本_1'), true);
});

test('shard ids sort as (database, table, part)', () => {
  const pairs: [string, string, number?][] = [
    ['shop_1', 'orders_10'],
    ['shop_1', 'orders_1'],
    ['shop_0', 'orders_2'],
    ['shop_10', 'orders_0'],
    ['shop_1a', 'orders_0'],
  ];
  const byTuple = [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const ids = pairs.map(([d, t]) => mysqlShardId(d, t)).sort();
  assert.deepEqual(ids, byTuple.map(([d, t]) => mysqlShardId(d, t)));
  const parts = [2, 0, 11, 1].map((p) => mysqlShardId('shop_1', 'orders_1', p)).sort();
  assert.deepEqual(parts, ['shop_1.orders_1.p00000', 'shop_1.orders_1.p00001', 'shop_1.orders_1.p00002', 'shop_1.orders_1.p00011']);
  assert.ok(mysqlShardId('shop_1', 'orders_1', 99_999) < mysqlShardId('shop_1', 'orders_10'));
});

test('key conditions over composite keys are lexicographic ORs; numbers are literals, strings parameters', () => {
  const key: MysqlShard['key'] = [
    { name: 'tenant', kind: 'number' },
    { name: 'code', kind: 'string' },
    { name: 'raw', kind: 'bytes' },
  ];
  assert.deepEqual(keyCondition(key, ['-7', 'a', '00ff'], '>='), {
    sql: "(`tenant` > -7) OR (`tenant` = -7 AND `code` > ?) OR (`tenant` = -7 AND `code` = ? AND `raw` >= X'00ff')",
    params: ['a', 'a'],
  });
  assert.deepEqual(keyCondition(key.slice(0, 1), ['18446744073709551615'], '<'), { sql: '`tenant` < 18446744073709551615', params: [] });
  assert.throws(() => keyCondition(key.slice(0, 1), ['1 OR 1=1'], '>'), RangeError);
  assert.throws(() => keyCondition(key.slice(2), ["00'"], '>'), RangeError);
  assert.throws(() => keyCondition(key, ['1'], '>'), RangeError);
});

test('a shard select reads its range in key order, after a resume point', () => {
  const shard: MysqlShard = { database: 'shop`0', table: 'orders', key: [{ name: 'id', kind: 'number' }], from: ['100'], to: ['200'] };
  assert.deepEqual(shardSelect(shard, ['id', 'note'], ['150']), {
    sql: 'SELECT `id`, `note` FROM `shop``0`.`orders` WHERE (`id` >= 100) AND (`id` > 150) AND (`id` < 200) ORDER BY `id`',
    params: [],
  });
  assert.equal(shardSelect({ ...shard, from: undefined, to: undefined }, ['id']).sql, 'SELECT `id` FROM `shop``0`.`orders` ORDER BY `id`');
  assert.equal(quoteIdentifier('a`b'), '`a``b`');
});

test('chunk boundaries are a keyset walk: the greatest key of the next n rows, then the first key after it; never OFFSET', () => {
  const shard = { database: 'shop', table: 'items', key: [{ name: 'tenant', kind: 'number' as const }, { name: 'code', kind: 'string' as const }] };
  assert.deepEqual(chunkEndSelect(shard, 1000), {
    sql: 'SELECT `tenant`, `code` FROM (SELECT `tenant`, `code` FROM `shop`.`items` ORDER BY `tenant`, `code` LIMIT 1000) AS chunk ORDER BY `tenant` DESC, `code` DESC LIMIT 1',
    params: [],
  });
  assert.deepEqual(chunkEndSelect(shard, 7, ['3', 'b']), {
    sql: 'SELECT `tenant`, `code` FROM (SELECT `tenant`, `code` FROM `shop`.`items` WHERE (`tenant` > 3) OR (`tenant` = 3 AND `code` >= ?) ORDER BY `tenant`, `code` LIMIT 7) AS chunk ORDER BY `tenant` DESC, `code` DESC LIMIT 1',
    params: ['b'],
  });
  assert.deepEqual(nextKeySelect(shard, ['3', 'b']), {
    sql: 'SELECT `tenant`, `code` FROM `shop`.`items` WHERE (`tenant` > 3) OR (`tenant` = 3 AND `code` > ?) ORDER BY `tenant`, `code` LIMIT 1',
    params: ['b'],
  });
  for (const { sql } of [chunkEndSelect(shard, 5, ['1', 'a']), nextKeySelect(shard, ['1', 'a'])]) assert.doesNotMatch(sql, /OFFSET/i);
  assert.throws(() => chunkEndSelect(shard, 0), RangeError);
});

test('the mysql spec joins the source union; it names a connection, or carries inline credentials, never both', () => {
  const spec = SyncSourceSpec.parse({ kind: 'mysql', connection: 'orders-db', databases: 'shop_%', tables: ['orders_0'] });
  assert.equal(spec.kind, 'mysql');
  const mysql = MysqlSourceSpec.parse(spec);
  assert.equal(mysql.connection, 'orders-db');
  assert.equal(mysql.port, undefined);
  assert.equal(MysqlSourceSpec.safeParse({ ...spec, splitRows: 0 }).success, false);
  assert.equal(MysqlSourceSpec.safeParse({ ...spec, connection: 'no spaces' }).success, false);
  assert.equal(MysqlSourceSpec.safeParse({ ...spec, host: 'db' }).success, false, 'a connection and a host');
  assert.equal(MysqlSourceSpec.safeParse({ ...spec, connection: undefined }).success, false, 'neither');
  assert.equal(MysqlSourceSpec.safeParse({ ...spec, connection: undefined, host: 'db', user: 'u', password: 'p' }).success, true);
  assert.equal(MysqlSourceSpec.safeParse({ ...spec, connection: undefined, host: 'db', user: 'u', password: { env: 'PW' } }).success, false, 'no environment references');
});

test('an inline password is redacted wherever a plan is shown', () => {
  const inline = { kind: 'mysql', host: 'db', password: 'secret' };
  assert.deepEqual(redactSource(inline), { kind: 'mysql', host: 'db', password: '***' });
  assert.equal(inline.password, 'secret'); // the plan itself keeps it for the workers
  assert.deepEqual(redactSource({ kind: 'generator', shards: 2 }), { kind: 'generator', shards: 2 });
});
