/**
 * Reads Paimon Parquet data files (ours, Paimon Java's, pypaimon's) into ColumnBatches of a table's
 * row type, one row group at a time. Mirrors what org.apache.paimon.format.parquet.ParquetReaderFactory
 * does: columns are matched by name (clipParquetSchema), a table column absent from the file reads
 * as null (a column added by schema evolution), and values are decoded from their physical form
 * (ParquetVectorUpdaterFactory), whatever annotation the writer chose.
 *
 * Decoding uses hyparquet, shown a copy of the footer with every logical annotation removed: it then
 * returns physical values (INT32, INT64 as bigint, bytes), which we convert exactly. Its own
 * conversions are lossy for us (DECIMAL to a JS number, timestamps to Date, INT96 read as an
 * unsigned nanos-of-day). INT96 chunks are shown as FIXED_LEN_BYTE_ARRAY(12), the same PLAIN bytes.
 */
import { parquetMetadataAsync, parquetRead, type AsyncBuffer, type FileMetaData, type SchemaElement } from 'hyparquet';
import { getSchemaPath } from 'hyparquet/src/schema.js';
import { compressors as extraCodecs } from 'hyparquet-compressors';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { DataField, InternalValue, RowType } from '../spec/types.ts';
import { allocateColumn, LITTLE_ENDIAN, valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { decimalFromBytes, decimalWordsInto, microsInto, timestampFromInt96, timestampFromNanos } from './parquet-values.ts';
import { checkChunkPageCrcs } from './parquet-page-crc.ts';
import { decodeRawChunk, type RawChunk } from './parquet-raw-chunk.ts';
import type { PageArena } from './page-arena.ts';
import { decompressZstdPage } from './zstd-pages.ts';

/** Random access to a file's bytes, e.g. an ObjectStore ranged get. */
export interface ByteSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export function byteSourceFromBytes(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: (offset, length) => Promise.resolve(bytes.subarray(offset, offset + length)) };
}

/** ZSTD through one reused context (zstd-pages.ts): thousands of small pages cost little more than their bytes. */
const decompressors = { ...extraCodecs, ZSTD: decompressZstdPage };
/** ZSTD pages into `arena`'s buffers; the other codecs allocate their own. */
function arenaDecompressors(arena: PageArena): typeof decompressors {
  return { ...decompressors, ZSTD: (input: Uint8Array, size: number) => decompressZstdPage(input, size, (length) => arena.take(length)) };
}

/**
 * `source` read ahead: a read that the last fetched window does not hold fetches at least `window`
 * bytes from its offset (one ranged GET instead of one per column chunk and page of the row groups
 * that follow). For a reader that walks a file front to back reading most of it (a before-image
 * probe); memory: one window.
 */
export function readAheadSource(source: ByteSource, window: number): ByteSource {
  let start = 0;
  let held: Uint8Array = new Uint8Array(0);
  return {
    size: source.size,
    read: async (offset, length) => {
      if (offset >= start && offset + length <= start + held.length) return held.subarray(offset - start, offset - start + length);
      if (length >= window) return source.read(offset, length);
      const fetched = await source.read(offset, Math.min(source.size, offset + window) - offset);
      start = offset;
      held = fetched;
      return fetched.subarray(0, length);
    },
  };
}

function asyncBuffer(source: ByteSource): AsyncBuffer {
  return {
    byteLength: source.size,
    slice: async (start, end) => {
      const bytes = await source.read(start, (end ?? source.size) - start);
      return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
        ? bytes.buffer
        : new Uint8Array(bytes).buffer; // a copy: Buffer#slice would be a view
    },
  };
}

/** An open Parquet data file. Reads row groups on demand; memory holds one row group at a time. */
export class ParquetDataFileReader {
  readonly #source: ByteSource;
  readonly #file: AsyncBuffer;
  readonly #metadata: FileMetaData;
  /** The footer with annotations stripped and INT96 shown as FIXED_LEN_BYTE_ARRAY(12). */
  readonly #physical: FileMetaData;
  readonly #leaves: ReadonlyMap<string, SchemaElement>;
  /** The first row of each row group, and the row count last. */
  readonly #groupStarts: readonly number[];
  /** Column chunks (by their first byte) whose page checksums were checked (parquet-page-crc.ts). */
  readonly #checked = new Set<number>();

  private constructor(source: ByteSource, file: AsyncBuffer, metadata: FileMetaData) {
    this.#source = source;
    this.#file = file;
    this.#metadata = metadata;
    this.#physical = physicalMetadata(metadata);
    this.#leaves = new Map(metadata.schema.slice(1).map((e) => [e.name, e]));
    const starts = [0];
    for (const group of metadata.row_groups) starts.push((starts[starts.length - 1] as number) + Number(group.num_rows));
    this.#groupStarts = starts;
  }

  static async open(source: ByteSource): Promise<ParquetDataFileReader> {
    const file = asyncBuffer(source);
    try {
      return new ParquetDataFileReader(source, file, await parquetMetadataAsync(file));
    } catch (cause) {
      throw errorFrom(tableErrors, 'PARQUET_FILE_INVALID', `not a readable Parquet file: ${String(cause)}`, {}, { cause });
    }
  }

  get rowCount(): number {
    return Number(this.#metadata.num_rows);
  }

  get rowGroupCount(): number {
    return this.#metadata.row_groups.length;
  }

  /** The file's own Parquet schema (root first), as written. */
  get schema(): readonly SchemaElement[] {
    return this.#metadata.schema;
  }

  get footer(): FileMetaData {
    return this.#metadata;
  }

  /** Reads row group `index` as a batch of `rowType` (a projection: any subset of the table's fields). */
  async readRowGroup(index: number, rowType: RowType): Promise<ColumnBatch> {
    const [start, end] = this.#groupRange(index);
    return this.readRows(rowType, start, end);
  }

  /**
   * Rows [start, end) of the file (within one row group is cheapest) as a batch of `rowType`. Rows
   * within one row group of flat columns are decoded page by page (parquet-raw-chunk.ts: only the
   * pages holding them, no JS array of values or levels per page) and converted straight into the
   * output columns; anything else (a range across row groups, a nested column, a part of a row
   * group that has an offset index) through hyparquet's
   * parquetRead. Both give the same values and refuse corrupt data (the page decoder checks a whole
   * page's dictionary ids where parquetRead checked only the rows read).
   */
  async readRows(rowType: RowType, start: number, end: number): Promise<ColumnBatch> {
    const length = Math.max(0, end - start);
    const present = rowType.fields.filter((f) => this.#leaves.has(f.name));
    const filling = new Map(present.map((f) => [f.name, new ColumnFiller(f, this.#leaves.get(f.name) as SchemaElement, length)]));
    if (present.length > 0 && length > 0) {
      const group = this.#groupStarts.findLastIndex((s, g) => g < this.rowGroupCount && s <= start);
      const [groupStart, groupEnd] = group < 0 ? [0, 0] : this.#groupRange(group);
      // A part of a group with an offset index (parquet-mr writes one) stays with parquetRead, which
      // fetches only its pages: the page decoder reads each column chunk whole, once per call.
      const indexed = this.#metadata.row_groups[group]?.columns.every((c) => c.offset_index_offset !== undefined) ?? false;
      const whole = start === groupStart && end === groupEnd;
      const raw = group >= 0 && end <= groupEnd && (whole || !indexed) ? await this.#rawChunks(group, present, groupEnd - groupStart, undefined, [start - groupStart, end - groupStart]) : undefined;
      if (raw !== undefined) this.#fillFrom(raw, start - groupStart, filling);
      // Values are converted as hyparquet hands each chunk over, straight into the output columns.
      else await this.#decode(present, start, end, filling);
    }
    const columns = rowType.fields.map((field) => filling.get(field.name)?.result() ?? missingColumn(field, length));
    return { rowType, length, columns };
  }

  /** The output columns from decoded chunks, their rows from `base` of the group on. */
  #fillFrom(chunks: ReadonlyMap<string, RawChunk>, base: number, filling: ReadonlyMap<string, ColumnFiller>): void {
    try {
      for (const [name, chunk] of chunks) filling.get(name)?.fillFrom(chunk, base);
    } catch (cause) {
      throw errorFrom(tableErrors, 'PARQUET_FILE_INVALID', `cannot decode Parquet data: ${String(cause)}`, {}, { cause });
    }
  }

  /** Rows [start, end) of row group `index` in the file's numbering. */
  rowGroupRange(index: number): [number, number] {
    return this.#groupRange(index);
  }

  /**
   * Rows [start, end) of the file as `rowType`, decoded but not converted: a value is converted when
   * asked for (`value(field, row)`, rows counted from `start`). For reading a few rows of many (a
   * before-image probe): the pages are decompressed and decoded as by readRows, but the per-row
   * conversion (strings from UTF-8, integers to bigint, …) is paid only for the rows asked for.
   * `arena`: where a whole row group's ZSTD pages are decompressed (page-arena.ts); the rows read
   * must not be used after the arena's release. A value is never a view of a page: a BINARY value
   * is copied, so a value kept outlives the arena's release.
   */
  async readRowsSparse(rowType: RowType, start: number, end: number, options: { readonly arena?: PageArena } = {}): Promise<SparseRows> {
    const length = Math.max(0, end - start);
    const present = rowType.fields.filter((f) => this.#leaves.has(f.name));
    // A whole row group (the probe's reads): decoded without per-row values. Empty groups share
    // their start with the next one, so the last group starting at `start` is the one that may end at `end`.
    const group = this.#groupStarts.lastIndexOf(start, this.rowGroupCount - 1);
    const whole = group >= 0 && this.#groupStarts[group + 1] === end;
    const raw = length > 0 && whole ? await this.#rawChunks(group, present, length, options.arena) : undefined;
    const chunks = new Map<string, { rowStart: number; values: ArrayLike<unknown> }[]>(present.map((f) => [f.name, []]));
    if (raw === undefined && present.length > 0 && length > 0) {
      await this.#read(present, start, end, (chunk) => chunks.get(chunk.columnName)?.push({ rowStart: chunk.rowStart - start, values: chunk.columnData }));
    }
    const readers = rowType.fields.map((field): ((row: number) => InternalValue) => {
      const chunk = raw?.get(field.name);
      const parts = chunks.get(field.name);
      if (chunk === undefined && (raw !== undefined || parts === undefined)) {
        const column = missingColumn(field, length);
        return (row) => valueAt(column, row);
      }
      // One row's column: the value is set by the same setter as a full read, then read back.
      const validity = new Uint8Array(1);
      const column = allocateColumn(field.type, 1, validity);
      const set = valueSetter(field, this.#leaves.get(field.name) as SchemaElement, column);
      const physical = (row: number): unknown => {
        if (chunk !== undefined) return chunk.at(row);
        const part = (parts as { rowStart: number; values: ArrayLike<unknown> }[]).findLast((p) => p.rowStart <= row);
        return part === undefined ? undefined : part.values[row - part.rowStart];
      };
      // A physical value that is already its internal value (INT64 → BIGINT or a DECIMAL's unscaled
      // value, INT32 → an int32 column, DOUBLE → DOUBLE) is returned as it is: the setter and the
      // read back would store and return the same value.
      const element = this.#leaves.get(field.name) as SchemaElement;
      const same =
        (column.kind === 'int64' && element.type === 'INT64') || (column.kind === 'int32' && element.type === 'INT32') || (column.kind === 'float64' && element.type === 'DOUBLE');
      if (same) {
        return (row) => {
          const v = physical(row);
          return v === undefined ? null : (v as InternalValue);
        };
      }
      return (row) => {
        const v = physical(row);
        if (v === null || v === undefined) return null;
        validity[0] = 1;
        set(0, v);
        const value = valueAt(column, 0);
        // A BINARY value is a view of its page (or of the read-ahead window): a copy of its own.
        return value instanceof Uint8Array ? value.slice() : value;
      };
    });
    return { length, value: (field, row) => (readers[field] as (row: number) => InternalValue)(row) };
  }

  /**
   * The chunks of `fields` in row group `index`, decoded without per-row values
   * (parquet-raw-chunk.ts); undefined when one of them is not a flat column (read by parquetRead).
   */
  async #rawChunks(index: number, fields: readonly DataField[], rows: number, arena: PageArena | undefined, range?: readonly [number, number]): Promise<Map<string, RawChunk> | undefined> {
    const group = this.#physical.row_groups[index];
    const wanted = fields.map((f) => {
      const path = getSchemaPath(this.#physical.schema, [f.name]);
      const meta = group?.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === f.name)?.meta_data;
      return { name: f.name, path, meta };
    });
    if (wanted.some((w) => w.path.length !== 2 || w.meta === undefined || (w.path[1]?.children.length ?? 0) > 0)) return undefined;
    try {
      const decoded = await Promise.all(
        wanted.map(async ({ name, path, meta }) => {
          const m = meta as NonNullable<typeof meta>;
          const from = Number(m.dictionary_page_offset || m.data_page_offset);
          // The source's bytes as they are (a view of a read-ahead window): decoding only reads them.
          const bytes = await this.#source.read(from, Number(m.total_compressed_size));
          return [name, decodeRawChunk(bytes, m, path, rows, arena === undefined ? decompressors : arenaDecompressors(arena), from, range)] as const;
        }),
      );
      return new Map(decoded);
    } catch (cause) {
      throw errorFrom(tableErrors, 'PARQUET_FILE_INVALID', `cannot decode Parquet data: ${String(cause)}`, {}, { cause });
    }
  }

  /**
   * Every row in order, in batches of at most `maxRows` where the file lets us cut a row group
   * cheaply: a group that has an offset index (parquet-mr writes one) is read page range by page
   * range; a group without one is read whole (ours hold at most 128 Ki rows; pyarrow's up to 1 Mi).
   */
  async *batches(rowType: RowType, maxRows = 128 * 1024): AsyncGenerator<ColumnBatch> {
    for (let i = 0; i < this.rowGroupCount; i++) {
      const [start, end] = this.#groupRange(i);
      const indexed = this.#metadata.row_groups[i]?.columns.every((c) => c.offset_index_offset !== undefined) ?? false;
      const step = indexed ? maxRows : end - start;
      for (let s = start; s < end; s += step) yield await this.readRows(rowType, s, Math.min(end, s + step));
    }
  }

  #groupRange(index: number): [number, number] {
    const start = this.#groupStarts[index];
    const end = this.#groupStarts[index + 1];
    if (start === undefined || end === undefined) throw new RangeError(`row group ${index} of ${this.rowGroupCount}`);
    return [start, end];
  }

  async #decode(fields: readonly DataField[], rowStart: number, rowEnd: number, filling: Map<string, ColumnFiller>): Promise<void> {
    // hyparquet calls onChunk where a throw is not its promise's rejection (an uncaught exception
    // would end the process): the first failure is kept and thrown once the read is over.
    let failure: unknown;
    await this.#read(fields, rowStart, rowEnd, (chunk) => {
      if (failure !== undefined) return;
      try {
        filling.get(chunk.columnName)?.fill(chunk.columnData, chunk.rowStart - rowStart);
      } catch (error) {
        failure = error;
      }
    });
    if (failure !== undefined) throw errorFrom(tableErrors, 'PARQUET_FILE_INVALID', `cannot decode Parquet data: ${String(failure)}`, {}, { cause: failure });
  }

  /**
   * hyparquet's parquetRead of rows [rowStart, rowEnd) of `fields`, then the page checksums of the
   * column chunks it touched, before any value is handed on (the caller returns nothing when this
   * throws). hyparquet parses page headers itself and does not check their crc, so each chunk is
   * checked here once per reader (a big row group is read in several slices), from the bytes
   * hyparquet fetched for it when they hold the whole chunk (no second read), else read again.
   */
  async #read(fields: readonly DataField[], rowStart: number, rowEnd: number, onChunk: (chunk: ColumnChunkData) => void): Promise<void> {
    const fetched: { start: number; bytes: Uint8Array }[] = [];
    const file: AsyncBuffer = {
      byteLength: this.#file.byteLength,
      slice: async (start, end) => {
        const buffer = await this.#file.slice(start, end);
        fetched.push({ start, bytes: new Uint8Array(buffer) });
        return buffer;
      },
    };
    let failure: unknown;
    try {
      await parquetRead({ file, metadata: this.#physical, columns: fields.map((f) => f.name), rowStart, rowEnd, utf8: false, useOffsetIndex: true, compressors: decompressors, onChunk });
    } catch (cause) {
      failure = cause;
    }
    try {
      // Also after a failed decode: a corrupt page is better named by its checksum than by what it decoded to.
      await this.#checkPages(new Set(fields.map((f) => f.name)), rowStart, rowEnd, fetched);
    } catch (cause) {
      throw errorFrom(tableErrors, 'PARQUET_FILE_INVALID', `corrupt Parquet data: ${cause instanceof Error ? cause.message : String(cause)}`, {}, { cause });
    }
    if (failure !== undefined) throw errorFrom(tableErrors, 'PARQUET_FILE_INVALID', `cannot decode Parquet data: ${String(failure)}`, {}, { cause: failure });
  }

  /** Checks the page crcs of the chunks of `names` in the row groups overlapping [rowStart, rowEnd), each once. */
  async #checkPages(names: ReadonlySet<string>, rowStart: number, rowEnd: number, fetched: readonly { start: number; bytes: Uint8Array }[]): Promise<void> {
    for (let g = 0; g < this.rowGroupCount; g++) {
      const [start, end] = this.#groupRange(g);
      if (end <= rowStart || start >= rowEnd) continue;
      for (const chunk of this.#metadata.row_groups[g]?.columns ?? []) {
        const meta = chunk.meta_data;
        if (meta === undefined || !names.has(meta.path_in_schema[0] ?? '')) continue;
        const from = Number(meta.dictionary_page_offset || meta.data_page_offset);
        const to = from + Number(meta.total_compressed_size);
        if (this.#checked.has(from)) continue;
        const held = fetched.find((f) => f.start <= from && to <= f.start + f.bytes.byteLength);
        const bytes = held === undefined ? await this.#source.read(from, to - from) : held.bytes.subarray(from - held.start, to - held.start);
        checkChunkPageCrcs(bytes, meta.path_in_schema.join('.'), from);
        this.#checked.add(from);
      }
    }
  }
}

/** What parquetRead's onChunk receives. */
type ColumnChunkData = Parameters<NonNullable<Parameters<typeof parquetRead>[0]['onChunk']>>[0];

/** Rows decoded from a file and converted one value at a time (ParquetDataFileReader.readRowsSparse). */
export interface SparseRows {
  readonly length: number;
  /** The value of field `field` (index in the row type read) at `row` (from the range's start). */
  value(field: number, row: number): InternalValue;
}

/** Reads a whole data file into one batch per row group (small files and tests). */
export async function readDataFile(source: ByteSource, rowType: RowType): Promise<ColumnBatch[]> {
  const reader = await ParquetDataFileReader.open(source);
  const batches: ColumnBatch[] = [];
  for await (const batch of reader.batches(rowType)) batches.push(batch);
  return batches;
}

function physicalMetadata(metadata: FileMetaData): FileMetaData {
  const schema = metadata.schema.map((e): SchemaElement => {
    const bare: SchemaElement = { name: e.name, type: e.type, type_length: e.type_length, repetition_type: e.repetition_type, num_children: e.num_children };
    return e.type === 'INT96' ? { ...bare, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 12 } : bare;
  });
  const row_groups = metadata.row_groups.map((group) => ({
    ...group,
    columns: group.columns.map((chunk) =>
      chunk.meta_data?.type === 'INT96' ? { ...chunk, meta_data: { ...chunk.meta_data, type: 'FIXED_LEN_BYTE_ARRAY' as const } } : chunk,
    ),
  }));
  return { ...metadata, schema, row_groups };
}

function missingColumn(field: DataField, length: number): Column {
  if (!field.type.nullable && length > 0) {
    throw errorFrom(tableErrors, 'PARQUET_COLUMN_MISSING', `NOT NULL column '${field.name}' is not in the data file`, { column: field.name });
  }
  return allocateColumn(field.type, length, new Uint8Array(length));
}

function mismatch(field: DataField, element: SchemaElement): never {
  throw errorFrom(
    tableErrors,
    'PARQUET_TYPE_MISMATCH',
    `column '${field.name}': Parquet ${element.type ?? 'group'} cannot be read as ${field.type.root}`,
    { column: field.name, parquetType: element.type ?? 'group', paimonType: field.type.root },
  );
}

// ignoreBOM: a value that starts with U+FEFF keeps it (the default decoder drops a leading one).
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Builds one output column from hyparquet's physical values (null/undefined for nulls). */
class ColumnFiller {
  readonly #column: Column;
  readonly #validity: Uint8Array;
  readonly #set: Setter;
  #nulls = 0;

  constructor(field: DataField, element: SchemaElement, length: number) {
    this.#validity = new Uint8Array(length).fill(1);
    this.#column = allocateColumn(field.type, length, this.#validity);
    this.#set = valueSetter(field, element, this.#column);
  }

  /**
   * Values of rows offset, offset + 1, … (rows outside the group are ignored). hyparquet gives a
   * null as `null`; `undefined` is a value the page does not hold (a dictionary index past the
   * dictionary, more defined rows than values): a corrupt file, refused rather than read as null.
   * @throws Error for such a value (#decode turns it into PARQUET_FILE_INVALID)
   */
  fill(values: ArrayLike<unknown>, offset: number): void {
    const length = this.#validity.length;
    for (let i = 0; i < values.length; i++) {
      const row = offset + i;
      if (row < 0 || row >= length) continue;
      const v = values[i];
      if (v === undefined) throw new Error(`row ${row} of the slice has no value in its page (a dictionary index past the dictionary, or fewer values than rows)`);
      if (v === null) {
        this.#validity[row] = 0;
        this.#nulls++;
      } else this.#set(row, v);
    }
  }

  /** Rows base, base + 1, … of a decoded chunk (null for a null, undefined for a value its page lacks, as in `fill`). */
  fillFrom(chunk: RawChunk, base: number): void {
    const length = this.#validity.length;
    for (let row = 0; row < length; row++) {
      const v = chunk.at(base + row);
      if (v === undefined) throw new Error(`row ${row} of the slice has no value in its page (a dictionary index past the dictionary, or fewer values than rows)`);
      if (v === null) {
        this.#validity[row] = 0;
        this.#nulls++;
      } else this.#set(row, v);
    }
  }

  result(): Column {
    return this.#nulls === 0 ? { ...this.#column, validity: undefined } : this.#column;
  }
}

type Setter = (row: number, value: unknown) => void;

function valueSetter(field: DataField, element: SchemaElement, column: Column): Setter {
  const physical = element.type;
  switch (column.kind) {
    case 'bool':
      if (physical !== 'BOOLEAN') return mismatch(field, element);
      return (r, v) => (column.values[r] = v === true ? 1 : 0);
    case 'int32':
      if (physical !== 'INT32') return mismatch(field, element);
      return (r, v) => (column.values[r] = v as number);
    case 'float32':
    case 'float64':
      if (physical !== 'FLOAT' && physical !== 'DOUBLE') return mismatch(field, element);
      return (r, v) => (column.values[r] = v as number);
    case 'int64': {
      const toBig = bigintReader(field, element);
      const values = column.values;
      if (!LITTLE_ENDIAN) return (r, v) => (values[r] = toBig(v));
      // The two 32-bit words of each value written as they are read: no BigInt made per value.
      const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
      if (physical === 'INT32') {
        return (r, v) => {
          words[2 * r] = v as number;
          words[2 * r + 1] = (v as number) < 0 ? -1 : 0;
        };
      }
      if (physical === 'FIXED_LEN_BYTE_ARRAY' || physical === 'BYTE_ARRAY') {
        return (r, v) => {
          if ((v as Uint8Array).length <= 8) decimalWordsInto(v as Uint8Array, words, r);
          else values[r] = toBig(v);
        };
      }
      return (r, v) => (values[r] = toBig(v));
    }
    case 'bigint': {
      const toBig = bigintReader(field, element);
      const values = column.values;
      return (r, v) => (values[r] = toBig(v));
    }
    case 'string':
      if (physical !== 'BYTE_ARRAY' && physical !== 'FIXED_LEN_BYTE_ARRAY') return mismatch(field, element);
      return (r, v) => (column.values[r] = typeof v === 'string' ? v : utf8.decode(v as Uint8Array));
    case 'binary':
      if (physical !== 'BYTE_ARRAY' && physical !== 'FIXED_LEN_BYTE_ARRAY') return mismatch(field, element);
      return (r, v) => (column.values[r] = typeof v === 'string' ? new TextEncoder().encode(v) : (v as Uint8Array));
    case 'timestamp': {
      const { millis, nanos } = column;
      const unit = timestampUnit(field, element);
      // INT64 millis and micros written as they are read (no Timestamp object per value).
      if (unit === 'MILLIS') {
        return (r, v) => {
          millis[r] = Number(v as bigint);
          nanos[r] = 0;
        };
      }
      if (unit === 'MICROS') return (r, v) => microsInto(v as bigint, millis, nanos, r);
      const read = unit === 'INT96' ? (v: unknown) => timestampFromInt96(v as Uint8Array) : (v: unknown) => timestampFromNanos(v as bigint);
      return (r, v) => {
        const ts = read(v);
        millis[r] = ts.epochMillis;
        nanos[r] = ts.nanoOfMillis;
      };
    }
  }
}

/** BIGINT and DECIMAL: INT32, INT64 or big-endian bytes (FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY). */
function bigintReader(field: DataField, element: SchemaElement): (v: unknown) => bigint {
  switch (element.type) {
    case 'INT32':
      return (v) => BigInt(v as number);
    case 'INT64':
      return (v) => v as bigint;
    case 'FIXED_LEN_BYTE_ARRAY':
    case 'BYTE_ARRAY':
      if (field.type.root !== 'DECIMAL') return mismatch(field, element);
      return (v) => decimalFromBytes(v as Uint8Array);
    default:
      return mismatch(field, element);
  }
}

/** TIMESTAMP: INT64 in the unit its annotation names (Paimon's precision default if none), or INT96. */
function timestampUnit(field: DataField, element: SchemaElement): 'MILLIS' | 'MICROS' | 'NANOS' | 'INT96' {
  if (element.type === 'INT96') return 'INT96';
  if (element.type !== 'INT64') return mismatch(field, element);
  const precision = field.type.root === 'TIMESTAMP' || field.type.root === 'TIMESTAMP_LTZ' ? field.type.precision : 3;
  const unit =
    element.logical_type?.type === 'TIMESTAMP'
      ? element.logical_type.unit
      : element.converted_type === 'TIMESTAMP_MICROS'
        ? 'MICROS'
        : element.converted_type === 'TIMESTAMP_MILLIS'
          ? 'MILLIS'
          : precision <= 3 || precision > 6
            ? 'MILLIS'
            : 'MICROS';
  return unit;
}
