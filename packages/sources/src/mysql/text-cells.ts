/**
 * The rows of a text-protocol result kept as their raw cells, batch by batch, instead of a JS array
 * per row and a string per value: each row packet's payload is copied into the batch's one byte
 * buffer and its length-coded cells are indexed (start and end per cell, -1 for NULL). The batch is
 * the source batch's `columnar` cells (source.ts): asked by the column converter (values/columns.ts)
 * to fill a table column, it writes the common cells from their bytes straight into it.
 *
 * A row's source values, when something asks for them (a cell the byte path does not take, the
 * bad-row policy, the resume key), are mysql2's own: its row parser runs over the kept bytes, then
 * the source's decoders (source.ts), so they are exactly what the row path gives.
 */
import type { Column, DataType } from '@tributary/table';
import type { ColumnarCells, SourceRow, SourceValue } from '../source.ts';
import { fastEpochDayBytes, fastSafeIntegerBytes, fastTimestampBytesInto, fastUnscaledDecimalBytes, fitsCodePoints } from '../values/fast-text.ts';
import { INT_LIMITS, TWO_32, MAX_EPOCH_MILLIS, LITTLE_ENDIAN } from '../values/cell-limits.ts';
import { timestampCutInto } from '../values/timestamp-cut.ts';
import { StringIntern } from '../values/string-intern.ts';

/**
 * What a cell's source value is, for the cells that state it plainly: `integer`: the number its
 * decimal digits write; `text`: its UTF-8 text; `timestamp`: the UTC instant its
 * `YYYY-MM-DD HH:MM:SS[.f…]` states (when it is one); `other`: only the row's parse tells.
 */
export type CellKind = 'integer' | 'text' | 'timestamp' | 'other';

/** A mysql2 row packet, as much of it as is read here: its bytes, and where the row's payload is. */
export interface RowPacket {
  readonly buffer: Buffer;
  readonly offset: number;
  readonly end: number;
}

/** A row packet's row as mysql2 parses it (its own generated parser, over a packet made on the kept bytes). */
export type ParseRow = (bytes: Buffer, start: number, end: number) => unknown[];

/** mysql2's raw row (its array) as the batch's source row, decoded by the source's column decoders. */
export type DecodeRow = (raw: unknown[]) => SourceRow;

/** MySQL's field types whose text cells state their value plainly (mysql2's enum_field_types). */
const INTEGER_TYPES = new Set([1, 2, 3, 9, 13]); // TINY, SHORT, LONG, INT24, YEAR: mysql2 gives a number
const TEXT_TYPES = new Set([0, 8, 10, 246]); // DECIMAL, LONGLONG (as text), DATE, NEWDECIMAL: mysql2 gives the text
const STRING_TYPES = new Set([15, 249, 250, 251, 252, 253, 254]); // VARCHAR, the BLOBs/TEXTs, VAR_STRING, STRING
const TIMESTAMP_TYPES = new Set([7, 12]); // TIMESTAMP, DATETIME: decoded to an instant by the source
const BINARY_CHARSET = 63;

/** What mysql2 tells of a result column, as much as decides its cell kind. */
export interface CellField {
  readonly columnType?: number;
  readonly characterSet?: number;
  readonly encoding?: string;
}

/**
 * The kind of each read column's cells: plain only where the source's value is exactly what the
 * kind says (a BOOLEAN-marked TINYINT, TIME, BIT, a binary string or one in another encoding are
 * `other`: their values come from the row). A zero date fails the byte readers and is then asked
 * of the row, where the zero-date policy applies.
 */
export function cellKinds(fields: readonly CellField[], booleanColumns: ReadonlySet<number>): CellKind[] {
  return fields.map((field, i) => {
    if (booleanColumns.has(i)) return 'other';
    const type = field.columnType ?? -1;
    if (INTEGER_TYPES.has(type)) return 'integer';
    if (TEXT_TYPES.has(type)) return 'text';
    if (TIMESTAMP_TYPES.has(type)) return 'timestamp';
    if (STRING_TYPES.has(type) && field.characterSet !== BINARY_CHARSET && field.encoding === 'utf8') return 'text';
    return 'other';
  });
}

/** Collects row packets into `TextCells` batches of the read columns (the first `width` of each row). */
export class TextCellsBuilder {
  readonly #width: number;
  readonly #kinds: readonly CellKind[];
  readonly #parse: ParseRow;
  readonly #decode: DecodeRow;
  #bytes: Buffer;
  #used = 0;
  #starts: Int32Array;
  #ends: Int32Array;
  #rowStarts: Int32Array;
  #rowEnds: Int32Array;
  #rows = 0;
  /** Per read column, its short text cells' strings kept across this read's batches (made when a column first asks). */
  readonly #interns: (StringIntern | undefined)[] = [];

  /** `width`: the read columns, the first of each row (any further are key columns read for the resume point). */
  constructor(width: number, kinds: readonly CellKind[], parse: ParseRow, decode: DecodeRow, capacityRows: number) {
    this.#width = width;
    this.#kinds = kinds;
    this.#parse = parse;
    this.#decode = decode;
    this.#bytes = Buffer.allocUnsafe(Math.max(capacityRows, 1) * 64);
    this.#starts = new Int32Array(capacityRows * width);
    this.#ends = new Int32Array(capacityRows * width);
    this.#rowStarts = new Int32Array(capacityRows);
    this.#rowEnds = new Int32Array(capacityRows);
  }

  get rows(): number {
    return this.#rows;
  }

  /** Appends one row packet's row. */
  append(packet: RowPacket): void {
    const length = packet.end - packet.offset;
    this.#reserve(length);
    const base = this.#used;
    packet.buffer.copy(this.#bytes, base, packet.offset, packet.end);
    const bytes = this.#bytes;
    const end = base + length;
    const width = this.#width;
    const cell = this.#rows * width;
    let at = base;
    for (let c = 0; c < width; c++) {
      const tag = bytes[at] ?? 0;
      let size: number;
      if (tag < 0xfb) {
        size = tag;
        at += 1;
      } else if (tag === 0xfb) {
        this.#starts[cell + c] = -1;
        this.#ends[cell + c] = -1;
        at += 1;
        continue;
      } else if (tag === 0xfc) {
        size = bytes.readUInt16LE(at + 1);
        at += 3;
      } else if (tag === 0xfd) {
        size = bytes.readUIntLE(at + 1, 3);
        at += 4;
      } else {
        size = Number(bytes.readBigUInt64LE(at + 1));
        at += 9;
      }
      if (at + size > end) throw new Error('a MySQL row packet ends inside a cell');
      this.#starts[cell + c] = at;
      this.#ends[cell + c] = at + size;
      at += size;
    }
    this.#rowStarts[this.#rows] = base;
    this.#rowEnds[this.#rows] = end;
    this.#used = end;
    this.#rows++;
  }

  /** The rows appended since the last call, as one batch; the builder starts a new one. */
  take(): MysqlTextCells {
    const n = this.#rows;
    const cells = new MysqlTextCells(
      this.#bytes.subarray(0, this.#used),
      this.#starts.subarray(0, n * this.#width),
      this.#ends.subarray(0, n * this.#width),
      this.#rowStarts.subarray(0, n),
      this.#rowEnds.subarray(0, n),
      this.#width,
      this.#kinds,
      this.#parse,
      this.#decode,
      this.#interns,
    );
    const capacity = this.#rowStarts.length;
    this.#bytes = Buffer.allocUnsafe(this.#bytes.length);
    this.#starts = new Int32Array(capacity * this.#width);
    this.#ends = new Int32Array(capacity * this.#width);
    this.#rowStarts = new Int32Array(capacity);
    this.#rowEnds = new Int32Array(capacity);
    this.#used = 0;
    this.#rows = 0;
    return cells;
  }

  /** Room for `length` more bytes and one more row. */
  #reserve(length: number): void {
    if (this.#used + length > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.#bytes.length * 2, this.#used + length));
      this.#bytes.copy(grown, 0, 0, this.#used);
      this.#bytes = grown;
    }
    if (this.#rows === this.#rowStarts.length) {
      const rows = Math.max(this.#rows * 2, 16);
      this.#starts = grow(this.#starts, rows * this.#width);
      this.#ends = grow(this.#ends, rows * this.#width);
      this.#rowStarts = grow(this.#rowStarts, rows);
      this.#rowEnds = grow(this.#rowEnds, rows);
    }
  }
}

function grow(array: Int32Array, length: number): Int32Array {
  const grown = new Int32Array(length);
  grown.set(array);
  return grown;
}

/**
 * One batch of rows as text cells; its source rows are parsed only when asked for (and then kept).
 * `fill` writes a column's plain cells straight from their bytes (the byte twins of the column
 * converter's fast readers, values/fast-text.ts, for the kinds whose source value is exactly what
 * the bytes say) and hands every other cell to the converter as its source value.
 */
export class MysqlTextCells implements ColumnarCells {
  readonly bytes: Buffer;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly width: number;
  readonly kinds: readonly CellKind[];
  readonly #rowStarts: Int32Array;
  readonly #rowEnds: Int32Array;
  readonly #parse: ParseRow;
  readonly #decode: DecodeRow;
  readonly #interns: (StringIntern | undefined)[];
  #rows: SourceRow[] | undefined;
  #lastRow = -1;
  #last: SourceRow = [];

  /** `interns`: per column, the strings its text cells gave (shared by the batches of one read; filled as columns ask). */
  constructor(
    bytes: Buffer,
    starts: Int32Array,
    ends: Int32Array,
    rowStarts: Int32Array,
    rowEnds: Int32Array,
    width: number,
    kinds: readonly CellKind[],
    parse: ParseRow,
    decode: DecodeRow,
    interns: (StringIntern | undefined)[] = [],
  ) {
    this.bytes = bytes;
    this.starts = starts;
    this.ends = ends;
    this.#rowStarts = rowStarts;
    this.#rowEnds = rowEnds;
    this.width = width;
    this.kinds = kinds;
    this.#parse = parse;
    this.#decode = decode;
    this.#interns = interns;
  }

  get length(): number {
    return this.#rowStarts.length;
  }

  /** mysql2's own raw row `r` (every field of the packet, key columns included). */
  raw(r: number): unknown[] {
    return this.#parse(this.bytes, this.#rowStarts[r] ?? 0, this.#rowEnds[r] ?? 0);
  }

  /** Every row, as the row path gives them. */
  rows(): readonly SourceRow[] {
    this.#rows ??= Array.from({ length: this.length }, (_, r) => this.#decode(this.raw(r)));
    return this.#rows;
  }

  fill(index: number, type: DataType, column: Column, other: (r: number, value: SourceValue) => void): void {
    const read = cellReader(this.kinds[index] ?? 'other', type, column, () => (this.#interns[index] ??= new StringIntern()));
    const { bytes, starts, ends, width } = this;
    for (let r = 0, i = index; r < this.length; r++, i += width) {
      const start = starts[i] ?? -1;
      if (start < 0) other(r, null);
      else if (read === undefined || !read(r, bytes, start, ends[i] ?? start)) other(r, this.value(r, index));
    }
  }

  value(r: number, c: number): SourceValue {
    if (this.#rows !== undefined) return this.#rows[r]?.[c] ?? null;
    if (this.#lastRow !== r) {
      this.#last = this.#decode(this.raw(r));
      this.#lastRow = r;
    }
    return this.#last[c] ?? null;
  }
}

/** Reads one cell `b[s, e)` into slot r and says so; false hands it to the converter. */
type CellReader = (r: number, b: Buffer, s: number, e: number) => boolean;

/**
 * The byte reader of a cell kind into a table column type: only where the column converter's fast
 * path would take the cell's source value, and stores what it would store (undefined: none).
 */
function cellReader(kind: CellKind, type: DataType, column: Column, intern: () => StringIntern): CellReader | undefined {
  switch (type.root) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      if (kind !== 'integer' || column.kind !== 'int32') return undefined;
      const limit = INT_LIMITS[type.root] ?? 0;
      const values = column.values;
      return (r, b, s, e) => {
        const v = fastSafeIntegerBytes(b, s, e);
        if (v === undefined || v < -limit || v >= limit) return false;
        values[r] = v;
        return true;
      };
    }
    case 'DATE': {
      if (kind !== 'text' || column.kind !== 'int32') return undefined;
      const values = column.values;
      return (r, b, s, e) => {
        const day = fastEpochDayBytes(b, s, e);
        if (day === undefined) return false;
        values[r] = day;
        return true;
      };
    }
    case 'BIGINT':
      return kind === 'integer' || kind === 'text' ? int64Reader(column, fastSafeIntegerBytes) : undefined;
    case 'DECIMAL': {
      if (kind !== 'text' || type.precision > 18) return undefined;
      const { precision, scale } = type;
      return int64Reader(column, (b, s, e) => fastUnscaledDecimalBytes(b, s, e, precision, scale));
    }
    case 'CHAR':
    case 'VARCHAR': {
      if (kind !== 'text' || column.kind !== 'string') return undefined;
      const limit = type.length;
      const values = column.values;
      const kept = intern();
      return (r, b, s, e) => {
        const text = kept.get(b, s, e, utf8Text);
        if (!fitsCodePoints(text, limit)) return false;
        values[r] = text;
        return true;
      };
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      if (kind !== 'timestamp' || column.kind !== 'timestamp') return undefined;
      const cut = timestampCutInto(type.precision);
      const { millis, nanos } = column;
      return (r, b, s, e) => {
        if (!fastTimestampBytesInto(b, s, e, millis, nanos, r)) return false;
        if (Math.abs(millis[r] ?? 0) > MAX_EPOCH_MILLIS) return false;
        cut(millis, nanos, r);
        return true;
      };
    }
    default:
      return undefined;
  }
}

/** BIGINT and DECIMAL(p ≤ 18): a safe integer written as the two 32-bit words of the int64, no BigInt made. */
function int64Reader(column: Column, safe: (b: Buffer, s: number, e: number) => number | undefined): CellReader | undefined {
  if (column.kind !== 'int64' || !LITTLE_ENDIAN) return undefined;
  const words = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
  return (r, b, s, e) => {
    const n = safe(b, s, e);
    if (n === undefined) return false;
    const hi = Math.floor(n / TWO_32);
    words[2 * r] = n - hi * TWO_32;
    words[2 * r + 1] = hi;
    return true;
  };
}

/** The UTF-8 text of `b[s, e)` as Node's Buffer decodes it (what mysql2 gives for the same bytes). */
function utf8Text(b: Uint8Array, s: number, e: number): string {
  const buffer = b as Buffer;
  for (let i = s; i < e; i++) if ((b[i] ?? 0) >= 0x80) return buffer.toString('utf8', s, e);
  return buffer.toString('latin1', s, e);
}
