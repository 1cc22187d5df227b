/**
 * The strict reading of text files (CSV, NDJSON): bytes → UTF-8 text → records, where anything not
 * well-formed is a SOURCE_FILE_MALFORMED error naming the file, the line and (CSV) the column —
 * never a guess, and never a cell value in the message.
 *
 * Truncation: a file cut anywhere must give only rows that are in it whole, or an error. A CSV or
 * NDJSON file cut inside its last unquoted field still parses (`10,cobalt` cut to `10,co`), so a
 * file whose last record has no line terminator is refused ("the file may be truncated") unless the
 * source spec sets `allowUnterminatedLastLine`; a file cut inside a quoted field, a multi-byte
 * character or a JSON value is refused whatever the option.
 */
import { errorFrom } from '@tributary/protocol';
import { sourceErrors } from '../errors.ts';
import { isFloat32Midpoint, sameDecimal } from '../values/exact-numbers.ts';

/** Where a text fault is: 1-based physical line and, for CSV, the column (header name or field number). */
export interface TextPlace {
  readonly line: number;
  readonly column?: string;
}

export function malformed(uri: string, place: TextPlace, problem: string): Error {
  const where = `${uri} line ${place.line}${place.column === undefined ? '' : `, column ${place.column}`}`;
  return errorFrom(sourceErrors, 'SOURCE_FILE_MALFORMED', `${where}: ${problem}`, { file: uri, line: place.line, ...(place.column === undefined ? {} : { column: place.column }) });
}

/** Raised by `utf8Text` after it has yielded every valid character before the fault. */
export class Utf8Fault extends Error {
  readonly byteOffset: number;
  constructor(byteOffset: number) {
    super(`invalid UTF-8 at byte ${byteOffset}`);
    this.byteOffset = byteOffset;
  }
}

/**
 * Decodes a byte stream strictly: every character before an invalid or cut-off sequence is
 * yielded, then `Utf8Fault` is thrown, so the parser reading the text knows the line and field the
 * fault is in. A byte order mark at the start is dropped (only there: U+FEFF later is data).
 */
export async function* utf8Text(chunks: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let carry = new Uint8Array(0);
  let offset = 0; // file offset of carry[0]
  let first = true;
  for await (const chunk of chunks) {
    let bytes = carry.length === 0 ? chunk : concat(carry, chunk);
    if (first && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      bytes = bytes.subarray(3);
      offset += 3;
    }
    if (bytes.length > 0) first = false;
    const whole = completeLength(bytes);
    yield decodeOrFault(decoder, bytes.subarray(0, whole), offset);
    carry = bytes.slice(whole);
    offset += whole;
  }
  if (carry.length > 0) throw new Utf8Fault(offset); // the file ends inside a character
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The length of `bytes` without a multi-byte sequence that may continue in the next chunk. */
function completeLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] ?? 0;
    if (b < 0x80) return bytes.length; // ASCII ends a sequence
    if (b >= 0xc0) return sequenceLength(b) > back ? bytes.length - back : bytes.length; // a lead byte
  }
  return bytes.length; // continuation bytes only: the validator decides
}

function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

function decodeOrFault(decoder: { decode(bytes: Uint8Array): string }, bytes: Uint8Array, offset: number): string {
  try {
    return decoder.decode(bytes);
  } catch {
    const valid = validUtf8Prefix(bytes);
    // The caller sees the valid text through the fault: the fault is thrown from the next pull.
    throw new Utf8FaultWithText(offset + valid, decoder.decode(bytes.subarray(0, valid)));
  }
}

/** A fault in a chunk whose valid beginning must still reach the parser. */
export class Utf8FaultWithText extends Utf8Fault {
  readonly text: string;
  constructor(byteOffset: number, text: string) {
    super(byteOffset);
    this.text = text;
  }
}

/** Length of the longest prefix of whole, valid UTF-8 sequences (the Unicode table of well-formed byte sequences). */
export function validUtf8Prefix(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    if (i + length > bytes.length) return i;
    const second = bytes[i + 1] ?? 0;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) {
      const c = bytes[i + k] ?? 0;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += length;
  }
  return i;
}

/**
 * The next piece of text, or undefined at the end. On a UTF-8 fault the valid text before it goes
 * to `take` first (so the parser knows the line and field of the fault), then `fault` throws.
 */
export async function nextText(pieces: AsyncIterator<string>, take: (text: string) => void, fault: (byteOffset: number) => never): Promise<string | undefined> {
  let result: IteratorResult<string>;
  try {
    result = await pieces.next();
  } catch (error) {
    if (!(error instanceof Utf8Fault)) throw error;
    if (error instanceof Utf8FaultWithText) take(error.text);
    return fault(error.byteOffset);
  }
  return result.done === true ? undefined : result.value;
}

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;

/** The parser's states (plain numbers: Node strips types only, so no enums). */
const State = { FieldStart: 0, Unquoted: 1, Quoted: 2, AfterQuote: 3, AfterQuoteCr: 4 } as const;
type State = (typeof State)[keyof typeof State];

/** A CSV record and the physical line it starts on. */
export interface CsvRecord {
  readonly fields: string[];
  readonly line: number;
}

/**
 * RFC 4180 records, strictly: fields separated by `,`, records ended by LF or CRLF; a quoted field
 * may hold commas, line breaks and doubled quotes, and must be followed by a separator or the end
 * of its line; a quote or a carriage return (but the CR of a CRLF) inside an unquoted field is an error. An empty line is skipped (a record of
 * one empty field is written `""`). Fed text piece by piece; `end()` checks the end of the file.
 */
export class CsvParser {
  readonly #uri: string;
  /** The first record, whose names the messages use. */
  #header: string[] | undefined;
  #state: State = State.FieldStart;
  #fields: string[] = [];
  #field = '';
  #quotedField = false;
  #line = 1;
  #recordLine = 1;
  #quoteLine = 1;

  constructor(uri: string) {
    this.#uri = uri;
  }

  /** How messages name field i (0-based): its header name, else `#<i + 1>`. */
  columnName(field: number): string {
    return this.#header?.[field] ?? `#${field + 1}`;
  }

  /** Where the parser is now: the line, and the field being read. */
  place(): TextPlace {
    return { line: this.#line, column: this.columnName(this.#fields.length) };
  }

  /** Parses `text`, appending the records it completes to `out`. */
  push(text: string, out: CsvRecord[]): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      switch (this.#state) {
        case State.FieldStart:
          if (text.charCodeAt(i) === QUOTE) {
            this.#state = State.Quoted;
            this.#quotedField = true;
            this.#quoteLine = this.#line;
            i++;
          } else this.#state = State.Unquoted;
          break;
        case State.Unquoted: {
          let j = i;
          let c = 0;
          while (j < n && (c = text.charCodeAt(j)) !== COMMA && c !== LF && c !== QUOTE) j++;
          this.#field += text.slice(i, j);
          i = j;
          if (j === n) break;
          if (c === QUOTE) throw malformed(this.#uri, this.place(), 'a quote inside an unquoted field');
          i++;
          if (c === LF && this.#field.endsWith('\r')) this.#field = this.#field.slice(0, -1);
          this.#checkUnquoted();
          if (c === COMMA) this.#endField();
          else this.#endRecord(out);
          break;
        }
        case State.Quoted: {
          let j = i;
          let c = 0;
          while (j < n && (c = text.charCodeAt(j)) !== QUOTE) {
            if (c === LF) this.#line++;
            j++;
          }
          this.#field += text.slice(i, j);
          i = j;
          if (j < n) {
            this.#state = State.AfterQuote;
            i++;
          }
          break;
        }
        case State.AfterQuote: {
          const c = text.charCodeAt(i++);
          if (c === QUOTE) {
            this.#field += '"';
            this.#state = State.Quoted;
          } else if (c === COMMA) this.#endField();
          else if (c === LF) this.#endRecord(out);
          else if (c === CR) this.#state = State.AfterQuoteCr;
          else throw malformed(this.#uri, this.place(), 'a character after the closing quote of a field');
          break;
        }
        case State.AfterQuoteCr:
          if (text.charCodeAt(i++) !== LF) throw malformed(this.#uri, this.place(), 'a carriage return after the closing quote of a field');
          this.#endRecord(out);
          break;
      }
    }
  }

  /**
   * The end of the file: throws for an open quote; returns the last record when it lacks its line
   * terminator (the caller decides whether that is allowed), else undefined.
   */
  end(): CsvRecord | undefined {
    if (this.#state === State.Quoted) {
      throw malformed(this.#uri, { line: this.#quoteLine, column: this.columnName(this.#fields.length) }, 'a quoted field is not closed before the end of the file');
    }
    if (this.#state === State.FieldStart && this.#fields.length === 0) return undefined;
    if (this.#state === State.Unquoted && this.#fields.length === 0 && this.#field === '') return undefined;
    let last = this.#field;
    if (this.#state === State.Unquoted && last.endsWith('\r')) {
      last = last.slice(0, -1);
      this.#field = last;
    }
    if (this.#state === State.Unquoted) this.#checkUnquoted();
    return { fields: [...this.#fields, last], line: this.#recordLine };
  }

  /**
   * An unquoted field ended (its CR of a CRLF taken off) holds no carriage return: records end with
   * LF or CRLF, and a file whose lines end with a CR alone would otherwise read as one record, its
   * header holding every row (all its rows lost without a word when the last line may lack a
   * terminator). A CR in a field is written quoted.
   */
  #checkUnquoted(): void {
    if (this.#field.includes('\r')) {
      throw malformed(this.#uri, this.place(), 'a carriage return inside an unquoted field: records end with LF or CRLF (a file whose lines end with CR alone is not read), and a field holding a carriage return is quoted');
    }
  }

  #endField(): void {
    this.#fields.push(this.#field);
    this.#field = '';
    this.#quotedField = false;
    this.#state = State.FieldStart;
  }

  #endRecord(out: CsvRecord[]): void {
    const blank = this.#fields.length === 0 && this.#field === '' && !this.#quotedField;
    if (!blank) {
      const fields = this.#fields; // the record's own array: the next record starts a new one
      fields.push(this.#field);
      this.#header ??= fields;
      out.push({ fields, line: this.#recordLine });
    }
    this.#fields = [];
    this.#field = '';
    this.#quotedField = false;
    this.#state = State.FieldStart;
    this.#line++;
    this.#recordLine = this.#line;
  }
}

export interface TextOptions {
  /** Accept a last record without its line terminator (gives up detecting a file cut inside its last field). */
  readonly allowUnterminatedLastLine: boolean;
}

const UNTERMINATED = 'the last record has no line terminator: the file may be truncated (allowUnterminatedLastLine accepts it)';

/**
 * The records of a CSV file: the header first, then every row, each with exactly as many fields as
 * the header (a missing or extra field is an error naming the column).
 */
export async function* csvRecords(text: AsyncIterable<string>, uri: string, options: TextOptions): AsyncIterable<string[]> {
  let header: string[] | undefined;
  const parser = new CsvParser(uri);
  const columnName = (i: number): string => parser.columnName(i);
  const check = (record: CsvRecord): string[] => {
    if (header === undefined) {
      header = record.fields;
      return header;
    }
    const { fields, line } = record;
    if (fields.length < header.length) throw malformed(uri, { line, column: columnName(fields.length) }, `the record has ${fields.length} fields, the header ${header.length}`);
    if (fields.length > header.length) throw malformed(uri, { line, column: columnName(header.length) }, `the record has ${fields.length} fields, the header ${header.length}`);
    return fields;
  };
  const records: CsvRecord[] = [];
  const pieces = text[Symbol.asyncIterator]();
  const fault = (byte: number): never => {
    throw malformed(uri, parser.place(), `the text is not valid UTF-8 at byte ${byte} (or the file ends inside a character)`);
  };
  for (let piece; (piece = await nextText(pieces, (valid) => parser.push(valid, records), fault)) !== undefined; ) {
    parser.push(piece, records);
    for (const record of records) yield check(record);
    records.length = 0;
  }
  const last = parser.end();
  if (last === undefined) return;
  if (!options.allowUnterminatedLastLine) throw malformed(uri, { line: last.line }, UNTERMINATED);
  yield check(last);
}

/** A non-blank line of an NDJSON file and its 1-based number. */
export interface NdjsonLine {
  readonly text: string;
  readonly line: number;
}

/** The lines of an NDJSON file, CRLF or LF; blank lines (spaces only) are skipped. */
export async function* ndjsonLines(text: AsyncIterable<string>, uri: string, options: TextOptions): AsyncIterable<NdjsonLine> {
  let carry = '';
  let line = 1;
  const pieces = text[Symbol.asyncIterator]();
  const fault = (byte: number): never => {
    throw malformed(uri, { line }, `the text is not valid UTF-8 at byte ${byte} (or the file ends inside a character)`);
  };
  const countLines = (valid: string): void => {
    for (let at = (carry + valid).indexOf('\n'); at >= 0; at = (carry + valid).indexOf('\n', at + 1)) line++;
  };
  for (let piece; (piece = await nextText(pieces, countLines, fault)) !== undefined; ) {
    const parts = (carry + piece).split('\n');
    carry = parts.pop() ?? '';
    for (const part of parts) {
      const record = part.endsWith('\r') ? part.slice(0, -1) : part;
      if (record.trim() !== '') yield { text: record, line };
      line++;
    }
  }
  if (carry.trim() === '') return;
  if (!options.allowUnterminatedLastLine) throw malformed(uri, { line }, UNTERMINATED);
  yield { text: carry, line };
}

/** JSON.rawJSON and JSON.isRawJSON (ES2025, in Node 24; not yet in TypeScript's ES2023 lib). */
const rawJson = JSON as JSON & { rawJSON(text: string): object; isRawJSON(value: unknown): value is { readonly rawJSON: string } };

/**
 * One NDJSON line as an object. A JSON number becomes a JS number only when that number is
 * exactly the written one (its shortest decimal form has the same value: `0.1`, `1e3`, not
 * `9007199254740993`, `0.12345678901234567891`, `1e400` or `-0`, nor a double exactly halfway
 * between two floats); otherwise it stays its text, as a raw JSON value (`rawJsonText` reads it;
 * JSON.stringify of a nested value writes it as written), from which values/convert.ts reads BIGINT,
 * DECIMAL, DOUBLE and FLOAT columns exactly.
 */
export function parseJsonLine({ text, line }: NdjsonLine, uri: string): Readonly<Record<string, unknown>> {
  let value: unknown;
  try {
    // A reviver makes JSON.parse several times slower: only lines with a number that needs it get one.
    value = inexactNumberIn(text) ? JSON.parse(text, exactNumbers) : JSON.parse(text);
  } catch (error) {
    // V8's message quotes the line: only the position may be reported.
    const position = /position (\d+)/.exec(String(error))?.[1];
    throw malformed(uri, { line }, `not valid JSON${position === undefined ? '' : ` (at character ${Number(position) + 1})`}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(uri, { line }, 'the line is not a JSON object');
  return value as Record<string, unknown>;
}

function exactNumbers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return exactNumber(context.source, value) ? value : rawJson.rawJSON(context.source);
}

/** Whether the double parsed from `text` is the written number (a float midpoint keeps its text too: FLOAT rounds the digits, not the tie). */
function exactNumber(text: string, value: number): boolean {
  return (String(value) === text || sameDecimal(text, String(value))) && !isFloat32Midpoint(value);
}

/**
 * Whether a number of the line is not exactly its double: a scan of the numbers outside strings
 * (the line is parsed after, which refuses anything malformed), about as fast as JSON.parse.
 */
function inexactNumberIn(text: string): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let end = i + 1;
      for (let d = text.charCodeAt(end); (d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45; d = text.charCodeAt(++end));
      const token = text.slice(i, end);
      if (!exactNumber(token, Number(token))) return true;
      i = end - 1;
    }
  }
  return false;
}

/** The text of a number `parseJsonLine` kept as written, else undefined. */
export function rawJsonText(value: unknown): string | undefined {
  return rawJson.isRawJSON(value) ? value.rawJSON : undefined;
}

