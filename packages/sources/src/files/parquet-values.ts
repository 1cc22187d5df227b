/**
 * The values of a Parquet input column (pure): each top-level primitive column gets a *reading
 * type* derived from its own Parquet schema (org.apache.parquet.schema.LogicalTypeAnnotation, the
 * same cases Paimon's ParquetSchemaConverter and Spark's ParquetToSparkSchemaConverter
 * distinguish), which the table's Parquet reader decodes exactly, and each decoded value becomes an
 * exact source value (`parquetValue`). parquet.ts reads the files; parquet-cells.ts writes the
 * decoded columns into the table's columns.
 */
import { errorFrom } from '@tributary/protocol';
import type { DataType, Timestamp } from '@tributary/table';
import { sourceErrors } from '../errors.ts';
import type { SourceValue } from '../source.ts';

/** One Parquet schema element, as the footer holds it (hyparquet's SchemaElement, the fields we use). */
export interface ParquetElement {
  readonly name: string;
  readonly type?: string;
  readonly type_length?: number;
  readonly num_children?: number;
  readonly converted_type?: string;
  readonly scale?: number;
  readonly precision?: number;
  readonly logical_type?: { readonly type: string; readonly unit?: string; readonly bitWidth?: number; readonly isSigned?: boolean; readonly scale?: number; readonly precision?: number };
}

/** How a column's decoded value becomes a source value. */
export type ParquetReading =
  | { readonly kind: 'plain' } // booleans, floats, signed integers, bytes: as decoded
  | { readonly kind: 'utf8' } // read as bytes and decoded strictly: invalid UTF-8 is refused, never replaced
  | { readonly kind: 'unsigned'; readonly bits: 32 | 64 }
  | { readonly kind: 'decimal'; readonly scale: number }
  | { readonly kind: 'date' }
  | { readonly kind: 'time'; readonly nanosPerUnit: bigint }
  | { readonly kind: 'timestamp' };

export interface ParquetColumnPlan {
  /** The type the table reader decodes the column as (exact for every physical encoding). */
  readonly readAs: DataType;
  readonly reading: ParquetReading;
  /** For messages: e.g. "INT64 TIMESTAMP(MICROS)". */
  readonly describe: string;
}

const t = <R extends DataType['root']>(root: R, extra: object = {}): DataType => ({ root, nullable: true, ...extra }) as DataType;
const NANOS: Record<string, bigint> = { MILLIS: 1_000_000n, MICROS: 1_000n, NANOS: 1n };

/** The reading type of one primitive Parquet column, or a typed error for what we cannot read. */
export function planParquetColumn(e: ParquetElement, uri: string): ParquetColumnPlan {
  const logical = e.logical_type;
  const annotation = logical?.type ?? e.converted_type;
  const describe = `${e.type ?? 'group'}${annotation ? ` ${annotation}` : ''}${logical?.unit ? `(${logical.unit})` : ''}`;
  const plan = (readAs: DataType, reading: ParquetReading = { kind: 'plain' }): ParquetColumnPlan => ({ readAs, reading, describe });
  const decimal = logical?.type === 'DECIMAL' || e.converted_type === 'DECIMAL';
  const scale = logical?.scale ?? e.scale ?? 0;
  switch (e.type) {
    case 'BOOLEAN':
      return plan(t('BOOLEAN'));
    case 'FLOAT':
      return plan(t('FLOAT'));
    case 'DOUBLE':
      return plan(t('DOUBLE'));
    case 'INT32':
      if (decimal) return plan(t('BIGINT'), { kind: 'decimal', scale });
      if (annotation === 'DATE') return plan(t('DATE'), { kind: 'date' });
      if (annotation === 'TIME' || annotation === 'TIME_MILLIS') return plan(t('BIGINT'), { kind: 'time', nanosPerUnit: NANOS.MILLIS ?? 1n });
      if (isUnsigned(e)) return plan(t('BIGINT'), { kind: 'unsigned', bits: 32 });
      return plan(t('INT'));
    case 'INT64':
      if (decimal) return plan(t('BIGINT'), { kind: 'decimal', scale });
      if (annotation === 'TIMESTAMP' || annotation === 'TIMESTAMP_MILLIS' || annotation === 'TIMESTAMP_MICROS') {
        return plan(t('TIMESTAMP', { precision: 9 }), { kind: 'timestamp' });
      }
      if (annotation === 'TIME' || annotation === 'TIME_MICROS') {
        return plan(t('BIGINT'), { kind: 'time', nanosPerUnit: NANOS[logical?.unit ?? 'MICROS'] ?? 1_000n });
      }
      if (isUnsigned(e)) return plan(t('BIGINT'), { kind: 'unsigned', bits: 64 });
      return plan(t('BIGINT'));
    case 'INT96':
      return plan(t('TIMESTAMP', { precision: 9 }), { kind: 'timestamp' });
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      if (decimal) return plan(t('DECIMAL', { precision: 38, scale }), { kind: 'decimal', scale });
      if (annotation === 'STRING' || annotation === 'UTF8' || annotation === 'ENUM' || annotation === 'JSON') return plan(t('VARBINARY', { length: 2147483647 }), { kind: 'utf8' });
      if (annotation === 'FLOAT16' || annotation === 'INTERVAL') return unsupported(e, describe, uri);
      return plan(t('VARBINARY', { length: 2147483647 }));
    default:
      return unsupported(e, describe, uri);
  }
}

function isUnsigned(e: ParquetElement): boolean {
  if (e.logical_type?.type === 'INTEGER') return e.logical_type.isSigned === false;
  return e.converted_type?.startsWith('UINT_') ?? false;
}

export function unsupported(e: ParquetElement, describe: string, uri: string): never {
  throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri}: column ${e.name} is ${describe}, which the files source cannot read (nested or unsupported type)`, {
    file: uri,
    column: e.name,
  });
}

// ignoreBOM: a value that starts with U+FEFF keeps it (the default decoder drops a leading one).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The exact source value of one decoded value (`raw` as the table reader's column holds it). */
export function parquetValue(reading: ParquetReading, raw: number | bigint | boolean | string | Uint8Array | Timestamp): SourceValue {
  switch (reading.kind) {
    case 'plain':
      return raw as SourceValue;
    case 'utf8':
      return strictUtf8.decode(raw as Uint8Array);
    case 'unsigned':
      return BigInt.asUintN(reading.bits, BigInt(raw as bigint));
    case 'decimal':
      return decimalText(BigInt(raw as bigint), reading.scale);
    case 'date':
      return new Date((raw as number) * 86_400_000); // Invalid Date past ±100,000,000 days: values/convert.ts rejects it
    case 'time': {
      const nanos = BigInt(raw as bigint) * reading.nanosPerUnit;
      return Number(nanos / 1_000_000n); // TIME is stored in millis (Paimon's TimeType keeps millisecond of day)
    }
    case 'timestamp':
      return raw as Timestamp;
  }
}

/** The exact decimal text of unscaled × 10^-scale ("-12.340" for -12340n, 3). */
export function decimalText(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
