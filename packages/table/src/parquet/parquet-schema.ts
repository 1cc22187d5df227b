/**
 * Paimon's mapping of its types to a Parquet schema, as
 * org.apache.paimon.format.parquet.ParquetSchemaConverter writes it (Paimon 1.3 through master):
 *
 *   message paimon_schema                      (root name)
 *   nullable → OPTIONAL, NOT NULL → REQUIRED; every column carries field_id = the Paimon field id
 *   BOOLEAN            BOOLEAN
 *   TINYINT/SMALLINT   INT32 + INTEGER(8/16, signed)
 *   INT / BIGINT       INT32 / INT64
 *   FLOAT / DOUBLE     FLOAT / DOUBLE
 *   DECIMAL(p, s)      p ≤ 9 INT32, p ≤ 18 INT64, else FIXED_LEN_BYTE_ARRAY(minBytes(p)); + DECIMAL(p, s)
 *   CHAR/VARCHAR       BYTE_ARRAY + STRING
 *   BINARY/VARBINARY   BYTE_ARRAY
 *   DATE               INT32 + DATE
 *   TIME(p)            INT32 + TIME(MILLIS, isAdjustedToUTC = true), whatever p (values are ms of day)
 *   TIMESTAMP(p)       p ≤ 3 INT64 + TIMESTAMP(MILLIS), p ≤ 6 INT64 + TIMESTAMP(MICROS), else INT96;
 *                      isAdjustedToUTC = false for TIMESTAMP, true for TIMESTAMP_LTZ
 */

import type { DataField, DataType, RowType } from '../spec/types.ts';

export type PhysicalType = 'BOOLEAN' | 'INT32' | 'INT64' | 'INT96' | 'FLOAT' | 'DOUBLE' | 'BYTE_ARRAY' | 'FIXED_LEN_BYTE_ARRAY';

export type LogicalTypeSpec =
  | { readonly type: 'STRING' | 'DATE' }
  | { readonly type: 'DECIMAL'; readonly precision: number; readonly scale: number }
  | { readonly type: 'INTEGER'; readonly bitWidth: number; readonly isSigned: boolean }
  | { readonly type: 'TIME' | 'TIMESTAMP'; readonly isAdjustedToUTC: boolean; readonly unit: 'MILLIS' | 'MICROS' | 'NANOS' };

/** parquet.thrift SchemaElement, the fields Paimon's schema uses (field names as in the spec). */
export interface SchemaElement {
  readonly name: string;
  readonly type?: PhysicalType;
  readonly type_length?: number;
  readonly repetition_type?: 'REQUIRED' | 'OPTIONAL' | 'REPEATED';
  readonly num_children?: number;
  readonly converted_type?: 'UTF8' | 'DECIMAL' | 'DATE' | 'TIME_MILLIS' | 'TIMESTAMP_MILLIS' | 'TIMESTAMP_MICROS' | 'INT_8' | 'INT_16';
  readonly scale?: number;
  readonly precision?: number;
  readonly field_id?: number;
  readonly logical_type?: LogicalTypeSpec;
}

export const PARQUET_ROOT_NAME = 'paimon_schema';

/** ParquetSchemaConverter.computeMinBytesForDecimalPrecision: bytes holding any p-digit unscaled value. */
export function decimalByteLength(precision: number): number {
  let bytes = 1;
  while (2n ** BigInt(8 * bytes - 1) < 10n ** BigInt(precision)) bytes += 1;
  return bytes;
}

/** How a timestamp of this precision is stored: Java's createTimestampWithLogicalType. */
export function timestampEncoding(precision: number): 'MILLIS' | 'MICROS' | 'INT96' {
  if (precision <= 3) return 'MILLIS';
  return precision <= 6 ? 'MICROS' : 'INT96';
}

/** The Parquet leaf element Paimon writes for one field. */
export function parquetElement(field: DataField): SchemaElement {
  const base: SchemaElement = {
    name: field.name,
    repetition_type: field.type.nullable ? 'OPTIONAL' : 'REQUIRED',
    field_id: field.id,
  };
  return { ...base, ...physicalAndLogical(field.type) };
}

function physicalAndLogical(type: DataType): Omit<SchemaElement, 'name'> {
  switch (type.root) {
    case 'BOOLEAN':
      return { type: 'BOOLEAN' };
    case 'TINYINT':
      return { type: 'INT32', converted_type: 'INT_8', logical_type: { type: 'INTEGER', bitWidth: 8, isSigned: true } };
    case 'SMALLINT':
      return { type: 'INT32', converted_type: 'INT_16', logical_type: { type: 'INTEGER', bitWidth: 16, isSigned: true } };
    case 'INT':
      return { type: 'INT32' };
    case 'BIGINT':
      return { type: 'INT64' };
    case 'FLOAT':
      return { type: 'FLOAT' };
    case 'DOUBLE':
      return { type: 'DOUBLE' };
    case 'DECIMAL': {
      const { precision, scale } = type;
      const decimal = {
        converted_type: 'DECIMAL',
        precision,
        scale,
        logical_type: { type: 'DECIMAL', precision, scale },
      } as const;
      if (precision <= 9) return { type: 'INT32', ...decimal };
      if (precision <= 18) return { type: 'INT64', ...decimal };
      return { type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalByteLength(precision), ...decimal };
    }
    case 'CHAR':
    case 'VARCHAR':
      return { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    case 'BINARY':
    case 'VARBINARY':
      return { type: 'BYTE_ARRAY' };
    case 'DATE':
      return { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'TIME':
      return {
        type: 'INT32',
        converted_type: 'TIME_MILLIS',
        logical_type: { type: 'TIME', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return timestampElement(type.precision, type.root === 'TIMESTAMP_LTZ');
  }
}

function timestampElement(precision: number, isAdjustedToUTC: boolean): Omit<SchemaElement, 'name'> {
  const encoding = timestampEncoding(precision);
  if (encoding === 'INT96') return { type: 'INT96' };
  // parquet-mr (ParquetMetadataConverter.ConvertedTypeConverterVisitor) also writes the legacy
  // converted type TIMESTAMP_MILLIS/MICROS whatever isAdjustedToUTC; readers prefer the logical type.
  const converted = { converted_type: encoding === 'MILLIS' ? 'TIMESTAMP_MILLIS' : 'TIMESTAMP_MICROS' } as const;
  return { type: 'INT64', ...converted, logical_type: { type: 'TIMESTAMP', isAdjustedToUTC, unit: encoding } };
}

/** The whole file schema: root element then one leaf per field, in field order. */
export function parquetSchema(rowType: RowType): SchemaElement[] {
  return [
    { name: PARQUET_ROOT_NAME, num_children: rowType.fields.length },
    ...rowType.fields.map(parquetElement),
  ];
}
