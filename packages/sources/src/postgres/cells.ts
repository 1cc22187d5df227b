/**
 * A batch of binary COPY rows as cells (pure): the framed bytes (binary.ts, CopyFrames), read
 * column by column into the table's column vectors without a row of source values being built.
 *
 * For the pairs a load has most (int2/int4/int8 into the integer types, numeric into DECIMAL of at
 * most 18 digits, date into DATE, timestamp and timestamptz into TIMESTAMP/TIMESTAMP_LTZ, the text
 * types into CHAR/VARCHAR) a cell goes from its binary form straight into its slot, with integer
 * arithmetic only; each gives exactly the value the row path gives (the value's decoder, then the
 * value converter of values/convert.ts), and a cell that path would refuse, or one outside the
 * plain range of the fast reading (numeric with more places than the column, beyond 2^53, NaN;
 * infinite dates and timestamps), is handed back as its source value, so the converter refuses or
 * converts it as before. test/unit/postgres-cells.test.ts checks this on adversarial values.
 *
 * Text is decoded when the batch is made (strict UTF-8: a cell that is not fails the read, as
 * before); `rows` are decoded only when asked for (the bad-row policy, a test).
 */
import type { Column, DataType } from '@tributary/table';
import type { ColumnarCells, SourceValue } from '../source.ts';
import { fitsCodePoints } from '../values/fast-text.ts';
import { NUMERIC_NEG, PG_EPOCH_DAYS, PG_EPOCH_MILLIS, type CopyBlock, type Decode } from './binary.ts';
import { INT_LIMITS, TWO_32, MAX_EPOCH_MILLIS, LITTLE_ENDIAN } from '../values/cell-limits.ts';
import { timestampCutInto } from '../values/timestamp-cut.ts';

/** The pg_type names whose values are text (an enum is `enum`). */
const TEXT_TYPES: ReadonlySet<string> = new Set(['text', 'varchar', 'bpchar', 'json', 'jsonb', 'enum']);

const MAX_EPOCH_DAY = 100_000_000; // the days of MAX_EPOCH_MILLIS's range

const u16 = (b: Buffer, p: number): number => ((b[p] as number) << 8) | (b[p + 1] as number);
const i16 = (b: Buffer, p: number): number => (((b[p] as number) << 24) >> 16) | (b[p + 1] as number);
const i32 = (b: Buffer, p: number): number => ((b[p] as number) << 24) | ((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number);

export class CopyCells implements ColumnarCells {
  readonly length: number;
  readonly #block: CopyBlock;
  readonly #types: readonly string[];
  readonly #decoders: readonly Decode[];
  readonly #width: number;
  /** Per read column of a text type, its values (null for NULL). */
  readonly #strings: ((string | null)[] | undefined)[];

  /**
   * `types`: each selected column's pg_type name (`enum` for an enum); `decoders`: their decoders;
   * `width`: the read columns, the first of the block's (any further ones are key columns, read for
   * the batch's end position only).
   */
  constructor(block: CopyBlock, types: readonly string[], decoders: readonly Decode[], width: number) {
    this.length = block.length;
    this.#block = block;
    this.#types = types;
    this.#decoders = decoders;
    this.#width = width;
    this.#strings = Array.from({ length: width }, (_, c) => (TEXT_TYPES.has(types[c] ?? '') ? this.#decodeColumn(c) : undefined));
  }

  /** The source value of cell (r, c), exactly as the row path decodes it. */
  value(r: number, c: number): SourceValue {
    const strings = this.#strings[c];
    if (strings !== undefined) return strings[r] ?? null;
    const { bytes, starts, ends, width } = this.#block;
    const i = r * width + c;
    const start = starts[i] as number;
    return start < 0 ? null : (this.#decoders[c] as Decode)(bytes, start, ends[i] as number);
  }

  /** The batch's rows of source values (the read columns). */
  rows(): SourceValue[][] {
    const rows = new Array<SourceValue[]>(this.length);
    for (let r = 0; r < this.length; r++) {
      const row = new Array<SourceValue>(this.#width);
      for (let c = 0; c < this.#width; c++) row[c] = this.value(r, c);
      rows[r] = row;
    }
    return rows;
  }

  fill(index: number, type: DataType, column: Column, other: (r: number, value: SourceValue) => void): void {
    const pgType = this.#types[index] ?? '';
    const strings = this.#strings[index];
    if (strings !== undefined) {
      if ((type.root === 'VARCHAR' || type.root === 'CHAR') && column.kind === 'string') fillStrings(strings, type.length, column.values, other);
      else for (let r = 0; r < this.length; r++) other(r, strings[r] ?? null);
      return;
    }
    const read = this.#reader(pgType, type, column);
    const { bytes, starts, ends, width } = this.#block;
    for (let r = 0, i = index; r < this.length; r++, i += width) {
      const start = starts[i] as number;
      if (start < 0) other(r, null);
      else {
        const end = ends[i] as number;
        if (read === undefined || !read(r, bytes, start, end)) other(r, (this.#decoders[index] as Decode)(bytes, start, end));
      }
    }
  }

  /**
   * Reads one cell `b[s, e)` into slot r and says so; false (or no reader) hands it to the converter.
   * A cell whose length is not its type's is left to the decoder too.
   */
  #reader(pgType: string, type: DataType, column: Column): ((r: number, b: Buffer, s: number, e: number) => boolean) | undefined {
    switch (type.root) {
      case 'TINYINT':
      case 'SMALLINT':
      case 'INT': {
        if (column.kind !== 'int32' || (pgType !== 'int2' && pgType !== 'int4')) return undefined;
        const limit = INT_LIMITS[type.root] ?? 0;
        const values = column.values;
        const [at, size] = pgType === 'int2' ? [i16, 2] : [i32, 4];
        return (r, b, s, e) => {
          if (e - s !== size) return false;
          const v = at(b, s);
          if (v < -limit || v >= limit) return false;
          values[r] = v;
          return true;
        };
      }
      case 'BIGINT': {
        if (column.kind !== 'int64' || !LITTLE_ENDIAN) return undefined;
        const words = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
        if (pgType === 'int8')
          return (r, b, s, e) => {
            if (e - s !== 8) return false;
            words[2 * r] = i32(b, s + 4);
            words[2 * r + 1] = i32(b, s);
            return true;
          };
        if (pgType !== 'int2' && pgType !== 'int4') return undefined;
        const [at, size] = pgType === 'int2' ? [i16, 2] : [i32, 4];
        return (r, b, s, e) => {
          if (e - s !== size) return false;
          const v = at(b, s);
          words[2 * r] = v;
          words[2 * r + 1] = v < 0 ? -1 : 0;
          return true;
        };
      }
      case 'DECIMAL': {
        if (column.kind !== 'int64' || !LITTLE_ENDIAN || pgType !== 'numeric') return undefined;
        const words = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
        const { precision, scale } = type;
        return (r, b, s, e) => {
          const n = numericUnscaled(b, s, e, precision, scale);
          if (n === undefined) return false;
          const hi = Math.floor(n / TWO_32);
          words[2 * r] = n - hi * TWO_32;
          words[2 * r + 1] = hi;
          return true;
        };
      }
      case 'DATE': {
        if (column.kind !== 'int32' || pgType !== 'date') return undefined;
        const values = column.values;
        return (r, b, s, e) => {
          if (e - s !== 4) return false;
          // Infinities (the int32 extremes) and days beyond a Date's range are the converter's to refuse.
          const day = i32(b, s) + PG_EPOCH_DAYS;
          if (day < -MAX_EPOCH_DAY || day > MAX_EPOCH_DAY) return false;
          values[r] = day;
          return true;
        };
      }
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ': {
        if (column.kind !== 'timestamp' || (pgType !== 'timestamp' && pgType !== 'timestamptz')) return undefined;
        const { millis, nanos } = column;
        const cut = timestampCutInto(type.precision);
        return (r, b, s, e) => {
          if (e - s !== 8) return false;
          // As binary.ts's timestampValue: hi·2^32 + lo microseconds = (hi·4,294,967)·1000 + (hi·296 + lo).
          const hi = i32(b, s);
          const lo = i32(b, s + 4) >>> 0;
          const small = hi * 296 + lo;
          const smallMillis = Math.floor(small / 1000);
          const epochMillis = hi * 4_294_967 + smallMillis + PG_EPOCH_MILLIS;
          // Infinities are far beyond the range: the converter refuses them.
          if (Math.abs(epochMillis) > MAX_EPOCH_MILLIS) return false;
          millis[r] = epochMillis;
          nanos[r] = (small - smallMillis * 1000) * 1000;
          cut(millis, nanos, r);
          return true;
        };
      }
      default:
        return undefined;
    }
  }

  #decodeColumn(c: number): (string | null)[] {
    const { bytes, starts, ends, width } = this.#block;
    const decode = this.#decoders[c] as Decode;
    const out = new Array<string | null>(this.length);
    for (let r = 0, i = c; r < this.length; r++, i += width) {
      const start = starts[i] as number;
      out[r] = start < 0 ? null : (decode(bytes, start, ends[i] as number) as string);
    }
    return out;
  }
}

/** Strings into a CHAR/VARCHAR(limit) column: those that fit go in; longer ones and NULLs to the converter. */
function fillStrings(strings: readonly (string | null)[], limit: number, values: string[], other: (r: number, value: SourceValue) => void): void {
  for (let r = 0; r < strings.length; r++) {
    const v = strings[r] ?? null;
    if (v !== null && fitsCodePoints(v, limit)) values[r] = v;
    else other(r, v);
  }
}

/**
 * numeric's send format straight to its unscaled value at `scale` places: the value numericText
 * writes (its digits cut at dscale places) times 10^scale. Undefined when that is not plainly a
 * value of DECIMAL(precision, scale) within 2^53 (NaN, infinities, more places than `scale`,
 * too large, or beyond an exact double), which the converter then reads from the text.
 */
export function numericUnscaled(b: Buffer, s: number, e: number, precision: number, scale: number): number | undefined {
  if (e - s < 8) return undefined;
  const ndigits = u16(b, s);
  if (e - s !== 8 + 2 * ndigits) return undefined;
  const weight = i16(b, s + 2);
  const sign = u16(b, s + 4);
  const dscale = u16(b, s + 6);
  if ((sign !== 0 && sign !== NUMERIC_NEG) || dscale > scale) return undefined;
  let value = 0;
  for (let i = 0; i < ndigits; i++) {
    const digit = u16(b, s + 8 + 2 * i);
    if (digit > 9999) return undefined; // not a base-10000 digit: the text path decides
    // The power of ten of the group's last digit, counted at dscale places.
    const exponent = 4 * (weight - i) + dscale;
    if (exponent >= 0) value += digit * 10 ** exponent;
    else if (exponent > -4) value += Math.floor(digit / 10 ** -exponent);
    if (value > Number.MAX_SAFE_INTEGER) return undefined;
  }
  const unscaled = value * 10 ** (scale - dscale);
  if (unscaled > Number.MAX_SAFE_INTEGER || unscaled >= 10 ** precision) return undefined;
  return sign === NUMERIC_NEG && unscaled !== 0 ? -unscaled : unscaled;
}
