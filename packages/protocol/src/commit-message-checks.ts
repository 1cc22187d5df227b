/**
 * The domain rules of a commit message, run by the codec in both directions: on values handed to
 * the encoder (BLOB_VALUE_OUT_OF_RANGE) and on values read from a blob (BLOB_MESSAGE_INVALID).
 * They are the invariants Paimon's DataFileMeta, SimpleStats and IndexFileMeta hold by
 * construction in Java: non-negative sizes and counts, `_DELETE_ROW_COUNT <= _ROW_COUNT`,
 * `_FILE_SOURCE` 0 or 1, structurally sound BinaryRows, Java ints within int32.
 */
import { type Fail, checkBinaryRow, checkString, isInt32 } from './checks.ts';
import type { DataFileMeta, IndexFileMeta, SimpleStats } from '@tributary/table';

export function checkIntField(value: number, path: string, fail: Fail, min?: number): void {
  if (!isInt32(value, min)) fail(path, `not an int32${min === undefined ? '' : ` >= ${min}`}`);
}

function checkNonNegative(value: bigint | null, path: string, fail: Fail): void {
  if (value !== null && !(typeof value === 'bigint' && value >= 0n)) fail(path, 'must be a non-negative bigint');
}

export function checkFileMeta(f: DataFileMeta, path: string, fail: Fail): void {
  checkString(f.fileName, `${path}.fileName`, fail, true);
  checkNonNegative(f.fileSize, `${path}.fileSize`, fail);
  checkNonNegative(f.rowCount, `${path}.rowCount`, fail);
  checkBinaryRow(f.minKey, `${path}.minKey`, fail);
  checkBinaryRow(f.maxKey, `${path}.maxKey`, fail);
  checkNonNegative(f.schemaId, `${path}.schemaId`, fail);
  checkIntField(f.level, `${path}.level`, fail, 0);
  f.extraFiles.forEach((s, i) => checkString(s, `${path}.extraFiles[${i}]`, fail, true));
  checkNonNegative(f.deleteRowCount, `${path}.deleteRowCount`, fail);
  if (f.deleteRowCount !== null && f.deleteRowCount > f.rowCount) fail(`${path}.deleteRowCount`, 'exceeds rowCount');
  if (f.fileSource !== null && f.fileSource !== 0 && f.fileSource !== 1) fail(`${path}.fileSource`, 'not 0 or 1');
  f.valueStatsCols?.forEach((s, i) => checkString(s, `${path}.valueStatsCols[${i}]`, fail, true));
  if (f.externalPath !== null) checkString(f.externalPath, `${path}.externalPath`, fail, true);
  checkNonNegative(f.firstRowId, `${path}.firstRowId`, fail);
  f.writeCols?.forEach((s, i) => checkString(s, `${path}.writeCols[${i}]`, fail, true));
}

export function checkStats(s: SimpleStats, path: string, fail: Fail): void {
  checkBinaryRow(s.minValues, `${path}.minValues`, fail);
  checkBinaryRow(s.maxValues, `${path}.maxValues`, fail);
  s.nullCounts?.forEach((v, i) => checkNonNegative(v, `${path}.nullCounts[${i}]`, fail));
}

export function checkIndexFileMeta(f: IndexFileMeta, path: string, fail: Fail): void {
  checkString(f.indexType, `${path}.indexType`, fail, true);
  checkString(f.fileName, `${path}.fileName`, fail, true);
  checkNonNegative(f.fileSize, `${path}.fileSize`, fail);
  checkNonNegative(f.rowCount, `${path}.rowCount`, fail);
  if (f.externalPath !== null) checkString(f.externalPath, `${path}.externalPath`, fail, true);
  f.deletionVectorRanges?.forEach((r, i) => {
    const at = `${path}.deletionVectorRanges[${i}]`;
    checkString(r.dataFileName, `${at}.dataFileName`, fail, true);
    checkIntField(r.offset, `${at}.offset`, fail, 0);
    checkIntField(r.length, `${at}.length`, fail, 0);
    checkNonNegative(r.cardinality, `${at}.cardinality`, fail);
  });
  const g = f.globalIndex;
  if (g !== null) {
    checkIntField(g.indexFieldId, `${path}.globalIndex.indexFieldId`, fail);
    g.extraFieldIds?.forEach((id, i) => checkIntField(id, `${path}.globalIndex.extraFieldIds[${i}]`, fail));
  }
}
