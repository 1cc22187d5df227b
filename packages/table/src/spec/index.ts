// '@tributary/table/spec': the codecs of Paimon's metadata files, for tests that check what a
// table holds on storage (the table API itself is '@tributary/table').
export { decodeBinaryRow } from './binary-row.ts';
export { bucketKeys, encodeTableSchema, type TableSchema } from './table-schema.ts';
export { decodeSnapshot } from './snapshot.ts';
export { decodeManifestFile, type ManifestEntry } from './manifest-entry.ts';
export { decodeManifestList } from './manifest-file-meta.ts';
