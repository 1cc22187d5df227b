/**
 * Parquet data files as Paimon writes them, streamed row group by row group.
 *
 *   ParquetFileEncoder   one file: ColumnBatch row groups in, bytes out through a FileSink; a row
 *                        group encoded once (encodeRowGroup) may be written into several files
 *   DataFileWriter       one (partition, bucket): rolls to a new file past the target size
 *                        (Paimon's RollingFileWriter over ParquetWriterFactory), names files
 *                        data-<uuid>-<n>.parquet, and reports per file its size, row count,
 *                        per-column min/max/null count and first/last row.
 *
 * The layout is that of parquet-mr as Paimon configures it (RowDataParquetBuilder): the schema of
 * parquet-schema.ts, v1 data pages of about 1 MiB, dictionary pages where they pay, zstd level 1.
 * Pages are encoded from the typed arrays directly (parquet-pages.ts) and the footer with our own
 * thrift writer (parquet-footer.ts). Parquet column statistics are not written: Paimon's Java
 * reader and pyarrow (pypaimon) treat a chunk without statistics as "may match", while a wrong bound
 * would drop rows; the manifest stats come from our own pass (column-stats.ts) instead.
 */
import { gzipSync, zstdCompressSync, constants as zlibConstants } from 'node:zlib';
import { errorFrom } from '@tributary/errors';
import { TRIBUTARY_VERSION } from '../version.ts';
import { tableErrors } from '../errors.ts';
import type { DataField, InternalRow, RowType } from '../spec/types.ts';
import { shiftRows, valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { columnStats, mergeStats, type ColumnStats } from '../format/column-stats.ts';
import { CODEC, fileMetaData, type ColumnChunkInfo, type RowGroupInfo } from './parquet-footer.ts';
import { PageCollector, writeColumnChunk, type Compress } from './parquet-pages.ts';
import { parquetSchema } from './parquet-schema.ts';

/** Where one file's bytes go, in order. `write` is awaited before more is encoded (back-pressure). */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** Called instead of close when writing failed; should discard what was written. */
  abort?(reason: unknown): Promise<void>;
}

export type ParquetCompression = 'zstd' | 'gzip' | 'none';

export interface ParquetEncodeOptions {
  /** Paimon's `file.compression`, default zstd. */
  readonly compression?: ParquetCompression;
  /** Paimon's `file.compression.zstd-level`, default 1. */
  readonly zstdLevel?: number;
}

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]); // "PAR1"
const CREATED_BY = `tributary version ${TRIBUTARY_VERSION}`;

function compressor(options: ParquetEncodeOptions): { codec: number; compress: Compress } {
  switch (options.compression ?? 'zstd') {
    case 'zstd': {
      const params = { [zlibConstants.ZSTD_c_compressionLevel]: options.zstdLevel ?? 1 };
      return { codec: CODEC.ZSTD, compress: (page) => zstdCompressSync(page, { params }) };
    }
    case 'gzip':
      return { codec: CODEC.GZIP, compress: (page) => gzipSync(page) };
    case 'none':
      return { codec: CODEC.UNCOMPRESSED, compress: (page) => page };
  }
}

/**
 * A row group encoded once, for one file or several (a changelog's insert-only rows are the data
 * file's too): its column chunks' bytes and their footer entries, offsets counted from its first byte.
 */
export interface EncodedRowGroup {
  readonly bytes: Uint8Array;
  readonly columns: readonly ColumnChunkInfo[];
  readonly numRows: number;
}

/**
 * Encodes rows [0, batch.length) of `batch` as one row group of a file of `rowType` written with
 * `options` (ParquetFileEncoder.writeEncoded writes it at the file's offset).
 */
export function encodeRowGroup(rowType: RowType, batch: ColumnBatch, options: ParquetEncodeOptions = {}): EncodedRowGroup {
  const { codec, compress } = compressor(options);
  const out = new PageCollector(0);
  const columns = rowType.fields.map((field, i) => {
    const column = batch.columns[i] as Column;
    if (column.validity !== undefined && !field.type.nullable && column.validity.subarray(0, batch.length).includes(0)) {
      throw errorFrom(tableErrors, 'DATA_FILE_NULL_IN_REQUIRED', `null value in NOT NULL column '${field.name}'`, { column: field.name });
    }
    return writeColumnChunk(out, field, column, batch.length, codec, compress);
  });
  return { bytes: out.bytes(), columns, numRows: batch.length };
}

/** Writes one Parquet file. Call writeRowGroup (or writeEncoded) per row group, then finish (or abort). */
export class ParquetFileEncoder {
  readonly #rowType: RowType;
  readonly #sink: FileSink;
  readonly #options: ParquetEncodeOptions;
  readonly #codec: number;
  readonly #rowGroups: RowGroupInfo[] = [];
  #offset = 0;
  #rows = 0;
  #started = false;

  constructor(rowType: RowType, sink: FileSink, options: ParquetEncodeOptions = {}) {
    this.#rowType = rowType;
    this.#sink = sink;
    this.#options = options;
    this.#codec = compressor(options).codec;
  }

  /** Bytes handed to the sink so far: the file size once finished. */
  get bytesWritten(): number {
    return this.#offset;
  }

  get rowCount(): number {
    return this.#rows;
  }

  /** Encodes rows [0, batch.length) as one row group and streams it to the sink. */
  async writeRowGroup(batch: ColumnBatch): Promise<void> {
    if (batch.length === 0) return;
    await this.writeEncoded(encodeRowGroup(this.#rowType, batch, this.#options));
  }

  /**
   * Streams a row group encoded by encodeRowGroup for this file's row type and codec to the sink,
   * its footer entries moved to where it lands in this file.
   * @throws Error when it was encoded for other columns or another codec (a caller's bug)
   */
  async writeEncoded(group: EncodedRowGroup): Promise<void> {
    if (group.numRows === 0) return;
    const fields = this.#rowType.fields;
    if (group.columns.length !== fields.length || group.columns.some((c, i) => c.path !== (fields[i] as DataField).name || c.codec !== this.#codec)) {
      throw new Error('a row group encoded for other columns or another codec');
    }
    if (!this.#started) {
      await this.#sink.write(MAGIC.slice());
      this.#offset += MAGIC.length;
      this.#started = true;
    }
    const groupStart = this.#offset;
    const columns = group.columns.map((c) => ({
      ...c,
      dataPageOffset: c.dataPageOffset + groupStart,
      dictionaryPageOffset: c.dictionaryPageOffset === undefined ? undefined : c.dictionaryPageOffset + groupStart,
    }));
    // The group's bytes as they are (a sink only reads them; another file may be given the same).
    await this.#sink.write(group.bytes);
    this.#offset += group.bytes.length;
    this.#rowGroups.push({ columns, numRows: group.numRows, fileOffset: groupStart });
    this.#rows += group.numRows;
  }

  /** Writes the footer and closes the sink. Returns the file size. */
  async finish(): Promise<number> {
    const out = new PageCollector(this.#offset);
    if (!this.#started) out.push(MAGIC);
    const footer = fileMetaData(parquetSchema(this.#rowType), this.#rowGroups, CREATED_BY);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, footer.length, true);
    out.push(footer);
    out.push(length);
    out.push(MAGIC);
    await this.#emit(out);
    await this.#sink.close();
    return this.#offset;
  }

  async abort(reason: unknown): Promise<void> {
    await this.#sink.abort?.(reason);
  }

  /** Hands what `out` collected (the footer) to the sink as one chunk. */
  async #emit(out: PageCollector): Promise<void> {
    const bytes = out.bytes();
    this.#offset = out.offset;
    await this.#sink.write(bytes);
  }
}

/** What DataFileWriter reports for each file it wrote. */
export interface DataFileResult {
  readonly fileName: string;
  readonly fileSize: number;
  readonly rowCount: number;
  /** One entry per column of the file's row type, in order. */
  readonly stats: readonly ColumnStats[];
  readonly firstRow: InternalRow;
  readonly lastRow: InternalRow;
}

export interface DataFileWriterOptions extends ParquetEncodeOptions {
  /** The columns of the files (for primary-key files: keyValueRowType). */
  readonly rowType: RowType;
  /**
   * Unique per (partition, bucket) writer, never shared by two writers of one directory (format
   * code takes no randomness: the caller makes it, see write/table-write.ts).
   */
  readonly uuid: string;
  /** Opens the sink of a new file, e.g. an ObjectStore put of `<partition>/bucket-N/<fileName>`. */
  readonly openSink: (fileName: string) => FileSink;
  /** Paimon's target-file-size in bytes: a file is closed once it reaches it. */
  readonly targetFileSize: number;
  /** Most rows in one row group (bounds memory: one row group is encoded at a time). */
  readonly rowGroupRows?: number;
  /**
   * Hold written rows until they fill a row group (a merge handing small batches still writes full
   * row groups). Default: the rows of each `write` start a row group of their own.
   */
  readonly fillRowGroups?: boolean;
  /** Paimon's data-file.prefix, default 'data-'. */
  readonly fileNamePrefix?: string;
  /** Called with each row group and the index of the file it goes to (e.g. delete counting). */
  readonly onRowGroup?: (rows: ColumnBatch, fileIndex: number) => void;
}

const DEFAULT_ROW_GROUP_ROWS = 128 * 1024;
/** Smallest row group the size estimate may ask for, so a tiny target does not mean 1-row groups. */
const MIN_ROW_GROUP_ROWS = 1024;

interface OpenFile {
  readonly fileName: string;
  readonly encoder: ParquetFileEncoder;
  stats: ColumnStats[] | undefined;
  firstRow: InternalRow | undefined;
  lastRow: InternalRow | undefined;
}

/**
 * Writes the rows of one (partition, bucket) into rolling data files. Rows are written in the order
 * given; files are numbered from 0. Memory: one row group of encoded output at a time (and with
 * `fillRowGroups`, the rows held until they fill one).
 */
export class DataFileWriter {
  readonly #options: DataFileWriterOptions;
  readonly #results: DataFileResult[] = [];
  #current: OpenFile | undefined;
  #counter = 0;
  /** Encoded bytes per row seen so far, to size row groups so a file ends near the target. */
  #bytesPerRow = 0;
  /** Rows written but not yet encoded (less than a row group), in order. */
  #pending: ColumnBatch[] = [];
  #pendingRows = 0;

  constructor(options: DataFileWriterOptions) {
    if (!(options.targetFileSize > 0)) {
      throw errorFrom(tableErrors, 'DATA_FILE_OPTION_INVALID', 'targetFileSize must be positive', { targetFileSize: options.targetFileSize });
    }
    // A row group of no rows would never take a held row: the writer would loop on it.
    if (options.rowGroupRows !== undefined && !(Number.isSafeInteger(options.rowGroupRows) && options.rowGroupRows > 0)) {
      throw errorFrom(tableErrors, 'DATA_FILE_OPTION_INVALID', 'rowGroupRows must be a positive integer', { rowGroupRows: options.rowGroupRows });
    }
    this.#options = options;
  }

  /**
   * Appends rows, in row groups of at most `rowGroupRows` (or what is left of the target size). With
   * `fillRowGroups`, rows are held until they fill a row group, and `roll` and `close` write what
   * is held; otherwise a batch's last rows make a row group of their own.
   */
  async write(batch: ColumnBatch): Promise<void> {
    if (batch.length === 0) return;
    // A writer's first batch starts a new array holding it: pushed onto the empty `[]`, it changed
    // the array's elements kind, and the optimized code of this method, inlined into its callers,
    // was thrown away and compiled again for every new writer (two per changelog bucket job).
    if (this.#pending.length === 0) this.#pending = [batch];
    else this.#pending.push(batch);
    this.#pendingRows += batch.length;
    while (this.#pendingRows > 0 && this.#pendingRows >= this.#nextGroupRows(this.#current)) await this.#writeGroup();
    if (this.#options.fillRowGroups !== true) await this.#flush();
  }

  /** Writes one row group from the held rows: as many as the open file's next group takes. */
  async #writeGroup(): Promise<void> {
    const file = this.#current ?? this.#open();
    const rows = Math.min(this.#pendingRows, this.#nextGroupRows(file));
    const group = this.#takePending(rows);
    this.#observe(file, group);
    this.#options.onRowGroup?.(group, this.#counter - 1);
    try {
      await file.encoder.writeRowGroup(group);
    } catch (error) {
      await this.abort(error);
      throw error;
    }
    this.#bytesPerRow = file.encoder.bytesWritten / file.encoder.rowCount;
    if (file.encoder.bytesWritten >= this.#options.targetFileSize) await this.#closeCurrent();
  }

  /**
   * Writes `shared` (rows encoded once by shareRowGroup, for this writer's row type and codec) as a
   * row group of its own, after every held row: the held rows end a group first, so the groups of
   * two writers given the same shared groups hold the same rows, byte for byte. The file rolls at
   * the target size after it, as after any group.
   */
  async writeShared(shared: SharedRowGroup): Promise<void> {
    if (shared.rows.length === 0) return;
    const [ours, theirs] = [this.#options, shared.options];
    if ((ours.compression ?? 'zstd') !== (theirs.compression ?? 'zstd') || (ours.zstdLevel ?? 1) !== (theirs.zstdLevel ?? 1)) {
      throw new Error('a row group encoded with other file options');
    }
    await this.#flush();
    const file = this.#current ?? this.#open();
    this.#observeStats(file, shared.rows, shared.stats);
    this.#options.onRowGroup?.(shared.rows, this.#counter - 1);
    try {
      await file.encoder.writeEncoded(shared.encoded);
    } catch (error) {
      await this.abort(error);
      throw error;
    }
    this.#bytesPerRow = file.encoder.bytesWritten / file.encoder.rowCount;
    if (file.encoder.bytesWritten >= this.#options.targetFileSize) await this.#closeCurrent();
  }

  /**
   * Rows the next row group takes once the held rows are written: the row-group bound, or what is
   * left of the open file's target size at the rows' estimated encoded size (1,024 before any
   * estimate). A caller forming groups itself (writeShared) sizes them by it.
   */
  nextGroupRows(): number {
    return this.#nextGroupRows(this.#current);
  }

  /** The first `rows` held rows as one batch (a held batch is split when the group ends inside it). */
  #takePending(rows: number): ColumnBatch {
    this.#pendingRows -= rows;
    return shiftRows(this.#options.rowType, this.#pending, rows);
  }

  /** Writes every held row. */
  async #flush(): Promise<void> {
    while (this.#pendingRows > 0) await this.#writeGroup();
  }

  /** Ends the open file now; the next write starts a new one (the end of a sorted run). */
  async roll(): Promise<void> {
    await this.#flush();
    await this.#closeCurrent();
  }

  /** Closes the open file and returns every file written, in order. */
  async close(): Promise<DataFileResult[]> {
    await this.#flush();
    await this.#closeCurrent();
    return [...this.#results];
  }

  /** Abandons the open file (its sink is aborted). Files already closed stay listed by close(). */
  async abort(reason: unknown): Promise<void> {
    this.#pending = [];
    this.#pendingRows = 0;
    const file = this.#current;
    this.#current = undefined;
    if (file) await file.encoder.abort(reason);
  }

  #open(): OpenFile {
    const fileName = `${this.#options.fileNamePrefix ?? 'data-'}${this.#options.uuid}-${this.#counter}.parquet`;
    this.#counter += 1;
    const encoder = new ParquetFileEncoder(this.#options.rowType, this.#options.openSink(fileName), this.#options);
    this.#current = { fileName, encoder, stats: undefined, firstRow: undefined, lastRow: undefined };
    return this.#current;
  }

  /** Rows of the next row group of `file` (undefined: the next file, not opened yet). */
  #nextGroupRows(file: OpenFile | undefined): number {
    const max = this.#options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    if (this.#bytesPerRow === 0) return Math.min(max, MIN_ROW_GROUP_ROWS);
    const left = this.#options.targetFileSize - (file?.encoder.bytesWritten ?? 0);
    return Math.max(1, Math.min(max, Math.max(MIN_ROW_GROUP_ROWS, Math.ceil(left / this.#bytesPerRow))));
  }

  #observe(file: OpenFile, group: ColumnBatch): void {
    this.#observeStats(file, group, groupStats(group));
  }

  #observeStats(file: OpenFile, group: ColumnBatch, stats: readonly ColumnStats[]): void {
    file.stats = file.stats === undefined ? [...stats] : file.stats.map((s, i) => mergeStats(s, stats[i] as ColumnStats));
    file.firstRow ??= group.columns.map((c) => valueAt(c, 0));
    file.lastRow = group.columns.map((c) => valueAt(c, group.length - 1));
  }

  async #closeCurrent(): Promise<void> {
    const file = this.#current;
    if (!file) return;
    this.#current = undefined;
    const fileSize = await file.encoder.finish();
    this.#results.push({
      fileName: file.fileName,
      fileSize,
      rowCount: file.encoder.rowCount,
      stats: file.stats ?? [],
      firstRow: file.firstRow ?? [],
      lastRow: file.lastRow ?? [],
    });
  }
}

/** The column statistics of a row group, per column (a key-value batch's _KEY_ columns are their value columns: computed once). */
function groupStats(group: ColumnBatch): ColumnStats[] {
  const seen = new Map<Column, ColumnStats>();
  return group.columns.map((column) => {
    const known = seen.get(column) ?? columnStats(column, group.length);
    seen.set(column, known);
    return known;
  });
}

/** Rows encoded once as a row group, with their column statistics, for DataFileWriter.writeShared. */
export interface SharedRowGroup {
  readonly rows: ColumnBatch;
  readonly encoded: EncodedRowGroup;
  readonly stats: readonly ColumnStats[];
  /** The file options it was encoded with (a writer given it must write its files the same way). */
  readonly options: ParquetEncodeOptions;
}

/** Encodes `rows` once as a row group of files of `rowType` written with `options`. */
export function shareRowGroup(rowType: RowType, rows: ColumnBatch, options: ParquetEncodeOptions): SharedRowGroup {
  return { rows, encoded: encodeRowGroup(rowType, rows, options), stats: groupStats(rows), options: { compression: options.compression, zstdLevel: options.zstdLevel } };
}

/** A sink that collects the file in memory (tests and small files). */
export function memorySink(): FileSink & { bytes(): Uint8Array } {
  const chunks: Uint8Array[] = [];
  let closed = false;
  return {
    write(chunk) {
      chunks.push(chunk);
      return Promise.resolve();
    },
    close() {
      closed = true;
      return Promise.resolve();
    },
    bytes() {
      if (!closed) throw new Error('memorySink: file not closed');
      const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const chunk of chunks) {
        out.set(chunk, at);
        at += chunk.length;
      }
      return out;
    },
  };
}
