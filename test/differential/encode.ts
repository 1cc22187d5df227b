/**
 * How a case's rows are spelled for each source: CSV and NDJSON text, the JSON the Parquet writer
 * script takes, and MySQL DDL and literals. Pure; every spelling is exact for the values the
 * carriage lets through (generator.ts), and throws on anything else rather than approximating.
 */
import type { OracleRow, OracleTimestamp, OracleValue } from '@tributary/testkit';
import type { Column, ColumnType } from './generator.ts';

const DAY_MS = 86_400_000;

// ---- shared spellings ---------------------------------------------------------------------------

/** A double as the shortest text that parses back to it ('-0', 'Infinity' included; never NaN). */
export function floatText(n: number): string {
  if (Number.isNaN(n)) throw new RangeError('NaN has no text spelling the sources parse');
  return Object.is(n, -0) ? '-0' : String(n);
}

/** The exact decimal text of unscaled × 10^-scale. */
export function decimalText(unscaled: bigint, scale: number): string {
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return unscaled < 0n ? `-${text}` : text;
}

export function dateText(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

/** 'HH:MM:SS.fff' of milliseconds of the day. */
export function timeText(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

/** 'YYYY-MM-DD HH:MM:SS.fffffffff' (UTC wall clock) cut to `digits` fractional digits. */
export function timestampText(t: OracleTimestamp, digits: number, separator = ' '): string {
  const iso = new Date(t.epochMillis).toISOString(); // years 0000..9999 only, which is all the generator makes
  const fraction = `${iso.slice(20, 23)}${String(t.nanoOfMillis).padStart(6, '0')}`.slice(0, digits);
  return `${iso.slice(0, 10)}${separator}${iso.slice(11, 19)}${digits > 0 ? `.${fraction}` : ''}`;
}

function asTimestamp(v: OracleValue): OracleTimestamp {
  if (typeof v !== 'object' || v === null || v instanceof Uint8Array) throw new TypeError('not a timestamp');
  return v;
}

// ---- CSV and NDJSON -----------------------------------------------------------------------------

/** A value as the text the files source's converter parses into exactly this value. */
function textValue(v: Exclude<OracleValue, null>, type: ColumnType): string | number | boolean {
  switch (type.root) {
    case 'BOOLEAN':
      return v as boolean;
    case 'BIGINT':
      return String(v);
    case 'DECIMAL':
      return decimalText(v as bigint, type.scale ?? 0);
    case 'FLOAT':
    case 'DOUBLE':
      return floatText(v as number);
    case 'DATE':
      return dateText(v as number);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const t = asTimestamp(v);
      if (t.nanoOfMillis !== 0) throw new RangeError('a text source carries milliseconds only');
      return new Date(t.epochMillis).toISOString();
    }
    case 'BINARY':
    case 'VARBINARY':
    case 'BYTES':
      throw new TypeError('text sources carry no binary values');
    default:
      return v as string | number;
  }
}

/** RFC 4180 with a header row; every non-null field quoted, NULL as an empty field. */
export function csvFile(columns: readonly Column[], rows: readonly OracleRow[], lineEnd = '\r\n'): string {
  const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
  const lines = [columns.map((c) => quote(c.name)).join(',')];
  for (const row of rows) {
    lines.push(columns.map((c, i) => {
      const v = row[i] ?? null;
      if (v === null) return '';
      const text = textValue(v, c.type);
      if (typeof text === 'string' && text === '') throw new RangeError("CSV cannot tell '' from NULL");
      return quote(String(text));
    }).join(','));
  }
  return `${lines.join(lineEnd)}${lineEnd}`;
}

/** One JSON object per line; -0 and the infinities as text the converter parses (JSON has no spelling for them). */
export function ndjsonFile(columns: readonly Column[], rows: readonly OracleRow[], lineEnd = '\n'): string {
  return rows.map((row) => `{${columns.map((c, i) => {
    const v = row[i] ?? null;
    let json: string;
    if (v === null) json = 'null';
    else {
      const text = textValue(v, c.type);
      json = (c.type.root === 'FLOAT' || c.type.root === 'DOUBLE') && Number.isFinite(v) && !Object.is(v, -0) ? String(v) : JSON.stringify(text);
    }
    return `${JSON.stringify(c.name)}:${json}`;
  }).join(',')}}${lineEnd}`).join('');
}

// ---- Parquet (pyarrow) --------------------------------------------------------------------------

/** The JSON form parquet_input.py takes: exact integers as text, bytes as hex, timestamps as epoch nanoseconds. */
export function parquetWire(v: OracleValue): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : Number.isNaN(v) ? 'NaN' : floatText(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return (BigInt(v.epochMillis) * 1_000_000n + BigInt(v.nanoOfMillis)).toString();
}

// ---- MySQL --------------------------------------------------------------------------------------

/** The MariaDB column type that loads into `type` exactly (the worker README's type mapping). */
export function mysqlType(type: ColumnType): string {
  const text = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';
  const base = ((): string => {
    switch (type.root) {
      case 'BOOLEAN':
        return 'TINYINT';
      case 'TINYINT':
      case 'SMALLINT':
      case 'INT':
      case 'BIGINT':
      case 'FLOAT':
      case 'DOUBLE':
      case 'DATE':
        return type.root;
      case 'DECIMAL':
        return `DECIMAL(${type.precision}, ${type.scale})`;
      case 'CHAR':
      case 'VARCHAR':
        return `${type.root}(${type.length}) ${text}`;
      case 'STRING':
        return `MEDIUMTEXT ${text}`;
      case 'BINARY':
      case 'VARBINARY':
        return `${type.root}(${type.length})`;
      case 'BYTES':
        return 'BLOB';
      case 'TIME':
        return `TIME(${type.precision})`;
      case 'TIMESTAMP':
        return `DATETIME(${Math.min(type.precision ?? 0, 6)})`;
      case 'TIMESTAMP_LTZ':
        return `TIMESTAMP(${Math.min(type.precision ?? 0, 6)})`;
    }
  })();
  return `${base} ${type.nullable ? 'NULL DEFAULT NULL' : 'NOT NULL'}`;
}

/** A SQL literal of the value (the session's time zone is +00:00); `escape` quotes a string as the client library does. */
export function mysqlLiteral(v: OracleValue, type: ColumnType, escape: (s: string) => string): string {
  if (v === null) return 'NULL';
  switch (type.root) {
    case 'BOOLEAN':
      return v ? '1' : '0';
    case 'FLOAT':
    case 'DOUBLE': {
      const text = floatText(v as number);
      if (!Number.isFinite(v)) throw new RangeError('MariaDB holds no infinities');
      return text.includes('e') ? text : `${text}e0`; // a double literal, not an exact DECIMAL one
    }
    case 'DECIMAL':
      return decimalText(v as bigint, type.scale ?? 0);
    case 'CHAR':
    case 'VARCHAR':
    case 'STRING':
      return escape(v as string);
    case 'BINARY':
    case 'VARBINARY':
    case 'BYTES':
      return `X'${Buffer.from(v as Uint8Array).toString('hex')}'`;
    case 'DATE':
      return `'${dateText(v as number)}'`;
    case 'TIME':
      return `'${timeText(v as number)}'`;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return `'${timestampText(asTimestamp(v), Math.min(type.precision ?? 0, 6))}'`;
    default:
      return String(v);
  }
}
