/**
 * A cell as JSON can carry it without loss, for row previews (the coordinator's
 * `GET /v1/tables/{db}/{table}/rows`):
 *
 *   BOOLEAN, TINYINT … INT      as is
 *   BIGINT                      decimal text ("9007199254740993"), since JSON numbers lose above 2^53
 *   DECIMAL(p, s)               plain decimal text ("-12.30")
 *   FLOAT, DOUBLE               a number; NaN and ±Infinity as the text "NaN", "Infinity", "-Infinity"
 *   CHAR, VARCHAR               as is
 *   BINARY, VARBINARY           base64
 *   DATE                        "2024-01-31" (ISO, any year)
 *   TIME(p)                     "13:45:07.123" (to its precision)
 *   TIMESTAMP, TIMESTAMP_LTZ    ISO local date-time ("2024-01-31T13:45:07.123456"), no zone
 *   null                        null
 */
import { formatDecimalPlain, formatLocalDateTime, formatSqlTime } from './java-text.ts';
import type { DataType, InternalValue, Timestamp } from './types.ts';

export type JsonCell = string | number | boolean | null;

const MILLIS_PER_DAY = 86_400_000;

export function jsonCell(value: InternalValue, type: DataType): JsonCell {
  if (value === null) return null;
  switch (type.root) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'CHAR':
    case 'VARCHAR':
      return value as boolean | number | string;
    case 'BIGINT':
      return String(value);
    case 'DECIMAL':
      return formatDecimalPlain(value as bigint, type.scale);
    case 'FLOAT':
    case 'DOUBLE': {
      const n = value as number;
      return Number.isFinite(n) ? n : String(n);
    }
    case 'BINARY':
    case 'VARBINARY': {
      const bytes = value as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    }
    case 'DATE':
      return formatLocalDateTime({ epochMillis: (value as number) * MILLIS_PER_DAY, nanoOfMillis: 0 }).slice(0, -'T00:00'.length);
    case 'TIME':
      return formatSqlTime(value as number, type.precision);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return formatLocalDateTime(value as Timestamp);
  }
}
