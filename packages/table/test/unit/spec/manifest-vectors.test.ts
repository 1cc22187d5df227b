/**
 * Golden vectors (test/vectors/paimon, see its README): manifests written by Paimon Java 1.4.2,
 * by pypaimon 2.1.0 in every codec and 1.4.2, and by us. Each comes with Paimon Java's own reading of it
 * (`<name>.dump.txt`); our decoder must read exactly the same values. Plus one index manifest
 * of a dynamic-bucket table, which we only read (to refuse such tables).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import type { AvroRecord, AvroSchema } from '../../../src/avro/avro.ts';
import { readAvroFile, writeAvroFile } from '../../../src/avro/avro-container.ts';
import { decodeIndexManifest } from '../../../src/spec/index-manifest-entry.ts';
import { decodeManifestFile, encodeManifestFile, MANIFEST_ENTRY_SCHEMA } from '../../../src/spec/manifest-entry.ts';
import { decodeManifestList, encodeManifestList, MANIFEST_FILE_META_SCHEMA } from '../../../src/spec/manifest-file-meta.ts';
import { entryLine, metaLine, SAMPLE_ENTRIES, sampleList } from './manifest-fixtures.ts';

const vectors = new URL('../../vectors/paimon/', import.meta.url);
const read = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, vectors)));

/** Decodes `<dir>/<name>-manifest-list` and its manifests into the lines Java's dump prints. */
function decodedLines(dir: string, name: string): string[] {
  const lines: string[] = [];
  decodeManifestList(read(`${dir}/${name}-manifest-list`)).forEach((meta, i) => {
    lines.push(metaLine(meta));
    for (const entry of decodeManifestFile(read(`${dir}/${name}-manifest-${i}`))) lines.push(entryLine(entry));
  });
  return lines;
}

for (const dir of ['java-1.4.2', 'pypaimon-2.1.0', 'pypaimon-1.4.2', 'tributary']) {
  const files = readdirSync(new URL(`${dir}/`, vectors));
  const names = files.filter((f) => f.endsWith('-manifest-list')).map((f) => f.slice(0, -'-manifest-list'.length));
  for (const name of names) {
    test(`${dir}/${name}: we read the same values as Paimon Java`, () => {
      const expected = readFileSync(new URL(`${dir}/${name}.dump.txt`, vectors), 'utf8').trimEnd().split('\n');
      assert.ok(expected.some((l) => l.startsWith('ENTRY ')), 'the vector has entries');
      assert.deepStrictEqual(decodedLines(dir, name), expected);
    });
  }
}

test('the vectors cover ADD and DELETE, every codec, compaction output and both null and set optional fields', () => {
  const all = ['java-1.4.2/pk-compact', 'java-1.4.2/pk-overwrite', 'pypaimon-2.1.0/pk-overwrite-snappy', 'tributary/sample']
    .flatMap((p) => readFileSync(new URL(`${p}.dump.txt`, vectors), 'utf8').split('\n'));
  for (const needle of ['ENTRY ADD', 'ENTRY DELETE', 'fileSource=COMPACT', 'level=5', 'valueStatsCols=null', 'valueStatsCols=[]', 'externalPath=s3://']) {
    assert.ok(all.some((l) => l.includes(needle)), needle);
  }
  const codecs = readdirSync(new URL('pypaimon-2.1.0/', vectors)).filter((f) => f.endsWith('-manifest-0'))
    .map((f) => readAvroFile(read(`pypaimon-2.1.0/${f}`)).codec).sort();
  assert.deepStrictEqual(codecs, ['deflate', 'null', 'snappy', 'zstandard', 'zstandard']);
});

test('our manifest-entry schema is the header Paimon Java 1.4.2 writes, plus master\'s _WRITE_COLS_SEQUENCES', () => {
  const java = new TextDecoder().decode(readAvroFile(read('java-1.4.2/pk-compact-manifest-0')).metadata.get('avro.schema'));
  const appended = ',{"name":"_WRITE_COLS_SEQUENCES","type":["null",{"type":"array","items":"long"}],"default":null}]}}]}';
  assert.equal(JSON.stringify(MANIFEST_ENTRY_SCHEMA), java.slice(0, -']}}]}'.length) + appended);
});

test('our manifest-list schema is exactly the header Paimon Java 1.4.2 writes', () => {
  const java = new TextDecoder().decode(readAvroFile(read('java-1.4.2/pk-compact-manifest-list')).metadata.get('avro.schema'));
  assert.equal(JSON.stringify(MANIFEST_FILE_META_SCHEMA), java);
});

// zstd output depends on the zstd library inside Node: after a Node upgrade that changes it, rerun
// write-tributary-vectors.ts and copy-vectors.sh (Java must read the new bytes) instead of editing this.
test('re-encoding the fixtures gives the very bytes Paimon Java was shown to read (tributary/)', () => {
  const manifests = [encodeManifestFile(SAMPLE_ENTRIES), encodeManifestFile([])];
  manifests.forEach((bytes, i) => assert.deepStrictEqual(bytes, read(`tributary/sample-manifest-${i}`)));
  const list = sampleList(manifests.map((bytes, i) => [`manifest-tributary-${i}`, BigInt(bytes.length)]));
  assert.deepStrictEqual(encodeManifestList(list), read('tributary/sample-manifest-list'));
  assert.equal(readAvroFile(manifests[0] as Uint8Array).codec, 'zstandard');
});

test('java-1.4.2/dynamic-index: index manifest entries read as Paimon Java reads them', () => {
  const expected = readFileSync(new URL('java-1.4.2/dynamic-index.dump.txt', vectors), 'utf8').trimEnd().split('\n');
  const lines = decodeIndexManifest(read('java-1.4.2/dynamic-index-manifest')).map((e) =>
    `INDEX ${e.kind} partition=${Buffer.from(e.partition).toString('hex')} bucket=${e.bucket} type=${e.indexType}`
    + ` file=${e.fileName} size=${e.fileSize} rows=${e.rowCount} externalPath=${e.externalPath}`);
  assert.ok(lines.length > 0);
  assert.deepStrictEqual(lines, expected);
});

test('an index manifest with a _VERSION other than 1 is refused', () => {
  const bytes = read('java-1.4.2/dynamic-index-manifest');
  const file = readAvroFile(bytes);
  const records = file.records.map((r) => ({ ...(r as AvroRecord), _VERSION: 2 }));
  assert.throws(() => decodeIndexManifest(writeAvroFile(file.schema as AvroSchema, records)), { code: 'MANIFEST_VERSION_UNSUPPORTED' });
});
