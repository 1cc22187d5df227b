import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  BATCH_COMMIT_IDENTIFIER,
  COMMIT_KINDS,
  decodeSnapshot,
  encodeSnapshot,
  snapshotsEqual,
  type Snapshot,
} from '../../../src/spec/snapshot.ts';
import { codeOf } from '../../support/code-of.ts';

// From Paimon's SnapshotTest (testSnapshotWriterVersion, testSnapshotWithOperation): Java's layout.
const JAVA_WRITER_VERSION = `{
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "m-0",
  "deltaManifestList" : "m-1",
  "commitUser" : "user",
  "writerVersion" : "java-2.1-SNAPSHOT-0123456789012345678901234567890123456789",
  "commitIdentifier" : 0,
  "commitKind" : "APPEND",
  "timeMillis" : 1000,
  "totalRecordCount" : 10,
  "deltaRecordCount" : 5
}`;
const JAVA_OPERATION = `{
  "version" : 3,
  "id" : 2,
  "schemaId" : 0,
  "baseManifestList" : "m-0",
  "deltaManifestList" : "m-1",
  "commitUser" : "user",
  "commitIdentifier" : 1,
  "commitKind" : "APPEND",
  "timeMillis" : 2000,
  "totalRecordCount" : 20,
  "deltaRecordCount" : 10,
  "operation" : "MERGE"
}`;

const full: Snapshot = {
  version: 3,
  uuid: '0b1c2d3e-0000-4000-8000-000000000001',
  id: 7n,
  schemaId: 0n,
  baseManifestList: 'manifest-list-4f0e-0',
  baseManifestListSize: 1207n,
  deltaManifestList: 'manifest-list-4f0e-1',
  deltaManifestListSize: 1099n,
  changelogManifestList: 'manifest-list-4f0e-2',
  changelogManifestListSize: 900n,
  indexManifest: 'index-manifest-aa-0',
  commitUser: 'sync-6a9f',
  writerVersion: null,
  commitIdentifier: BATCH_COMMIT_IDENTIFIER,
  commitKind: 'APPEND',
  timeMillis: 1724300000000n,
  totalRecordCount: 9007199254740993n,
  deltaRecordCount: -1000n,
  changelogRecordCount: 1000n,
  watermark: -9223372036854775808n,
  statistics: null,
  properties: new Map([['tributary.sync', 's-1'], ['2', 'x']]),
  nextRowId: 0n,
  operation: 'WRITE',
};

describe('snapshot JSON (Snapshot, JsonSerdeUtil)', () => {
  test("Java-written snapshots re-encode byte for byte (Paimon's SnapshotTest)", () => {
    for (const text of [JAVA_WRITER_VERSION, JAVA_OPERATION]) {
      assert.equal(encodeSnapshot(decodeSnapshot(text)), text);
    }
    assert.equal(decodeSnapshot(JAVA_OPERATION).operation, 'MERGE');
    assert.equal(decodeSnapshot(JAVA_WRITER_VERSION).uuid, null);
  });

  test('Long.MAX_VALUE, Long.MIN_VALUE and 2^53+1 survive exactly', () => {
    const text = encodeSnapshot(full);
    assert.ok(text.includes('"commitIdentifier" : 9223372036854775807,'));
    assert.ok(text.includes('"watermark" : -9223372036854775808,'));
    assert.ok(text.includes('"totalRecordCount" : 9007199254740993,'));
    const back = decodeSnapshot(text);
    assert.deepEqual(back, full);
    assert.equal(back.commitIdentifier, 9223372036854775807n);
    assert.ok(snapshotsEqual(back, full));
  });

  test('fields come in Java order and nulls are left out', () => {
    const keys = [...encodeSnapshot(full).matchAll(/^ {2}"(\w+)" :/gm)].map((m) => m[1]);
    assert.deepEqual(keys, [
      'version', 'uuid', 'id', 'schemaId', 'baseManifestList', 'baseManifestListSize', 'deltaManifestList',
      'deltaManifestListSize', 'changelogManifestList', 'changelogManifestListSize', 'indexManifest', 'commitUser',
      'commitIdentifier', 'commitKind', 'timeMillis', 'totalRecordCount', 'deltaRecordCount', 'changelogRecordCount',
      'watermark', 'properties', 'nextRowId', 'operation',
    ]);
    assert.ok(encodeSnapshot(full).includes('"properties" : {\n    "tributary.sync" : "s-1",\n    "2" : "x"\n  },'));
    assert.ok(!encodeSnapshot({ ...full, properties: new Map() }).includes('properties'));
  });

  test('reads bytes as well as text', () => {
    assert.deepEqual(decodeSnapshot(new TextEncoder().encode(JAVA_OPERATION)), decodeSnapshot(JAVA_OPERATION));
    assert.equal(codeOf(() => decodeSnapshot(new Uint8Array([0x7b, 0xff, 0x7d]))), 'SNAPSHOT_INVALID');
  });

  test('old files: logOffsets, explicit nulls and unknown keys are ignored', () => {
    const old = JAVA_WRITER_VERSION.replace(
      '"commitUser"',
      '"changelogManifestList" : null,\n  "logOffsets" : { },\n  "someFutureField" : [1, 2.5, {"a": null}],\n  "commitUser"',
    );
    const s = decodeSnapshot(old);
    assert.equal(s.changelogManifestList, null);
    assert.equal(encodeSnapshot(s), JAVA_WRITER_VERSION);
  });

  const required = [
    'version', 'id', 'schemaId', 'baseManifestList', 'deltaManifestList', 'commitUser', 'commitIdentifier',
    'commitKind', 'timeMillis', 'totalRecordCount', 'deltaRecordCount',
  ];
  for (const key of required) {
    test(`missing '${key}' is SNAPSHOT_INVALID`, () => {
      const obj = JSON.parse(JAVA_OPERATION) as Record<string, unknown>;
      delete obj[key];
      assert.equal(codeOf(() => decodeSnapshot(JSON.stringify(obj))), 'SNAPSHOT_INVALID');
    });
  }

  test('unknown enum values, wrong types and out-of-range longs are SNAPSHOT_INVALID', () => {
    for (const bad of [
      JAVA_OPERATION.replace('"APPEND"', '"MERGE_INTO"'),
      JAVA_OPERATION.replace('"MERGE"', '"UPSERT"'),
      JAVA_OPERATION.replace('"id" : 2', '"id" : "2"'),
      JAVA_OPERATION.replace('"id" : 2', '"id" : 2.5'),
      JAVA_OPERATION.replace('"commitIdentifier" : 1', '"commitIdentifier" : 9223372036854775808'),
      JAVA_OPERATION.replace('"version" : 3', '"version" : 3e40'),
      '{ "version" : 3, ',
      '"snapshot"',
    ]) {
      assert.equal(codeOf(() => decodeSnapshot(bad)), 'SNAPSHOT_INVALID', bad);
    }
  });

  test('round trip (fast-check) over every long field and optional field', () => {
    const long = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
    const str = fc.string({ unit: 'binary' });
    const arb = fc.record({
      version: fc.constant(3),
      uuid: opt(fc.uuid()),
      id: long,
      schemaId: long,
      baseManifestList: str,
      baseManifestListSize: opt(long),
      deltaManifestList: str,
      deltaManifestListSize: opt(long),
      changelogManifestList: opt(str),
      changelogManifestListSize: opt(long),
      indexManifest: opt(str),
      commitUser: str,
      writerVersion: opt(str),
      commitIdentifier: long,
      commitKind: fc.constantFrom(...COMMIT_KINDS),
      timeMillis: long,
      totalRecordCount: long,
      deltaRecordCount: long,
      changelogRecordCount: opt(long),
      watermark: opt(long),
      statistics: opt(str),
      properties: opt(fc.array(fc.tuple(fc.string(), fc.string()), { minLength: 1 }).map((es) => new Map(es))),
      nextRowId: opt(long),
      operation: opt(fc.constantFrom('WRITE', 'OVERWRITE', 'DELETE', 'MERGE' as const)),
    });
    fc.assert(
      fc.property(arb, (s) => {
        const back = decodeSnapshot(encodeSnapshot({ ...s }));
        assert.deepEqual({ ...back }, { ...s });
      }),
      { numRuns: 300 },
    );
  });
});
