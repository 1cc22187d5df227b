/**
 * CommitMessage ↔ protobuf (proto/commit_message.proto): the one place where the wire shape
 * meets the domain shape (@tributary/table's CommitMessage and DataFileMeta, the types the table
 * library writes and commits). Both directions run the same domain checks, so
 * `encodeCommitMessage` refuses exactly what `decodeCommitMessage` would reject, and every
 * accepted message round-trips exactly.
 *
 * Mirrors what Paimon's `CommitMessageSerializer` carries (version 13), in protobuf instead of
 * nested BinaryRows; the envelope (blob.ts) carries the version *inside* the bytes, which Paimon's
 * serializer does not.
 */
import type Long from 'long';
import protobuf from 'protobufjs/minimal.js';
import { tributary } from './generated/commit-message.js';
import { protocolError } from './errors.ts';
import { fromLong, toLong } from './int64.ts';
import { type Fail, checkBinaryRow, failWith } from './checks.ts';
import { checkFileMeta, checkIndexFileMeta, checkIntField, checkStats } from './commit-message-checks.ts';
import type {
  CommitMessage,
  CompactIncrement,
  DataFileMeta,
  DataIncrement,
  DeletionVectorMeta,
  GlobalIndexMeta,
  IndexFileMeta,
  SimpleStats,
} from '@tributary/table';

const wire = tributary.protocol;
type W = typeof wire;
type Props<K extends keyof W> = W[K] extends { encode(m: infer P, ...rest: never[]): unknown } ? P : never;

/** Encodes one message. Throws BLOB_VALUE_OUT_OF_RANGE for a value outside its domain. */
export function encodeCommitMessage(message: CommitMessage): Uint8Array {
  return wire.CommitMessage.encode(commitMessageToWire(message, failWith('BLOB_VALUE_OUT_OF_RANGE'))).finish();
}

/** Decodes one message. Throws BLOB_MESSAGE_INVALID for bytes that are not a valid message. */
export function decodeCommitMessage(bytes: Uint8Array, index = 0): CommitMessage {
  let decoded: tributary.protocol.CommitMessage;
  try {
    decoded = wire.CommitMessage.decode(strictReader(bytes));
  } catch (cause) {
    // protobufjs throws plain Errors (index out of range, invalid wire type, bad UTF-8, depth).
    throw protocolError('BLOB_MESSAGE_INVALID', `message ${index} is not a valid protobuf CommitMessage`, {
      index,
      reason: cause instanceof Error ? cause.message : String(cause),
    }, { cause });
  }
  return commitMessageFromWire(decoded, failWith('BLOB_MESSAGE_INVALID', { index }));
}

// --- domain → wire ---------------------------------------------------------------------------

function commitMessageToWire(m: CommitMessage, fail: Fail): Props<'CommitMessage'> {
  checkBinaryRow(m.partition, 'partition', fail);
  checkIntField(m.bucket, 'bucket', fail);
  if (m.totalBuckets !== null) checkIntField(m.totalBuckets, 'totalBuckets', fail);
  const d = m.dataIncrement;
  const c = m.compactIncrement;
  return {
    partition: m.partition,
    bucket: m.bucket,
    totalBuckets: m.totalBuckets,
    dataIncrement: {
      newFiles: filesToWire(d.newFiles, 'dataIncrement.newFiles', fail),
      deletedFiles: filesToWire(d.deletedFiles, 'dataIncrement.deletedFiles', fail),
      changelogFiles: filesToWire(d.changelogFiles, 'dataIncrement.changelogFiles', fail),
      newIndexFiles: indexFilesToWire(d.newIndexFiles, 'dataIncrement.newIndexFiles', fail),
      deletedIndexFiles: indexFilesToWire(d.deletedIndexFiles, 'dataIncrement.deletedIndexFiles', fail),
    },
    compactIncrement: {
      compactBefore: filesToWire(c.compactBefore, 'compactIncrement.compactBefore', fail),
      compactAfter: filesToWire(c.compactAfter, 'compactIncrement.compactAfter', fail),
      changelogFiles: filesToWire(c.changelogFiles, 'compactIncrement.changelogFiles', fail),
      newIndexFiles: indexFilesToWire(c.newIndexFiles, 'compactIncrement.newIndexFiles', fail),
      deletedIndexFiles: indexFilesToWire(c.deletedIndexFiles, 'compactIncrement.deletedIndexFiles', fail),
    },
  };
}

function filesToWire(files: readonly DataFileMeta[], path: string, fail: Fail): Props<'DataFileMeta'>[] {
  return files.map((f, i) => fileToWire(f, `${path}[${i}]`, fail));
}

function fileToWire(f: DataFileMeta, path: string, fail: Fail): Props<'DataFileMeta'> {
  checkFileMeta(f, path, fail);
  return {
    fileName: f.fileName,
    fileSize: long(f.fileSize, path, 'fileSize', fail),
    rowCount: long(f.rowCount, path, 'rowCount', fail),
    minKey: f.minKey,
    maxKey: f.maxKey,
    keyStats: statsToWire(f.keyStats, `${path}.keyStats`, fail),
    valueStats: statsToWire(f.valueStats, `${path}.valueStats`, fail),
    minSequenceNumber: long(f.minSequenceNumber, path, 'minSequenceNumber', fail),
    maxSequenceNumber: long(f.maxSequenceNumber, path, 'maxSequenceNumber', fail),
    schemaId: long(f.schemaId, path, 'schemaId', fail),
    level: f.level,
    extraFiles: [...f.extraFiles],
    creationTimeMillis: nullableLong(f.creationTimeMillis, path, 'creationTimeMillis', fail),
    deleteRowCount: nullableLong(f.deleteRowCount, path, 'deleteRowCount', fail),
    embeddedIndex: f.embeddedIndex,
    fileSource: f.fileSource,
    valueStatsCols: f.valueStatsCols === null ? undefined : { values: [...f.valueStatsCols] },
    externalPath: f.externalPath,
    firstRowId: nullableLong(f.firstRowId, path, 'firstRowId', fail),
    writeCols: f.writeCols === null ? undefined : { values: [...f.writeCols] },
    writeColsSequences:
      f.writeColsSequences === null
        ? undefined
        : { values: f.writeColsSequences.map((v, i) => long(v, path, `writeColsSequences[${i}]`, fail)) },
  };
}

function statsToWire(s: SimpleStats, path: string, fail: Fail): Props<'SimpleStats'> {
  checkStats(s, path, fail);
  if (s.nullCounts === null) return { minValues: s.minValues, maxValues: s.maxValues };
  const values: Long[] = [];
  const nullIndexes: number[] = [];
  s.nullCounts.forEach((v, i) => {
    if (v === null) nullIndexes.push(i);
    values.push(long(v ?? 0n, path, `nullCounts[${i}]`, fail));
  });
  return { minValues: s.minValues, maxValues: s.maxValues, nullCounts: { values, nullIndexes } };
}

function indexFilesToWire(files: readonly IndexFileMeta[], path: string, fail: Fail): Props<'IndexFileMeta'>[] {
  return files.map((f, i) => indexFileToWire(f, `${path}[${i}]`, fail));
}

function indexFileToWire(f: IndexFileMeta, path: string, fail: Fail): Props<'IndexFileMeta'> {
  checkIndexFileMeta(f, path, fail);
  const g = f.globalIndex;
  return {
    indexType: f.indexType,
    fileName: f.fileName,
    fileSize: long(f.fileSize, path, 'fileSize', fail),
    rowCount: long(f.rowCount, path, 'rowCount', fail),
    deletionVectorRanges:
      f.deletionVectorRanges === null
        ? undefined
        : {
            values: f.deletionVectorRanges.map((r, i) => ({
              dataFileName: r.dataFileName,
              offset: r.offset,
              length: r.length,
              cardinality: nullableLong(r.cardinality, path, `deletionVectorRanges[${i}].cardinality`, fail),
            })),
          },
    externalPath: f.externalPath,
    globalIndex:
      g === null
        ? undefined
        : {
            rowRangeStart: long(g.rowRangeStart, path, 'globalIndex.rowRangeStart', fail),
            rowRangeEnd: long(g.rowRangeEnd, path, 'globalIndex.rowRangeEnd', fail),
            indexFieldId: g.indexFieldId,
            extraFieldIds: g.extraFieldIds === null ? undefined : { values: [...g.extraFieldIds] },
            indexMeta: g.indexMeta,
            sourceMeta: g.sourceMeta,
          },
  };
}

function long(value: bigint, path: string, field: string, fail: Fail): Long {
  if (typeof value !== 'bigint' || BigInt.asIntN(64, value) !== value) fail(`${path}.${field}`, 'not an int64 bigint');
  return toLong(value, field);
}

function nullableLong(value: bigint | null, path: string, field: string, fail: Fail): Long | null {
  return value === null ? null : long(value, path, field, fail);
}

// --- wire → domain ---------------------------------------------------------------------------

type WireFile = tributary.protocol.DataFileMeta;
type WireIndexFile = tributary.protocol.IndexFileMeta;

function commitMessageFromWire(w: tributary.protocol.CommitMessage, fail: Fail): CommitMessage {
  const d = (w.dataIncrement as tributary.protocol.DataIncrement | null) ?? new wire.DataIncrement();
  const c = (w.compactIncrement as tributary.protocol.CompactIncrement | null) ?? new wire.CompactIncrement();
  known(w, 'message', fail);
  known(d, 'dataIncrement', fail);
  known(c, 'compactIncrement', fail);
  const dataIncrement: DataIncrement = {
    newFiles: filesFromWire(d.newFiles, 'dataIncrement.newFiles', fail),
    deletedFiles: filesFromWire(d.deletedFiles, 'dataIncrement.deletedFiles', fail),
    changelogFiles: filesFromWire(d.changelogFiles, 'dataIncrement.changelogFiles', fail),
    newIndexFiles: indexFilesFromWire(d.newIndexFiles, 'dataIncrement.newIndexFiles', fail),
    deletedIndexFiles: indexFilesFromWire(d.deletedIndexFiles, 'dataIncrement.deletedIndexFiles', fail),
  };
  const compactIncrement: CompactIncrement = {
    compactBefore: filesFromWire(c.compactBefore, 'compactIncrement.compactBefore', fail),
    compactAfter: filesFromWire(c.compactAfter, 'compactIncrement.compactAfter', fail),
    changelogFiles: filesFromWire(c.changelogFiles, 'compactIncrement.changelogFiles', fail),
    newIndexFiles: indexFilesFromWire(c.newIndexFiles, 'compactIncrement.newIndexFiles', fail),
    deletedIndexFiles: indexFilesFromWire(c.deletedIndexFiles, 'compactIncrement.deletedIndexFiles', fail),
  };
  const message: CommitMessage = {
    partition: copy(w.partition),
    bucket: w.bucket,
    totalBuckets: w.totalBuckets ?? null,
    dataIncrement,
    compactIncrement,
  };
  checkBinaryRow(message.partition, 'partition', fail);
  return message;
}

function filesFromWire(files: WireFile[], path: string, fail: Fail): DataFileMeta[] {
  return files.map((f, i) => fileFromWire(f, `${path}[${i}]`, fail));
}

function fileFromWire(w: WireFile, path: string, fail: Fail): DataFileMeta {
  known(w, path, fail);
  const file: DataFileMeta = {
    fileName: w.fileName,
    fileSize: fromLong(w.fileSize),
    rowCount: fromLong(w.rowCount),
    minKey: copy(w.minKey),
    maxKey: copy(w.maxKey),
    keyStats: statsFromWire(w.keyStats as tributary.protocol.SimpleStats | null, `${path}.keyStats`, fail),
    valueStats: statsFromWire(w.valueStats as tributary.protocol.SimpleStats | null, `${path}.valueStats`, fail),
    minSequenceNumber: fromLong(w.minSequenceNumber),
    maxSequenceNumber: fromLong(w.maxSequenceNumber),
    schemaId: fromLong(w.schemaId),
    level: w.level,
    extraFiles: [...w.extraFiles],
    creationTimeMillis: nullableFromLong(w.creationTimeMillis),
    deleteRowCount: nullableFromLong(w.deleteRowCount),
    embeddedIndex: w.embeddedIndex === null ? null : copy(w.embeddedIndex),
    fileSource: w.fileSource as DataFileMeta['fileSource'],
    valueStatsCols: listOrNull(w.valueStatsCols as tributary.protocol.StringList | null, `${path}.valueStatsCols`, fail),
    externalPath: w.externalPath ?? null,
    firstRowId: nullableFromLong(w.firstRowId),
    writeCols: listOrNull(w.writeCols as tributary.protocol.StringList | null, `${path}.writeCols`, fail),
    writeColsSequences: longsOrNull(w.writeColsSequences as tributary.protocol.LongList | null, `${path}.writeColsSequences`, fail),
  };
  checkFileMeta(file, path, fail);
  return file;
}

function statsFromWire(w: tributary.protocol.SimpleStats | null, path: string, fail: Fail): SimpleStats {
  if (w === null) return fail(path, 'missing');
  known(w, path, fail);
  const stats: SimpleStats = {
    minValues: copy(w.minValues),
    maxValues: copy(w.maxValues),
    nullCounts: nullCountsFromWire(w.nullCounts as tributary.protocol.NullCounts | null, path, fail),
  };
  checkStats(stats, path, fail);
  return stats;
}

function nullCountsFromWire(w: tributary.protocol.NullCounts | null, path: string, fail: Fail): (bigint | null)[] | null {
  if (w === null) return null;
  known(w, `${path}.nullCounts`, fail);
  const counts: (bigint | null)[] = w.values.map((v) => fromLong(v));
  let previous = -1;
  for (const i of w.nullIndexes) {
    if (i <= previous || i >= counts.length || counts[i] !== 0n) fail(`${path}.nullCounts`, 'bad null index');
    counts[i] = null;
    previous = i;
  }
  return counts;
}

function indexFilesFromWire(files: WireIndexFile[], path: string, fail: Fail): IndexFileMeta[] {
  return files.map((f, i) => indexFileFromWire(f, `${path}[${i}]`, fail));
}

function indexFileFromWire(w: WireIndexFile, path: string, fail: Fail): IndexFileMeta {
  const ranges = w.deletionVectorRanges as tributary.protocol.DeletionVectorRanges | null;
  const g = w.globalIndex as tributary.protocol.GlobalIndexMeta | null;
  known(w, path, fail);
  if (ranges !== null) {
    known(ranges, `${path}.deletionVectorRanges`, fail);
    ranges.values.forEach((r, i) => known(r, `${path}.deletionVectorRanges[${i}]`, fail));
  }
  const file: IndexFileMeta = {
    indexType: w.indexType,
    fileName: w.fileName,
    fileSize: fromLong(w.fileSize),
    rowCount: fromLong(w.rowCount),
    deletionVectorRanges:
      ranges === null
        ? null
        : ranges.values.map(
            (r): DeletionVectorMeta => ({
              dataFileName: r.dataFileName,
              offset: r.offset,
              length: r.length,
              cardinality: nullableFromLong(r.cardinality),
            }),
          ),
    externalPath: w.externalPath ?? null,
    globalIndex: g === null ? null : globalIndexFromWire(g, `${path}.globalIndex`, fail),
  };
  checkIndexFileMeta(file, path, fail);
  return file;
}

function globalIndexFromWire(g: tributary.protocol.GlobalIndexMeta, path: string, fail: Fail): GlobalIndexMeta {
  const extra = g.extraFieldIds as tributary.protocol.IntList | null;
  known(g, path, fail);
  if (extra !== null) known(extra, `${path}.extraFieldIds`, fail);
  return {
    rowRangeStart: fromLong(g.rowRangeStart),
    rowRangeEnd: fromLong(g.rowRangeEnd),
    indexFieldId: g.indexFieldId,
    extraFieldIds: extra === null ? null : [...extra.values],
    indexMeta: g.indexMeta === null ? null : copy(g.indexMeta),
    sourceMeta: g.sourceMeta === null ? null : copy(g.sourceMeta),
  };
}

/**
 * protobufjs hands out views into the blob (Node Buffers when it read a Buffer); a plain
 * Uint8Array copy lets the blob's memory go and keeps decoded values of one type.
 */
function copy(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function nullableFromLong(value: Long | number | null): bigint | null {
  return value === null ? null : fromLong(value);
}

function listOrNull(w: tributary.protocol.StringList | null, path: string, fail: Fail): string[] | null {
  if (w === null) return null;
  known(w, path, fail);
  return [...w.values];
}

function longsOrNull(w: tributary.protocol.LongList | null, path: string, fail: Fail): bigint[] | null {
  if (w === null) return null;
  known(w, path, fail);
  return w.values.map((v) => fromLong(v));
}

/**
 * A reader that keeps unknown fields instead of dropping them (protobufjs' default is to drop),
 * so that `known` can refuse them. Per reader: the global default is left alone.
 */
export function strictReader(bytes: Uint8Array): protobuf.Reader {
  const reader = protobuf.Reader.create(bytes);
  reader.discardUnknown = false;
  return reader;
}

/**
 * With `strictReader`, protobufjs keeps fields it does not know (and known fields with the wrong wire type) in
 * `$unknowns`. Within one envelope version the writer knows exactly our fields, so anything else
 * is corruption or a writer from the future — either way, not something to commit while silently
 * dropping what it meant.
 */
function known(w: { $unknowns?: Uint8Array[] }, path: string, fail: Fail): void {
  if (w.$unknowns !== undefined && w.$unknowns.length > 0) fail(path, `${w.$unknowns.length} unknown protobuf field(s)`);
}
