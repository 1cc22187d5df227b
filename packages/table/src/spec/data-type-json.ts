/**
 * Paimon's type syntax in schema JSON. Mirrors org.apache.paimon.types.DataTypeJsonParser (parsing)
 * and DataType.asSQLString / serializeJson (printing).
 *
 * Atomic types are strings such as `DECIMAL(18, 2) NOT NULL`; nested types (ARRAY, MAP, ROW, ...)
 * are JSON objects, which Tributary does not support yet: they fail with UNSUPPORTED_TYPE, as do
 * VARIANT, BLOB, GEOMETRY, GEOGRAPHY, VECTOR and INTERVAL types.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { MAX_LENGTH, type DataType } from './types.ts';

type Token =
  | { readonly kind: 'word'; readonly value: string; readonly at: number }
  | { readonly kind: 'int'; readonly value: number; readonly at: number }
  | { readonly kind: 'punct'; readonly value: string; readonly at: number };

const PUNCT = new Set(['(', ')', ',', '<', '>', '.', "'", '`']);
const UNSUPPORTED = new Set([
  'ARRAY', 'MULTISET', 'MAP', 'ROW', 'VECTOR', 'VARIANT', 'BLOB', 'GEOMETRY', 'GEOGRAPHY', 'RAW', 'INTERVAL',
]);

function invalid(text: string, message: string): Error {
  return errorFrom(tableErrors, 'DATA_TYPE_INVALID', `${message} in type '${text}'`, { type: text });
}

function unsupported(text: string): Error {
  return errorFrom(tableErrors, 'UNSUPPORTED_TYPE', `type '${text}' is not supported by Tributary`, { type: text });
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (PUNCT.has(c)) {
      tokens.push({ kind: 'punct', value: c, at: i });
      i++;
    } else if (c >= '0' && c <= '9') {
      const start = i;
      while (i < text.length && /[0-9]/.test(text[i] as string)) i++;
      const digits = text.slice(start, i);
      const value = Number(digits);
      if (!Number.isSafeInteger(value) || value > 0x7fffffff) throw invalid(text, `integer ${digits} is too large`);
      tokens.push({ kind: 'int', value, at: start });
    } else {
      const start = i;
      while (i < text.length && !/\s/.test(text[i] as string) && !PUNCT.has(text[i] as string)) i++;
      tokens.push({ kind: 'word', value: text.slice(start, i).toUpperCase(), at: start });
    }
  }
  return tokens;
}

/** A cursor over the tokens of one type string, in the shape of Java's TokenParser. */
class TypeParser {
  private readonly text: string;
  private readonly tokens: Token[];
  private pos = 0;

  constructor(text: string) {
    this.text = text;
    this.tokens = tokenize(text);
  }

  parse(): DataType {
    const type = this.parseType();
    const extra = this.tokens[this.pos];
    if (extra !== undefined) {
      if (extra.kind === 'word' && (extra.value === 'ARRAY' || extra.value === 'MULTISET')) throw unsupported(this.text);
      throw invalid(this.text, `unexpected '${String(extra.value)}' at position ${extra.at}`);
    }
    return type;
  }

  private peekWord(offset = 0): string | undefined {
    const t = this.tokens[this.pos + offset];
    return t?.kind === 'word' ? t.value : undefined;
  }

  private peekPunct(value: string): boolean {
    const t = this.tokens[this.pos];
    return t?.kind === 'punct' && t.value === value;
  }

  private expectPunct(value: string): void {
    if (!this.peekPunct(value)) throw invalid(this.text, `'${value}' expected`);
    this.pos++;
  }

  private expectWord(value: string): void {
    if (this.peekWord() !== value) throw invalid(this.text, `'${value}' expected`);
    this.pos++;
  }

  private expectInt(): number {
    const t = this.tokens[this.pos];
    if (t?.kind !== 'int') throw invalid(this.text, 'integer expected');
    this.pos++;
    return t.value;
  }

  /** `(n)` if present. */
  private optionalParam(): number | undefined {
    if (!this.peekPunct('(')) return undefined;
    this.pos++;
    const n = this.expectInt();
    this.expectPunct(')');
    return n;
  }

  private parseNullability(): boolean {
    if (this.peekWord() === 'NOT' && this.peekWord(1) === 'NULL') {
      this.pos += 2;
      return false;
    }
    if (this.peekWord() === 'NULL') this.pos++;
    return true;
  }

  private parseType(): DataType {
    const word = this.peekWord();
    if (word === undefined) throw invalid(this.text, 'a type name expected');
    this.pos++;
    const base = this.parseByKeyword(word);
    return { ...base, nullable: this.parseNullability() } as DataType;
  }

  private parseByKeyword(word: string): DataType {
    const nullable = true;
    switch (word) {
      case 'BOOLEAN':
      case 'TINYINT':
      case 'SMALLINT':
      case 'BIGINT':
      case 'FLOAT':
      case 'DATE':
        return { root: word, nullable };
      case 'INT':
      case 'INTEGER':
        return { root: 'INT', nullable };
      case 'DOUBLE':
        if (this.peekWord() === 'PRECISION') this.pos++;
        return { root: 'DOUBLE', nullable };
      case 'STRING':
        return { root: 'VARCHAR', length: MAX_LENGTH, nullable };
      case 'BYTES':
        return { root: 'VARBINARY', length: MAX_LENGTH, nullable };
      case 'CHAR':
      case 'VARCHAR':
      case 'BINARY':
      case 'VARBINARY':
        return { root: word, length: this.checkLength(this.optionalParam() ?? 1), nullable };
      case 'DECIMAL':
      case 'NUMERIC':
      case 'DEC':
        return this.parseDecimal();
      case 'TIME':
        return this.parseTime();
      case 'TIMESTAMP':
        return this.parseTimestamp();
      case 'TIMESTAMP_LTZ':
        return { root: 'TIMESTAMP_LTZ', precision: this.checkPrecision(this.optionalParam() ?? 6, 9), nullable };
      default:
        if (UNSUPPORTED.has(word)) throw unsupported(this.text);
        throw invalid(this.text, `unknown type '${word}'`);
    }
  }

  private checkLength(n: number): number {
    if (n < 1) throw invalid(this.text, `length ${n} is below 1`);
    return n;
  }

  private checkPrecision(p: number, max: number): number {
    if (p > max) throw invalid(this.text, `precision ${p} is above ${max}`);
    return p;
  }

  private parseDecimal(): DataType {
    let precision = 10;
    let scale = 0;
    if (this.peekPunct('(')) {
      this.pos++;
      precision = this.expectInt();
      if (this.peekPunct(',')) {
        this.pos++;
        scale = this.expectInt();
      }
      this.expectPunct(')');
    }
    if (precision < 1 || precision > 38) throw invalid(this.text, `decimal precision ${precision} is not in [1, 38]`);
    if (scale > precision) throw invalid(this.text, `decimal scale ${scale} exceeds precision ${precision}`);
    return { root: 'DECIMAL', precision, scale, nullable: true };
  }

  private parseTime(): DataType {
    const precision = this.checkPrecision(this.optionalParam() ?? 0, 9);
    if (this.peekWord() === 'WITHOUT') {
      this.pos++;
      this.expectWord('TIME');
      this.expectWord('ZONE');
    }
    return { root: 'TIME', precision, nullable: true };
  }

  private parseTimestamp(): DataType {
    const precision = this.checkPrecision(this.optionalParam() ?? 6, 9);
    if (this.peekWord() === 'WITHOUT') {
      this.pos++;
      this.expectWord('TIME');
      this.expectWord('ZONE');
    } else if (this.peekWord() === 'WITH') {
      this.pos++;
      if (this.peekWord() === 'LOCAL') {
        this.pos++;
        this.expectWord('TIME');
        this.expectWord('ZONE');
        return { root: 'TIMESTAMP_LTZ', precision, nullable: true };
      }
      // Java accepts a bare WITH here and falls through to TIMESTAMP; WITH TIME ZONE is not a Paimon type.
      throw invalid(this.text, "'LOCAL TIME ZONE' expected after WITH");
    }
    return { root: 'TIMESTAMP', precision, nullable: true };
  }
}

/** DataTypeJsonParser.parseAtomicTypeSQLString, limited to the atomic types Tributary supports. */
export function parseDataTypeString(text: string): DataType {
  return new TypeParser(text).parse();
}

/**
 * DataTypeJsonParser.parseDataType: a schema field's `type` value. Strings are atomic types;
 * objects are nested types (UNSUPPORTED_TYPE); anything else is DATA_TYPE_INVALID.
 */
export function parseDataType(json: unknown): DataType {
  if (typeof json === 'string') return parseDataTypeString(json);
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const inner = (json as Record<string, unknown>)['type'];
    throw errorFrom(tableErrors, 'UNSUPPORTED_TYPE', `nested type ${typeof inner === 'string' ? inner : '?'} is not supported by Tributary`, {
      type: typeof inner === 'string' ? inner : null,
    });
  }
  throw errorFrom(tableErrors, 'DATA_TYPE_INVALID', `a type must be a string or an object, got ${JSON.stringify(json) ?? 'undefined'}`);
}

/** DataType.asSQLString: exactly how Java prints the type into schema JSON. */
export function formatDataType(t: DataType): string {
  const suffix = t.nullable ? '' : ' NOT NULL';
  switch (t.root) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DATE':
      return t.root + suffix;
    case 'DECIMAL':
      return `DECIMAL(${t.precision}, ${t.scale})${suffix}`;
    case 'VARCHAR':
      return (t.length === MAX_LENGTH ? 'STRING' : `VARCHAR(${t.length})`) + suffix;
    case 'VARBINARY':
      return (t.length === MAX_LENGTH ? 'BYTES' : `VARBINARY(${t.length})`) + suffix;
    case 'CHAR':
    case 'BINARY':
      return `${t.root}(${t.length})${suffix}`;
    case 'TIME':
    case 'TIMESTAMP':
      return `${t.root}(${t.precision})${suffix}`;
    case 'TIMESTAMP_LTZ':
      return `TIMESTAMP(${t.precision}) WITH LOCAL TIME ZONE${suffix}`;
  }
}
