/**
 * What a sync's table must allow of the load asked for, checked when the sync is planned (a typed
 * 400, nothing started):
 *
 * - `changelog-producer = input`: the load's changelog is computed per (partition, bucket) by the
 *   bucket jobs from every shard's netted rows, so it needs the bucketed layout (a direct load's
 *   shards each see only their own rows), and an APPEND commit (an OVERWRITE snapshot has no
 *   changelog: a streaming reader would miss the replaced rows).
 * - `deleteMarker`: a primary-key table (deletes are by key); the marker is a column of the table
 *   outside its primary key, BOOLEAN, integer or string, and every marker value parses as its type.
 * - `fullExtract`: a primary-key table with a fixed bucket count (its bucket jobs cover every bucket
 *   of the partition), the bucketed layout, mode append or upsert; the partition names exactly the
 *   partition keys (checked against the schema by the caller: partitionRowOf). Every stored key the
 *   extract lacks is deleted, so the extract must be whole: not an incremental read (only the
 *   changed rows), and not with `badRows: 'reject'` (a rejected row's key would be missing, and
 *   its stored row deleted).
 */
import { errorFrom, type PlannedBucketEntry, type SyncDeletes, type SyncLayout } from '@tributary/protocol';
import type { TableDescription } from '@tributary/table';
import { coordinatorErrors } from '../errors.ts';
import type { StartSyncRequest } from '../requests.ts';

const MARKER_TYPES = new Set(['BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'CHAR', 'VARCHAR']);

/** The load's deletes as the plan keeps them (undefined: none). @throws SYNC_LOAD_UNSUPPORTED */
export function checkLoad(info: TableDescription, request: StartSyncRequest, layout: SyncLayout): SyncDeletes | undefined {
  const refuse = (message: string, field: string) =>
    errorFrom(coordinatorErrors, 'SYNC_LOAD_UNSUPPORTED', message, { database: info.database, table: info.table, field });
  const producer = (info.options['changelog-producer'] ?? 'none').trim().toLowerCase();
  if (producer === 'input') {
    if (layout !== 'bucketed') {
      throw refuse(
        "a table with changelog-producer = 'input' is loaded with layout 'bucketed' only: its changelog nets every key across all shards, which only the bucket jobs see; a direct load's shards each see their own rows",
        'options.layout',
      );
    }
    if (request.mode === 'overwrite') {
      throw refuse("a table with changelog-producer = 'input' takes no mode 'overwrite': an OVERWRITE snapshot carries no changelog, so streaming readers would miss the replaced rows", 'mode');
    }
  }
  const { deleteMarker, fullExtract } = request.options;
  if (deleteMarker === undefined && fullExtract === undefined) return undefined;
  if (info.primaryKeys.length === 0) throw refuse('deletes (deleteMarker, fullExtract) need a table with a primary key: a delete names its key', deleteMarker === undefined ? 'options.fullExtract' : 'options.deleteMarker');
  if (deleteMarker !== undefined) checkMarker(info, deleteMarker, refuse);
  if (fullExtract !== undefined) {
    if (layout !== 'bucketed') throw refuse("fullExtract needs layout 'bucketed': each bucket job compares its bucket with the stored one", 'options.layout');
    if (request.mode === 'overwrite') throw refuse("fullExtract deletes the absent keys in an APPEND snapshot; mode 'overwrite' would replace the partition without a delete", 'mode');
    const bucket = Number(info.options['bucket'] ?? '-1');
    if (!(bucket >= 1)) throw refuse('fullExtract needs a table with a fixed bucket count (bucket >= 1)', 'options.fullExtract');
    if (request.options.badRows === 'reject') {
      throw refuse("fullExtract deletes every stored key the extract lacks, so it takes no badRows 'reject': a rejected row's stored row would be deleted", 'options.badRows');
    }
    if ((request.source as { readonly incremental?: unknown }).incremental != null) {
      throw refuse('fullExtract deletes every stored key the extract lacks; an incremental read holds only the changed rows, so every other row would be deleted', 'source.incremental');
    }
  }
  return { ...(deleteMarker === undefined ? {} : { marker: deleteMarker }), ...(fullExtract === undefined ? {} : { fullExtract }) };
}

function checkMarker(info: TableDescription, marker: NonNullable<StartSyncRequest['options']['deleteMarker']>, refuse: (message: string, field: string) => Error): void {
  const column = info.columns.find((c) => c.name === marker.column);
  if (column === undefined) throw refuse(`deleteMarker.column '${marker.column}' is not a column of the table`, 'options.deleteMarker.column');
  if (info.primaryKeys.includes(column.name)) throw refuse(`deleteMarker.column '${column.name}' is a primary-key column; the marker must be a value column`, 'options.deleteMarker.column');
  const root = column.type.root;
  if (!MARKER_TYPES.has(root)) throw refuse(`deleteMarker.column '${column.name}' is ${root}; a marker is BOOLEAN, an integer or a string column`, 'options.deleteMarker.column');
  for (const value of marker.values) {
    const text = String(value);
    const fits = root === 'BOOLEAN' ? text === 'true' || text === 'false' : root === 'CHAR' || root === 'VARCHAR' ? true : /^-?[0-9]{1,19}$/.test(text);
    if (!fits) throw refuse(`a deleteMarker value does not fit the ${root} column '${column.name}'`, 'options.deleteMarker.values');
  }
}

/**
 * A full extract's bucket plan: one entry per bucket of the extract's partition, those without runs
 * too (their stored keys are all absent from the extract, so all deleted), ordered by bucket.
 * @throws SYNC_LOAD_UNSUPPORTED when the extract wrote rows into another partition
 */
export function fullExtractBuckets(entries: readonly PlannedBucketEntry[], partition: Uint8Array, buckets: number): PlannedBucketEntry[] {
  const wanted = Buffer.from(partition).toString('base64');
  const outside = entries.find((e) => e.partition !== wanted);
  if (outside !== undefined) {
    throw errorFrom(coordinatorErrors, 'SYNC_LOAD_UNSUPPORTED', 'the full extract holds rows of another partition than the one it names (fullExtract.partition)', {
      field: 'options.fullExtract.partition',
      bucket: outside.bucket,
    });
  }
  const byBucket = new Map(entries.map((e) => [e.bucket, e]));
  return Array.from({ length: buckets }, (_, bucket) => byBucket.get(bucket) ?? { partition: wanted, bucket, totalBuckets: buckets, runs: [] });
}
