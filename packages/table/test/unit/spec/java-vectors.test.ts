/**
 * Golden vectors written by Paimon Java 1.4.2 and pypaimon 2.1.0 (test/vectors/spec, see its
 * README): BinaryRow bytes and hashes, partition directory names, schema and snapshot files; and
 * Tributary-written schema/snapshot files that Paimon Java re-read and re-printed unchanged.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decodeBinaryRow, serializeBinaryRow } from '../../../src/spec/binary-row.ts';
import { murmurHashBinaryRow } from '../../../src/spec/bucket.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import { parseDecimalPlain } from '../../../src/spec/java-text.ts';
import { partitionPath } from '../../../src/spec/partition-path.ts';
import { decodeSnapshot, encodeSnapshot } from '../../../src/spec/snapshot.ts';
import { decodeTableSchema, encodeTableSchema, validateTableSchema } from '../../../src/spec/table-schema.ts';
import type { DataType, InternalValue } from '../../../src/spec/types.ts';
import { TRIBUTARY_SCHEMA, TRIBUTARY_SNAPSHOT } from '../../vectors/spec/tributary-json-values.ts';

const DIR = join(import.meta.dirname, '../../vectors/spec');
const read = (name: string): string => readFileSync(join(DIR, name), 'utf8');
const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

/** The typed text form of MakeSpecVectors.java. */
function value(text: string, type: DataType): InternalValue {
  if (text === 'N') return null;
  const body = text.slice(2);
  const view = new DataView(new ArrayBuffer(8));
  switch (text[0]) {
    case 'Z': return body === 'true';
    case 'I': return Number(body);
    case 'L': return BigInt(body);
    case 'F': view.setUint32(0, parseInt(body, 16)); return view.getFloat32(0);
    case 'G': view.setBigUint64(0, BigInt('0x' + body)); return view.getFloat64(0);
    case 'M': {
      assert.equal(type.root, 'DECIMAL');
      const v = type.root === 'DECIMAL' ? parseDecimalPlain(body, type.precision, type.scale) : undefined;
      assert.ok(v !== undefined, text);
      return v;
    }
    case 'S': return Buffer.from(body, 'hex').toString('utf8');
    case 'B': return fromHex(body);
    case 'T': {
      const [ms, nanos] = body.split(':').map(Number);
      return { epochMillis: ms ?? NaN, nanoOfMillis: nanos ?? NaN };
    }
    default: throw new Error(`bad value ${text}`);
  }
}

const lines = read('java-1.4.2-rows-and-partitions.tsv').split('\n').filter((l) => l !== '').map((l) => l.split('\t'));

describe('BinaryRow vectors from Paimon Java 1.4.2 (InternalRowSerializer, BinaryRow.hashCode)', () => {
  for (const [kind, typeText = '', valueText = '', hex = '', hash = ''] of lines.filter((l) => l[0] === 'ROW')) {
    assert.equal(kind, 'ROW');
    const types = typeText === '' ? [] : typeText.split(';').map((t) => parseDataType(t));
    const values = valueText.split(';').map((v, i) => value(v, types[i] as DataType));
    test(`${typeText.length > 60 ? `${types.length} fields` : typeText} = ${valueText.length > 60 ? '…' : valueText}`, () => {
      const bytes = serializeBinaryRow(values, types);
      assert.equal(Buffer.from(bytes).toString('hex'), hex);
      assert.equal(murmurHashBinaryRow(bytes.subarray(4)), Number(hash));
      const back = decodeBinaryRow(fromHex(hex), types);
      back.forEach((b, i) => {
        const v = values[i] ?? null;
        if (typeof v === 'number' && Number.isNaN(v)) assert.ok(Number.isNaN(b));
        else assert.deepEqual(b, v);
      });
    });
  }
});

describe('partition paths from Paimon Java 1.4.2 (InternalRowPartitionComputer, PartitionPathUtils)', () => {
  for (const [, legacy, typeText = '', names = '', valueText = '', path] of lines.filter((l) => l[0] === 'PART')) {
    const types = typeText.split(';').map((t) => parseDataType(t));
    const fields = names.split(';').map((name, id) => ({ id, name, type: types[id] as DataType }));
    const values = valueText.split(';').map((v, i) => value(v, types[i] as DataType));
    test(`legacy=${legacy} ${typeText}`, () => {
      assert.equal(partitionPath(values, fields, { legacyName: legacy === 'true' }), path);
    });
  }
});

describe('schema and snapshot files written by Paimon Java 1.4.2', () => {
  for (const name of ['java-1.4.2/all-types-schema-0', 'java-1.4.2/append-schema-0']) {
    test(`${name} re-encodes byte for byte`, () => {
      const text = read(name);
      assert.equal(encodeTableSchema(decodeTableSchema(text)), text);
    });
  }
  test('the all-types schema parses to every atomic type and passes validation', () => {
    const s = decodeTableSchema(read('java-1.4.2/all-types-schema-0'));
    assert.deepEqual(s.fields.map((f) => f.type.root), [
      'BIGINT', 'DATE', 'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'FLOAT', 'DOUBLE', 'DECIMAL', 'CHAR', 'VARCHAR', 'VARCHAR',
      'BINARY', 'VARBINARY', 'VARBINARY', 'TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ',
    ]);
    assert.equal(s.fields[11]?.description, 'with "quotes"\nand a newline');
    validateTableSchema(s);
  });
  for (const name of ['java-1.4.2/all-types-snapshot-1', 'java-1.4.2/pk-snapshot-3-compact', 'java-1.4.2/pk-snapshot-4-overwrite']) {
    test(`${name} re-encodes byte for byte`, () => {
      const text = read(name);
      const s = decodeSnapshot(text);
      assert.equal(s.commitIdentifier, 9223372036854775807n);
      assert.equal(encodeSnapshot(s), text);
    });
  }
});

describe('schema and snapshot files written by pypaimon 2.1.0', () => {
  test('pk schema (explicit "comment": null) decodes', () => {
    const s = decodeTableSchema(read('pypaimon-2.1.0/pk-schema-0'));
    assert.deepEqual(s.primaryKeys, ['id', 'dt']);
    assert.deepEqual(s.partitionKeys, ['dt']);
    assert.equal(s.comment, undefined);
    assert.equal(s.fields[1]?.type.nullable, false);
  });
  test('append schema decodes', () => assert.deepEqual(decodeTableSchema(read('pypaimon-2.1.0/append-schema-0')).primaryKeys, []));
  for (const name of ['pypaimon-2.1.0/pk-snapshot-3', 'pypaimon-2.1.0/append-snapshot-1']) {
    test(`${name} decodes with exact longs`, () => {
      const s = decodeSnapshot(read(name));
      assert.equal(s.commitIdentifier, 9223372036854775807n);
      assert.match(s.writerVersion ?? '', /^python-2\.1\.0/);
      assert.ok(s.uuid !== null);
      assert.deepEqual(decodeSnapshot(encodeSnapshot(s)), s);
    });
  }
});

describe('files written by Tributary and re-printed by Paimon Java 1.4.2', () => {
  test('schema-0: our encoder writes the checked-in bytes, and Java re-prints them unchanged', () => {
    const text = read('tributary/schema-0');
    assert.equal(encodeTableSchema(TRIBUTARY_SCHEMA), text);
    assert.equal(read('tributary/schema-0.java-reread'), text);
  });
  test('snapshot-7: our encoder writes the checked-in bytes, and Java re-prints them unchanged', () => {
    const text = read('tributary/snapshot-7');
    assert.equal(encodeSnapshot(TRIBUTARY_SNAPSHOT), text);
    assert.equal(read('tributary/snapshot-7.java-reread'), text);
  });
});
