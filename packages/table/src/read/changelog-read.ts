/**
 * The changelog rows one snapshot committed (its `changelogManifestList`), as a streaming reader
 * sees them: file by file in manifest order, each file in its own order, nothing merged (Paimon's
 * ScanMode.CHANGELOG read). Files whose key range cannot hold the key asked for are not opened.
 */
import { decodeBinaryRow } from '../spec/binary-row.ts';
import type { ManifestEntry } from '../spec/manifest-entry.ts';
import type { Snapshot } from '../spec/snapshot.ts';
import { fieldsByName, trimmedPrimaryKeys } from '../spec/table-schema.ts';
import type { InternalRow } from '../spec/types.ts';
import type { FileStoreScan } from '../snapshot/file-store-scan.ts';
import type { TableRead } from './table-read.ts';

/** One changelog row with where it is stored. */
export interface ChangelogRecord {
  readonly partition: Uint8Array;
  readonly bucket: number;
  readonly fileName: string;
  readonly sequenceNumber: bigint;
  /** RowKind byte: +I 0, -U 1, +U 2, -D 3. */
  readonly kind: number;
  /** All table columns. */
  readonly row: InternalRow;
  /** The trimmed primary key. */
  readonly key: InternalRow;
}

/** The changelog files of a snapshot (none when it has no changelogManifestList), in manifest order. */
export async function changelogFiles(scan: FileStoreScan, snapshot: Snapshot): Promise<ManifestEntry[]> {
  if (snapshot.changelogManifestList === null) return [];
  const entries: ManifestEntry[] = [];
  for (const meta of await scan.readManifestList(snapshot.changelogManifestList)) entries.push(...(await scan.readManifest(meta.fileName)));
  return entries.filter((e) => e.kind === 'ADD');
}

/**
 * The rows of the snapshot's changelog files. With `key` (trimmed primary-key values), only that
 * key's rows, and only files whose [minKey, maxKey] holds it are read.
 */
export async function* readChangelog(read: TableRead, scan: FileStoreScan, snapshot: Snapshot, key?: InternalRow): AsyncGenerator<ChangelogRecord> {
  const order = read.keyValueOrder();
  const keyTypes = fieldsByName(read.schema, trimmedPrimaryKeys(read.schema)).map((f) => f.type);
  for (const entry of await changelogFiles(scan, snapshot)) {
    if (key !== undefined) {
      const min = decodeBinaryRow(entry.file.minKey, keyTypes);
      const max = decodeBinaryRow(entry.file.maxKey, keyTypes);
      if (order.compareKey(key, min) < 0 || order.compareKey(key, max) > 0) continue;
    }
    for await (const kv of read.keyValues(entry)) {
      if (key !== undefined && order.compareKey(key, kv.key) !== 0) continue;
      yield {
        partition: entry.partition,
        bucket: entry.bucket,
        fileName: entry.file.fileName,
        sequenceNumber: kv.sequenceNumber,
        kind: kv.valueKind,
        row: kv.value,
        key: kv.key,
      };
    }
  }
}
