/**
 * The PostgreSQL source's pure parts: the type mapping (every row of the README's table, both ways:
 * what fits and the nearest that does not), the SQL of ranges and cuts, and the binary COPY decoder
 * (numeric digits, timestamps without a float, rows cut anywhere between chunks).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDataTypeString } from '@tributary/table';
import { CopyBinaryReader, binaryDecoder, numericText, timestampValue } from '../../src/postgres/binary.ts';
import { checkColumns, splitRanges } from '../../src/postgres/plan.ts';
import { naturalType } from '../../src/postgres/schema.ts';
import { PostgresSourceSpec, isShardSafeTriple, postgresShardId, type PostgresShard } from '../../src/postgres/spec.ts';
import { keyCondition, keyLiteral, nextCutQuery, shardCopy, shardSelect } from '../../src/postgres/sql.ts';
import { incompatibility, keyKind, numericTypmod, type PostgresColumn } from '../../src/postgres/types.ts';
import { isTributaryError } from '@tributary/protocol';

/** A column as pg_attribute/pg_type give it: `numeric(12,2)` has typmod (12 << 16 | 2) + 4, `varchar(10)` 14. */
function column(typeName: string, typmod = -1, extra: Partial<PostgresColumn> = {}): PostgresColumn {
  return { name: 'c', typeName, typeKind: 'b', category: '', typmod, typeText: typeName, ...extra };
}
const numeric = (p: number, s: number) => column('numeric', ((p << 16) | (s & 0x7ff)) + 4);
const fits = (c: PostgresColumn, type: string) => incompatibility(c, parseDataTypeString(type)) === undefined;

test('type mapping: each PostgreSQL type loads into exactly the Paimon types that hold all its values', () => {
  const table: [PostgresColumn, string[], string[]][] = [
    [column('bool'), ['BOOLEAN'], ['TINYINT', 'STRING']],
    [column('int2'), ['SMALLINT', 'INT', 'BIGINT', 'DECIMAL(5, 0)', 'DECIMAL(7, 2)'], ['TINYINT', 'DECIMAL(4, 0)', 'DOUBLE', 'STRING']],
    [column('int4'), ['INT', 'BIGINT', 'DECIMAL(10, 0)'], ['SMALLINT', 'DECIMAL(9, 0)', 'DECIMAL(11, 2)']],
    [column('int8'), ['BIGINT', 'DECIMAL(19, 0)', 'DECIMAL(38, 19)'], ['INT', 'DECIMAL(18, 0)', 'DOUBLE']],
    [numeric(12, 2), ['DECIMAL(12, 2)', 'DECIMAL(13, 3)', 'DECIMAL(38, 10)', 'STRING'], ['DECIMAL(12, 1)', 'DECIMAL(11, 2)', 'DOUBLE', 'VARCHAR(100)']],
    [numeric(3, -2), ['DECIMAL(5, 0)', 'DECIMAL(7, 2)'], ['DECIMAL(4, 0)']], // up to 99900
    [numeric(3, 5), ['DECIMAL(5, 5)', 'DECIMAL(6, 6)'], ['DECIMAL(4, 4)']], // up to 0.00999
    [column('numeric'), ['DECIMAL(38, 10)', 'DECIMAL(10, 0)', 'STRING'], ['DOUBLE', 'BIGINT']], // unconstrained: checked per value
    [column('float4'), ['FLOAT', 'DOUBLE'], ['DECIMAL(38, 10)', 'INT']],
    [column('float8'), ['DOUBLE'], ['FLOAT', 'DECIMAL(38, 10)']],
    [column('text'), ['STRING'], ['VARCHAR(100)', 'CHAR(10)', 'BYTES']],
    [column('varchar', 14), ['VARCHAR(10)', 'VARCHAR(11)', 'STRING'], ['VARCHAR(9)', 'CHAR(10)']],
    [column('varchar'), ['STRING'], ['VARCHAR(100)']],
    [column('bpchar', 9), ['CHAR(5)', 'CHAR(6)', 'VARCHAR(5)', 'STRING'], ['CHAR(4)', 'VARCHAR(4)']],
    [column('bpchar'), ['STRING'], ['CHAR(1)', 'VARCHAR(1)', 'VARCHAR(100)']], // a bare bpchar: no length, unbounded
    [column('uuid'), ['STRING', 'VARCHAR(36)', 'CHAR(36)'], ['VARCHAR(35)', 'BINARY(16)', 'BYTES']],
    [column('json'), ['STRING'], ['VARCHAR(1000)', 'BYTES']],
    [column('jsonb'), ['STRING'], ['VARCHAR(1000)']],
    [column('mood', -1, { typeKind: 'e', enumLength: 8 }), ['VARCHAR(8)', 'STRING'], ['VARCHAR(7)', 'INT']],
    [column('bytea'), ['BYTES'], ['VARBINARY(100)', 'BINARY(16)', 'STRING']],
    [column('date'), ['DATE'], ['TIMESTAMP(3)', 'STRING']],
    [column('time'), ['TIME(3)'], ['TIME(0)', 'TIMESTAMP(6)']], // time(6): milliseconds kept, finer digits refused per value
    [column('time', 0), ['TIME(0)', 'TIME(3)'], ['STRING']],
    [column('timestamp'), ['TIMESTAMP(6)', 'TIMESTAMP(9)'], ['TIMESTAMP(3)', 'TIMESTAMP_LTZ(6)', 'DATE']],
    [column('timestamp', 3), ['TIMESTAMP(3)'], ['TIMESTAMP(2)']],
    [column('timestamptz'), ['TIMESTAMP_LTZ(6)', 'TIMESTAMP(6)'], ['TIMESTAMP_LTZ(3)', 'STRING']],
    [column('interval'), [], ['STRING', 'BIGINT']],
    [column('money'), [], ['DECIMAL(38, 2)']],
    [column('timetz'), [], ['TIME(3)', 'STRING']],
    [column('inet'), [], ['STRING']],
  ];
  for (const [c, accepted, refused] of table) {
    for (const type of accepted) assert.ok(fits(c, type), `${c.typeName}(${c.typmod}) into ${type}`);
    for (const type of refused) assert.ok(!fits(c, type), `${c.typeName}(${c.typmod}) not into ${type}`);
  }
});

test('a table made from the source: a bare bpchar (no length) is STRING, a char(n) CHAR(n); each natural type loads its column', () => {
  for (const [c, expected] of [
    [column('bpchar'), 'STRING'],
    [column('bpchar', 9), 'CHAR(5)'],
    [column('varchar'), 'STRING'],
  ] as const) {
    const natural = naturalType(c);
    assert.ok(natural !== undefined);
    assert.deepEqual(natural, parseDataTypeString(expected), `${c.typeName}(${c.typmod})`);
    assert.ok(fits(c, expected), `${c.typeName}(${c.typmod}) loads into its natural ${expected}`);
  }
});

test('arrays and domains are refused with a reason of their own; refusals name the types, never a value', () => {
  assert.match(incompatibility(column('_int4', -1, { category: 'A', typeText: 'integer[]' }), parseDataTypeString('STRING')) ?? '', /integer\[\] is an array, and the table format has no ARRAY type/);
  assert.match(incompatibility(column('positive', -1, { typeKind: 'd', typeText: 'positive' }), parseDataTypeString('INT')) ?? '', /domain type/);
  assert.equal(incompatibility(numeric(14, 2), parseDataTypeString('DECIMAL(12, 2)')), 'PostgreSQL numeric cannot be loaded into DECIMAL(12, 2) without loss');
  assert.deepEqual(numericTypmod(((38 << 16) | 10) + 4), { precision: 38, scale: 10 });
  assert.deepEqual(numericTypmod(((3 << 16) | (-2 & 0x7ff)) + 4), { precision: 3, scale: -2 });
  assert.equal(numericTypmod(-1), undefined);
});

test('checkColumns: exactly the target columns, or the listed ones; a NOT NULL target column must be read', () => {
  const t = { database: 'd', schema: 's', table: 't' };
  const columns = new Map([
    ['id', { ...column('int8'), name: 'id' }],
    ['note', { ...column('text'), name: 'note' }],
  ]);
  const target = [
    { name: 'id', type: parseDataTypeString('BIGINT NOT NULL') },
    { name: 'note', type: parseDataTypeString('STRING') },
  ];
  assert.deepEqual(checkColumns(t, columns, target), ['id', 'note']);
  const refused = (f: () => unknown, column: string) =>
    assert.throws(f, (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SCHEMA_MISMATCH' && e.context.column === column && e.context.schema === 's');
  refused(() => checkColumns(t, columns, target.slice(0, 1)), 'note');
  assert.deepEqual(checkColumns(t, columns, target.slice(0, 1), ['id']), ['id']);
  refused(() => checkColumns(t, columns, target, ['note']), 'id');
  refused(() => checkColumns(t, new Map([['id', { ...column('int4'), name: 'id' }]]), [{ name: 'id', type: parseDataTypeString('SMALLINT') }]), 'id');
});

test('key kinds, shard ids and the spec', () => {
  assert.equal(keyKind(column('int4')), 'integer');
  assert.equal(keyKind(column('numeric')), 'numeric');
  assert.equal(keyKind(column('bpchar')), 'text');
  assert.equal(keyKind(column('uuid')), 'uuid');
  assert.equal(keyKind(column('timestamp')), undefined);
  assert.equal(keyKind(column('bytea')), undefined);
  assert.equal(postgresShardId('shop_1', 'public', 'orders', 3), 'shop_1.public.orders.p00003');
  assert.ok(isShardSafeTriple('a', 'b', 'c'));
  assert.ok(!isShardSafeTriple('a-b', 'b', 'c'));
  assert.ok(!isShardSafeTriple('a'.repeat(50), 'b'.repeat(50), 'c'.repeat(50)), 'the id would pass ShardId 128 characters');
  assert.deepEqual(PostgresSourceSpec.parse({ kind: 'postgres', connection: 'pg', databases: 'shop_%', tables: ['t'] }), {
    kind: 'postgres',
    connection: 'pg',
    databases: 'shop_%',
    schemas: 'public',
    tables: ['t'],
    batchRows: 10_000,
  });
});

test('SQL: row comparisons over the key, literals checked or quoted, a keyset walk for cuts (no OFFSET)', () => {
  const shard: PostgresShard = {
    database: 'd',
    schema: 'sales',
    table: 'or"ders',
    key: [
      { name: 'tenant', kind: 'integer' },
      { name: 'code', kind: 'text' },
    ],
    from: ['1', "o'neil"],
    to: ['3', 'a'],
  };
  assert.equal(
    shardSelect(shard, ['code', 'qty']),
    `SELECT "code", "qty" FROM "sales"."or""ders" WHERE ("tenant", "code") >= (1, 'o''neil') AND ("tenant", "code") < (3, 'a') ORDER BY "tenant", "code"`,
  );
  assert.match(shardSelect(shard, ['code'], ['2', 'x']), /AND \("tenant", "code"\) > \(2, 'x'\) AND/);
  assert.equal(shardCopy('SELECT 1'), 'COPY (SELECT 1) TO STDOUT (FORMAT binary)');
  assert.equal(keyCondition([{ name: 'id', kind: 'numeric' }], ['-12.50'], '<'), '"id" < -12.50');
  assert.throws(() => keyLiteral({ name: 'id', kind: 'integer' }, '1; DROP TABLE x'), /key column id is not an integer/);
  assert.throws(() => keyLiteral({ name: 'u', kind: 'uuid' }, "' OR 1=1"), /not a uuid/);
  assert.throws(() => keyLiteral({ name: 'id', kind: 'numeric' }, 'NaN'), /not a plain number/);
  const cut = nextCutQuery(shard, 1000, ['2', 'b']);
  assert.ok(!/OFFSET/i.test(cut));
  assert.match(cut, /WHERE \("tenant", "code"\) >= \(2, 'b'\) ORDER BY "tenant", "code" LIMIT 1001\) AS walked\) AS numbered WHERE tributary_row = 1001$/);
  assert.deepEqual(splitRanges([['5'], ['9']]), [{ to: ['5'] }, { from: ['5'], to: ['9'] }, { from: ['9'] }]);
});

/** numeric's send format: ndigits, weight, sign, dscale, then base-10000 digits. */
function numericBytes(weight: number, sign: number, dscale: number, digits: number[]): Buffer {
  const b = Buffer.alloc(8 + 2 * digits.length);
  b.writeUInt16BE(digits.length, 0);
  b.writeInt16BE(weight, 2);
  b.writeUInt16BE(sign, 4);
  b.writeUInt16BE(dscale, 6);
  digits.forEach((d, i) => b.writeUInt16BE(d, 8 + 2 * i));
  return b;
}

test('numeric: base-10000 digits written out exactly, with dscale places; NaN and infinities as such', () => {
  assert.equal(numericText(numericBytes(1, 0, 2, [12, 3456, 7800]), 0), '123456.78');
  assert.equal(numericText(numericBytes(0, 0x4000, 3, [1, 5000]), 0), '-1.500');
  assert.equal(numericText(numericBytes(-2, 0, 8, [12]), 0), '0.00000012');
  assert.equal(numericText(numericBytes(2, 0, 0, [1]), 0), '100000000');
  assert.equal(numericText(numericBytes(0, 0, 0, []), 0), '0');
  assert.equal(numericText(numericBytes(-1, 0, 2, []), 0), '0.00');
  assert.equal(numericText(numericBytes(0, 0xc000, 0, []), 0), 'NaN');
  assert.equal(numericText(numericBytes(0, 0xd000, 0, []), 0), 'Infinity');
  assert.equal(numericText(numericBytes(0, 0xf000, 0, []), 0), '-Infinity');
});

test('timestamps: microseconds from 2000-01-01 to exact instants, without a float, at both ends of the range', () => {
  const at = (micros: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(micros);
    return timestampValue(b.readInt32BE(0), b.readUInt32BE(4));
  };
  assert.deepEqual(at(0n), { epochMillis: 946_684_800_000, nanoOfMillis: 0 });
  assert.deepEqual(at(-1n), { epochMillis: 946_684_799_999, nanoOfMillis: 999_000 });
  assert.deepEqual(at(-946_684_800_000_001n), { epochMillis: -1, nanoOfMillis: 999_000 });
  const far = 8_000_000_000_000_000_123n; // about year 255,000
  assert.deepEqual(at(far), { epochMillis: Number((far + 946_684_800_000_000n) / 1000n), nanoOfMillis: 123_000 });
  assert.deepEqual(at(-far), { epochMillis: Number((-far + 946_684_800_000_000n - 999n) / 1000n), nanoOfMillis: 877_000 });
  assert.equal(at(2n ** 63n - 1n), 'infinity');
  assert.equal(at(-(2n ** 63n)), '-infinity');
});

test('the COPY reader: rows cut at every byte between two chunks decode the same; NULLs; a stream without its trailer is refused', () => {
  const decoders = ['int8', 'text', 'float8', 'bool', 'uuid', 'bytea', 'date'].map((t) => binaryDecoder(t) ?? assert.fail(t));
  const field = (bytes: Buffer | null) => {
    const length = Buffer.alloc(4);
    length.writeInt32BE(bytes === null ? -1 : bytes.length);
    return bytes === null ? length : Buffer.concat([length, bytes]);
  };
  const int8 = (v: bigint) => Buffer.from(new BigInt64Array([v]).buffer).reverse();
  const float8 = (v: number) => Buffer.from(new Float64Array([v]).buffer).reverse();
  const int4 = (v: number) => Buffer.from(new Int32Array([v]).buffer).reverse();
  const row = (fields: (Buffer | null)[]) => Buffer.concat([Buffer.from([0, fields.length]), ...fields.map(field)]);
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const stream = Buffer.concat([
    header,
    row([int8(-(2n ** 63n)), Buffer.from('😀 订单'), float8(-0), Buffer.from([1]), Buffer.from('00112233445566778899aabbccddeeff', 'hex'), Buffer.from([0, 255]), int4(-1)]),
    row([int8(7n), null, null, null, null, null, null]),
    row([int8(8n), Buffer.alloc(0), float8(Number.NaN), Buffer.from([0]), null, Buffer.alloc(0), int4(0x7fffffff)]),
    Buffer.from([0xff, 0xff]),
  ]);
  const expected = [
    [-(2n ** 63n), '😀 订单', -0, true, '00112233-4455-6677-8899-aabbccddeeff', Uint8Array.of(0, 255), new Date('1999-12-31T00:00:00Z')],
    [7n, null, null, null, null, null, null],
    [8n, '', Number.NaN, false, null, new Uint8Array(), 'infinity'],
  ];
  for (let cut = 0; cut <= stream.length; cut++) {
    const reader = new CopyBinaryReader(decoders);
    const rows = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
    reader.end();
    assert.deepEqual(rows, expected, `cut at ${cut}`);
  }
  const unfinished = new CopyBinaryReader(decoders);
  unfinished.push(stream.subarray(0, stream.length - 2));
  assert.throws(() => unfinished.end(), /without its trailer/);
  assert.throws(() => new CopyBinaryReader(decoders).push(Buffer.alloc(40)), /not a binary COPY stream/);
  assert.throws(() => binaryDecoder('text')?.(Buffer.from([0xff, 0xfe]), 0, 2), TypeError, 'text that is not UTF-8 is refused');
  // A leading U+FEFF is a character of the value (a default UTF-8 decoder drops it).
  for (const type of ['text', 'varchar', 'bpchar', 'json']) {
    const bytes = Buffer.from('x\uFEFFab', 'utf8');
    assert.equal(binaryDecoder(type)?.(bytes, 1, bytes.length), '\uFEFFab', type);
  }
});
