/**
 * The one boundary between protobufjs' 64-bit values (`Long`, low/high 32-bit halves) and the
 * domain's exact `bigint`. protobufjs would otherwise hand out `number`s that silently lose
 * precision above 2^53 (a documented protobufjs behaviour without long.js), and Paimon's row counts, sequence numbers
 * and sizes are Java longs.
 */
import Long from 'long';
import { protocolError } from './errors.ts';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** A Java long as protobufjs writes it. Throws BLOB_VALUE_OUT_OF_RANGE outside [-2^63, 2^63). */
export function toLong(value: bigint, field: string): Long {
  if (typeof value !== 'bigint' || value < INT64_MIN || value > INT64_MAX) {
    throw protocolError('BLOB_VALUE_OUT_OF_RANGE', `${field} must be a bigint in the int64 range`, {
      field,
      value: typeof value === 'bigint' ? value : String(value),
    });
  }
  const bits = BigInt.asUintN(64, value);
  return Long.fromBits(Number(bits & 0xffffffffn) | 0, Number(bits >> 32n) | 0, false);
}

/** The exact value of a decoded int64. protobufjs gives a `Long` (or a number if long.js is absent). */
export function fromLong(value: Long | number): bigint {
  if (typeof value === 'number') return BigInt(value);
  const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return BigInt.asIntN(64, bits);
}
