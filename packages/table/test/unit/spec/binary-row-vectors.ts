/**
 * Golden BinaryRow vectors from the reference implementation: each row was written by Paimon's own
 * BinaryRowWriter / InternalRowSerializer (paimon-common, JDK 17) and hashed with BinaryRow.hashCode();
 * `buckets` is Math.abs(hash % N) for N = 2, 4, 10, 16 (DefaultBucketFunction). Hex is the
 * arity-prefixed form (SerializationUtils.serializeBinaryRow).
 */
import type { InternalValue } from '../../../src/spec/types.ts';

export interface RowVector {
  readonly name: string;
  /** Paimon type strings, parsed with parseDataType. */
  readonly types: readonly string[];
  readonly values: readonly InternalValue[];
  readonly hex: string;
  readonly hash: number;
  /** Buckets for N = 2, 4, 10, 16. */
  readonly buckets: readonly [number, number, number, number];
}

export const BUCKET_COUNTS = [2, 4, 10, 16] as const;

const ONE = '00000001' + '0000000000000000';
const ts = (epochMillis: number, nanoOfMillis = 0) => ({ epochMillis, nanoOfMillis });

export const ROW_VECTORS: readonly RowVector[] = [
  { name: 'empty row', types: [], values: [], hex: '000000000000000000000000', hash: -1670924195, buckets: [1, 3, 5, 3] },
  { name: 'INT 5', types: ['INT'], values: [5], hex: ONE + '0500000000000000', hash: 260196596, buckets: [0, 0, 6, 4] },
  { name: 'INT -1', types: ['INT'], values: [-1], hex: ONE + 'ffffffff00000000', hash: 1133687267, buckets: [1, 3, 7, 3] },
  { name: 'INT null', types: ['INT'], values: [null], hex: '00000001' + '0001000000000000' + '0000000000000000', hash: -1748325344, buckets: [0, 0, 4, 0] },
  { name: 'BIGINT 42', types: ['BIGINT'], values: [42n], hex: ONE + '2a00000000000000', hash: 907821237, buckets: [1, 1, 7, 5] },
  { name: "STRING 'abc'", types: ['STRING'], values: ['abc'], hex: ONE + '6162630000000083', hash: -101922419, buckets: [1, 3, 9, 3] },
  { name: "STRING ''", types: ['STRING'], values: [''], hex: ONE + '0000000000000080', hash: 302122119, buckets: [1, 3, 9, 7] },
  { name: "STRING 'abcdefgh'", types: ['STRING'], values: ['abcdefgh'], hex: ONE + '0800000010000000' + '6162636465666768', hash: -843760178, buckets: [0, 2, 8, 2] },
  {
    name: "STRING '2024-01-01'",
    types: ['STRING'],
    values: ['2024-01-01'],
    hex: ONE + '0a00000010000000' + '323032342d30312d3031000000000000',
    hash: 306517490,
    buckets: [0, 2, 0, 2],
  },
  {
    name: "(INT 1, STRING '2024-01-01', BIGINT 42)",
    types: ['INT', 'STRING', 'BIGINT'],
    values: [1, '2024-01-01', 42n],
    hex: '00000003' + '0000000000000000' + '0100000000000000' + '0a00000020000000' + '2a00000000000000' + '323032342d30312d3031000000000000',
    hash: -232635180,
    buckets: [0, 0, 0, 12],
  },
  {
    name: "(STRING 'a', null, 'longer than seven')",
    types: ['STRING', 'STRING', 'STRING'],
    values: ['a', null, 'longer than seven'],
    hex:
      '00000003' + '0002000000000000' + '6100000000000081' + '0000000000000000' + '1100000020000000' +
      '6c6f6e676572207468616e20736576656e00000000000000',
    hash: -2059554909,
    buckets: [1, 1, 9, 13],
  },
  { name: 'DATE 19723', types: ['DATE'], values: [19723], hex: ONE + '0b4d000000000000', hash: -1439008885, buckets: [1, 1, 5, 5] },
  { name: 'DECIMAL(10,2) 123.45', types: ['DECIMAL(10, 2)'], values: [12345n], hex: ONE + '3930000000000000', hash: 767607022, buckets: [0, 2, 2, 14] },
  {
    name: 'DECIMAL(20,2) 12345.67',
    types: ['DECIMAL(20, 2)'],
    values: [1234567n],
    hex: ONE + '0300000010000000' + '12d6870000000000' + '0000000000000000',
    hash: -1505263393,
    buckets: [1, 1, 3, 1],
  },
  {
    name: 'DECIMAL(20,0) -128 (one byte, unlike pypaimon)',
    types: ['DECIMAL(20, 0)'],
    values: [-128n],
    hex: ONE + '0100000010000000' + '8000000000000000' + '0000000000000000',
    hash: 1196242097,
    buckets: [1, 1, 7, 1],
  },
  {
    name: 'DECIMAL(20,2) null (reserves 16 bytes)',
    types: ['DECIMAL(20, 2)'],
    values: [null],
    hex: '00000001' + '0001000000000000' + '0000000010000000' + '0000000000000000' + '0000000000000000',
    hash: -1380280760,
    buckets: [0, 0, 0, 8],
  },
  { name: 'TIMESTAMP(3) 1704067200123', types: ['TIMESTAMP(3)'], values: [ts(1704067200123)], hex: ONE + '7bf451c28c010000', hash: 985649424, buckets: [0, 0, 4, 0] },
  {
    name: 'TIMESTAMP(6) 1704067200123.456',
    types: ['TIMESTAMP(6)'],
    values: [ts(1704067200123, 456000)],
    hex: ONE + '40f5060010000000' + '7bf451c28c010000',
    hash: 941252157,
    buckets: [1, 1, 7, 13],
  },
  {
    name: 'TIMESTAMP(6) null (reserves 8 bytes)',
    types: ['TIMESTAMP(6)'],
    values: [null],
    hex: '00000001' + '0001000000000000' + '0000000010000000' + '0000000000000000',
    hash: -340882661,
    buckets: [1, 1, 1, 5],
  },
  { name: 'BOOLEAN true', types: ['BOOLEAN'], values: [true], hex: ONE + '0100000000000000', hash: 1465514398, buckets: [0, 2, 8, 14] },
  { name: 'BYTES 010203', types: ['BYTES'], values: [new Uint8Array([1, 2, 3])], hex: ONE + '0102030000000083', hash: 1066645297, buckets: [1, 1, 7, 1] },
  // Appendix of the reference.
  { name: 'BIGINT 1234567890123', types: ['BIGINT'], values: [1234567890123n], hex: ONE + 'cb04fb711f010000', hash: -1873221036, buckets: [0, 0, 6, 12] },
  { name: "STRING 'abcdefg' (7 bytes inline)", types: ['STRING'], values: ['abcdefg'], hex: ONE + '6162636465666787', hash: -1431907323, buckets: [1, 3, 3, 11] },
  {
    name: "STRING 'héllo wörld €'",
    types: ['STRING'],
    values: ['héllo wörld €'],
    hex: ONE + '1100000010000000' + '68c3a96c6c6f2077c3b6726c6420e282ac00000000000000',
    hash: 514412438,
    buckets: [0, 2, 8, 6],
  },
  { name: 'TINYINT -2', types: ['TINYINT'], values: [-2], hex: ONE + 'fe00000000000000', hash: 1831745471, buckets: [1, 3, 1, 15] },
  { name: 'SMALLINT 300', types: ['SMALLINT'], values: [300], hex: ONE + '2c01000000000000', hash: 690796707, buckets: [1, 3, 7, 3] },
  { name: 'FLOAT 1.5', types: ['FLOAT'], values: [1.5], hex: ONE + '0000c03f00000000', hash: -173842779, buckets: [1, 3, 9, 11] },
  { name: 'DOUBLE 1.5', types: ['DOUBLE'], values: [1.5], hex: ONE + '000000000000f83f', hash: 1860889473, buckets: [1, 1, 3, 1] },
  { name: 'TIME(0) 12:00:00', types: ['TIME(0)'], values: [43200000], hex: ONE + '002e930200000000', hash: -469535509, buckets: [1, 1, 9, 5] },
];
