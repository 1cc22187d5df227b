/**
 * Commits hand-made data and changelog records into a primary-key table, bypassing the changelog
 * writer, so that a test can give a table exactly the anomaly an audit must find (a +U without its
 * -U, a wrong before-image, a data change without changelog, ...).
 */
import { randomUUID } from 'node:crypto';
import { dataFilesMessage, type CommitMessage, type InternalRow, type Table } from '@tributary/table';
import { batchFromRows } from '../../src/format/column-batch.ts';
import { keyValueRowType } from '../../src/format/key-value.ts';
import { bucketKey } from '../../src/spec/binary-row.ts';
import { fieldsByName, trimmedPrimaryKeys } from '../../src/spec/table-schema.ts';
import { keyValueFileMeta, localCreationTime, valueStatsOptions } from '../../src/write/data-file-metas.ts';
import { DATA_FILE_LEVEL_0 } from '../../src/spec/file-options.ts';
import { KeyValueFileWriter } from '../../src/write/key-value-writer.ts';
import { maxSequenceNumbers } from '../../src/write/commit-plan.ts';
import { objectStoreSink } from '../../src/write/object-sink.ts';
import { RowRouter } from '../../src/write/row-routing.ts';

export interface CraftedRecord {
  readonly kind: number;
  readonly row: InternalRow;
}

/**
 * One snapshot with these data records (sorted by key by the caller, one per key) and these
 * changelog records (in the given order), all in the bucket of the first row. Sequence numbers
 * continue from the bucket's maximum.
 */
export async function craftCommit(table: Table, data: readonly CraftedRecord[], changelog: readonly CraftedRecord[], user = `craft-${Math.random()}`): Promise<number> {
  const schema = table.schema;
  const rowType = { fields: schema.fields };
  const trimmed = trimmedPrimaryKeys(schema);
  const keyIndex = trimmed.map((n) => schema.fields.findIndex((f) => f.name === n));
  const first = data[0]?.row ?? changelog[0]?.row;
  if (first === undefined) throw new Error('nothing to craft');
  const [routed] = new RowRouter(schema).route(batchFromRows(rowType, [first]));
  if (routed === undefined) throw new Error('unroutable');
  const target = routed.target;
  const latest = await table.latestSnapshot();
  const live = latest === null ? [] : await table.newRead({ snapshotId: Number(latest.id) }).plan();
  let sequence = (maxSequenceNumbers(live).get(bucketKey(target.partition, target.bucket)) ?? -1n) + 1n;
  const ctx = { schemaId: schema.id, creationTime: localCreationTime(new Date()), valueStats: valueStatsOptions(schema.fields, schema.options, DATA_FILE_LEVEL_0) };
  const keyTypes = fieldsByName(schema, trimmed).map((f) => f.type);
  const write = async (prefix: string, records: readonly CraftedRecord[]) => {
    if (records.length === 0) return [];
    const writer = new KeyValueFileWriter({
      uuid: `craft-${randomUUID()}`,
      fileNamePrefix: prefix,
      targetFileSize: 1 << 30,
      openSink: (name) => objectStoreSink(table.store, `${table.path}/${target.partitionPath}bucket-${target.bucket}/${name}`),
      tableRowType: rowType,
      trimmedPrimaryKeys: trimmed,
    });
    await writer.writeRun(batchFromRows(keyValueRowType(rowType, trimmed), records.map((r) => [...keyIndex.map((i) => r.row[i] ?? null), sequence++, r.kind, ...r.row])));
    return (await writer.close()).map((f) => keyValueFileMeta(f, keyTypes, ctx));
  };
  const message: CommitMessage = dataFilesMessage(target.partition, target.bucket, target.totalBuckets, {
    newFiles: await write('data-', data),
    changelogFiles: await write('changelog-', changelog),
  });
  const result = await table.newCommit(user).commit([message], latest === null ? {} : { baseSnapshotId: Number(latest.id) });
  return result.snapshotId;
}
