/**
 * Parquet data files as Paimon writes them, streamed row group by row group.
 *
 *   ParquetFileEncoder   one file: ColumnBatch row groups in, bytes out through a FileSink
 *   DataFileWriter       one (partition, bucket): rolls to a new file past the target size
 *                        (Paimon's RollingFileWriter over ParquetWriterFactory), names files
 *                        data-<uuid>-<n>.parquet, and reports per file its size, row count,
 *                        per-column min/max/null count and first/last row.
 *
 * Encoding goes through hyparquet-writer. Two things it cannot say are patched into the footer:
 * INT96 (it has no INT96 writer; INT96's PLAIN bytes are those of FIXED_LEN_BYTE_ARRAY(12), so the
 * pages are written as such and the footer's schema and chunk types then say INT96), and the
 * logical annotations, which the encoder is not shown so that it takes our typed arrays as they
 * are instead of converting every value. Parquet column statistics are off: Paimon's Java reader
 * and pyarrow (pypaimon) treat a chunk without statistics as "may match", while a wrong bound
 * would drop rows; the manifest stats come from our own pass (column-stats.ts) instead.
 */
import { zstdCompressSync, constants as zlibConstants } from 'node:zlib';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { errorFrom } from '@tributary/protocol';
import { tableErrors } from '../errors.ts';
import type { DataType, InternalRow, RowType } from '../spec/types.ts';
import { sliceBatch, valueAt, type Column, type ColumnBatch } from './column-batch.ts';
import { columnStats, mergeStats, type ColumnStats } from './column-stats.ts';
import { decimalByteLength, parquetSchema, timestampEncoding, type SchemaElement } from './parquet-schema.ts';
import { bigInt64FromNumbers, decimalToFixedBytes, timestampToInt96, timestampToMicros } from './parquet-values.ts';

/** Where one file's bytes go, in order. `write` is awaited before more is encoded (back-pressure). */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** Called instead of close when writing failed; should discard what was written. */
  abort?(reason: unknown): Promise<void>;
}

export type ParquetCompression = 'zstd' | 'snappy' | 'none';

export interface ParquetEncodeOptions {
  /** Paimon's `file.compression`, default zstd. */
  readonly compression?: ParquetCompression;
  /** Paimon's `file.compression.zstd-level`, default 1. */
  readonly zstdLevel?: number;
}

/** Writes one Parquet file. Call writeRowGroup per row group, then finish (or abort). */
export class ParquetFileEncoder {
  readonly #rowType: RowType;
  readonly #writer: SinkByteWriter;
  readonly #parquet: ParquetWriter;
  #rows = 0;

  constructor(rowType: RowType, sink: FileSink, options: ParquetEncodeOptions = {}) {
    this.#rowType = rowType;
    this.#writer = new SinkByteWriter(sink);
    const compression = options.compression ?? 'zstd';
    const level = options.zstdLevel ?? 1;
    this.#parquet = new ParquetWriter({
      writer: this.#writer,
      schema: rowType.fields.length === 0 ? parquetSchema(rowType) : encoderSchema(rowType),
      codec: compression === 'zstd' ? 'ZSTD' : compression === 'snappy' ? 'SNAPPY' : 'UNCOMPRESSED',
      compressors: { ZSTD: (bytes) => zstdCompressSync(bytes, { params: { [zlibConstants.ZSTD_c_compressionLevel]: level } }) },
      statistics: false,
      createdBy: 'tributary (parquet-mr compatible Paimon layout)',
    });
  }

  /** Bytes handed to the sink or buffered so far: the file size once finished. */
  get bytesWritten(): number {
    return this.#writer.offset;
  }

  get rowCount(): number {
    return this.#rows;
  }

  /** Encodes rows [0, batch.length) as one row group and streams it to the sink. */
  async writeRowGroup(batch: ColumnBatch): Promise<void> {
    if (batch.length === 0) return;
    const columnData = this.#rowType.fields.map((field, i) => ({
      name: field.name,
      data: encoderValues(field.type, batch.columns[i] as Column, batch.length),
    }));
    await this.#parquet.write({ columnData, rowGroupSize: batch.length });
    this.#rows += batch.length;
  }

  /** Writes the footer, flushes and closes the sink. Returns the file size. */
  async finish(): Promise<number> {
    this.#parquet.schema = parquetSchema(this.#rowType);
    for (const group of this.#parquet.row_groups) {
      group.columns.forEach((chunk, i) => {
        const type = this.#rowType.fields[i]?.type;
        if (chunk.meta_data && type && isInt96(type)) chunk.meta_data.type = 'INT96';
      });
    }
    await this.#parquet.finish();
    await this.#writer.flush();
    await this.#writer.sink.close();
    return this.#writer.offset;
  }

  async abort(reason: unknown): Promise<void> {
    await this.#writer.sink.abort?.(reason);
  }
}

/** A ByteWriter whose flush (called by ParquetWriter after each row group) drains into the sink. */
class SinkByteWriter extends ByteWriter {
  readonly sink: FileSink;

  constructor(sink: FileSink) {
    super(1 << 20);
    this.sink = sink;
  }

  flush(): Promise<void> {
    if (this.index === 0) return Promise.resolve();
    const chunk = new Uint8Array(this.buffer.slice(0, this.index));
    this.index = 0;
    return this.sink.write(chunk);
  }
}

function isInt96(type: DataType): boolean {
  return (type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ') && timestampEncoding(type.precision) === 'INT96';
}

/** The schema the encoder sees: physical types only (strings keep UTF8 so it encodes them once). */
function encoderSchema(rowType: RowType): SchemaElement[] {
  return parquetSchema(rowType).map((element, i): SchemaElement => {
    if (i === 0) return element;
    const type = rowType.fields[i - 1]?.type;
    const physical: SchemaElement = { name: element.name, repetition_type: element.repetition_type, field_id: element.field_id };
    if (type && isInt96(type)) return { ...physical, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 12 };
    if (element.converted_type === 'UTF8') return { ...physical, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
    return { ...physical, type: element.type, type_length: element.type_length };
  });
}

type EncoderArray = Int32Array | BigInt64Array | Float32Array | Float64Array | unknown[];

/** The physical values of one column for the encoder: typed arrays when there are no nulls. */
function encoderValues(type: DataType, column: Column, length: number): EncoderArray {
  if (column.validity !== undefined && !type.nullable) {
    throw errorFrom(tableErrors, 'DATA_FILE_NULL_IN_REQUIRED', `null value in NOT NULL column of type ${type.root}`, {});
  }
  const values = physicalValues(type, column, length);
  const validity = column.validity;
  if (validity === undefined) return values;
  const out = new Array<unknown>(length);
  for (let i = 0; i < length; i++) out[i] = validity[i] === 1 ? values[i] : null;
  return out;
}

function physicalValues(type: DataType, column: Column, length: number): EncoderArray {
  switch (column.kind) {
    case 'bool':
      return Array.from(column.values.subarray(0, length), (v) => v === 1);
    case 'int64':
      if (type.root === 'DECIMAL' && type.precision <= 9) return Int32Array.from(column.values.subarray(0, length), Number);
      return column.values.subarray(0, length);
    case 'int32':
    case 'float32':
    case 'float64':
      return column.values.subarray(0, length);
    case 'string':
    case 'binary':
      return column.values.length === length ? column.values : column.values.slice(0, length);
    case 'bigint': {
      const width = type.root === 'DECIMAL' ? decimalByteLength(type.precision) : 16;
      return column.values.slice(0, length).map((v) => decimalToFixedBytes(v, width));
    }
    case 'timestamp':
      return timestampValues(type, column, length);
  }
}

function timestampValues(type: DataType, column: Extract<Column, { kind: 'timestamp' }>, length: number): EncoderArray {
  const precision = type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ' ? type.precision : 3;
  const { millis, nanos } = column;
  switch (timestampEncoding(precision)) {
    case 'MILLIS':
      return bigInt64FromNumbers(millis, length);
    case 'MICROS': {
      const micros = new Float64Array(length);
      for (let i = 0; i < length; i++) micros[i] = (millis[i] as number) * 1000 + Math.floor((nanos[i] as number) / 1000);
      if (micros.every(Number.isSafeInteger)) return bigInt64FromNumbers(micros);
      const out = new BigInt64Array(length);
      for (let i = 0; i < length; i++) out[i] = timestampToMicros(millis[i] as number, nanos[i] as number);
      return out;
    }
    case 'INT96': {
      const out = new Array<Uint8Array>(length);
      for (let i = 0; i < length; i++) out[i] = timestampToInt96(millis[i] as number, nanos[i] as number);
      return out;
    }
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
  /** One UUID per writer (format code takes no randomness: the caller makes it). */
  readonly uuid: string;
  /** Opens the sink of a new file, e.g. an ObjectStore put of `<partition>/bucket-N/<fileName>`. */
  readonly openSink: (fileName: string) => FileSink;
  /** Paimon's target-file-size in bytes: a file is closed once it reaches it. */
  readonly targetFileSize: number;
  /** Most rows in one row group (bounds memory: one row group is encoded at a time). */
  readonly rowGroupRows?: number;
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
 * given; files are numbered from 0. Memory: one row group of encoded output at a time.
 */
export class DataFileWriter {
  readonly #options: DataFileWriterOptions;
  readonly #results: DataFileResult[] = [];
  #current: OpenFile | undefined;
  #counter = 0;
  /** Encoded bytes per row seen so far, to size row groups so a file ends near the target. */
  #bytesPerRow = 0;

  constructor(options: DataFileWriterOptions) {
    if (!(options.targetFileSize > 0)) {
      throw errorFrom(tableErrors, 'DATA_FILE_OPTION_INVALID', 'targetFileSize must be positive', { targetFileSize: options.targetFileSize });
    }
    this.#options = options;
  }

  async write(batch: ColumnBatch): Promise<void> {
    let start = 0;
    while (start < batch.length) {
      const file = this.#current ?? this.#open();
      const rows = Math.min(batch.length - start, this.#nextGroupRows(file));
      const group = sliceBatch(batch, start, start + rows);
      this.#observe(file, group);
      this.#options.onRowGroup?.(group, this.#counter - 1);
      try {
        await file.encoder.writeRowGroup(group);
      } catch (error) {
        await this.abort(error);
        throw error;
      }
      this.#bytesPerRow = file.encoder.bytesWritten / file.encoder.rowCount;
      start += rows;
      if (file.encoder.bytesWritten >= this.#options.targetFileSize) await this.#closeCurrent();
    }
  }

  /** Ends the open file now; the next write starts a new one (the end of a sorted run). */
  async roll(): Promise<void> {
    await this.#closeCurrent();
  }

  /** Closes the open file and returns every file written, in order. */
  async close(): Promise<DataFileResult[]> {
    await this.#closeCurrent();
    return [...this.#results];
  }

  /** Abandons the open file (its sink is aborted). Files already closed stay listed by close(). */
  async abort(reason: unknown): Promise<void> {
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

  #nextGroupRows(file: OpenFile): number {
    const max = this.#options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    if (this.#bytesPerRow === 0) return Math.min(max, MIN_ROW_GROUP_ROWS);
    const left = this.#options.targetFileSize - file.encoder.bytesWritten;
    return Math.max(1, Math.min(max, Math.max(MIN_ROW_GROUP_ROWS, Math.ceil(left / this.#bytesPerRow))));
  }

  #observe(file: OpenFile, group: ColumnBatch): void {
    const stats = group.columns.map((column) => columnStats(column, group.length));
    file.stats = file.stats === undefined ? stats : file.stats.map((s, i) => mergeStats(s, stats[i] as ColumnStats));
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
