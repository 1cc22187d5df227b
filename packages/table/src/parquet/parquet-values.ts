/**
 * Physical Parquet values of Paimon's internal values, both ways, as
 * org.apache.paimon.format.parquet.writer.ParquetRowDataWriter writes them and
 * ParquetVectorUpdaterFactory reads them:
 *
 *   DECIMAL p ≤ 9       INT32 of the unscaled value; p ≤ 18 INT64; else big-endian two's
 *                       complement sign-extended to computeMinBytesForDecimalPrecision(p) bytes
 *   TIMESTAMP p ≤ 3     INT64 epoch millis (Timestamp.getMillisecond)
 *   TIMESTAMP p ≤ 6     INT64 epoch micros (Timestamp.toMicros: millis * 1000 + nanoOfMillis / 1000)
 *   TIMESTAMP p > 6     INT96, 12 bytes little-endian: int64 nanos of day, int32 Julian day, where
 *                       Java divides with truncation (timestampToInt96), so a pre-1970 instant has
 *                       a negative nanos-of-day; readers add the two (days * 86400e9 + nanos).
 */
import type { Timestamp } from '../spec/types.ts';

const JULIAN_EPOCH_OFFSET_DAYS = 2_440_588;
const MILLIS_PER_DAY = 86_400_000;
const NANOS_PER_DAY = 86_400_000_000_000n;

/** Unscaled decimal → `byteLength` big-endian two's-complement bytes (Java's UnscaledBytesWriter). */
export function decimalToFixedBytes(unscaled: bigint, byteLength: number): Uint8Array {
  const out = new Uint8Array(byteLength);
  let v = BigInt.asUintN(byteLength * 8, unscaled);
  for (let i = byteLength - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Big-endian two's-complement bytes (any length) → unscaled decimal. */
export function decimalFromBytes(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return BigInt.asIntN(bytes.length * 8, v);
}

/**
 * Big-endian two's-complement bytes (at most 8) → the int64 they sign-extend to, written as its two
 * 32-bit words (`words[2 * i]` the low one, little-endian hosts): decimalFromBytes without a BigInt.
 * Empty bytes are 0.
 */
export function decimalWordsInto(bytes: Uint8Array, words: Int32Array, i: number): void {
  const n = bytes.length;
  if (n > 8) throw new RangeError(`decimalWordsInto takes at most 8 bytes, not ${n}`);
  const fill = n > 0 && (bytes[0] as number) >= 0x80 ? 0xff : 0;
  let high = 0;
  let low = 0;
  for (let k = 0; k < 8; k++) {
    const byte = k < 8 - n ? fill : (bytes[k - (8 - n)] as number);
    if (k < 4) high = (high << 8) | byte;
    else low = (low << 8) | byte;
  }
  words[2 * i] = low;
  words[2 * i + 1] = high;
}

/**
 * Epoch micros into `millis[i]` and `nanos[i]` as timestampFromMicros gives them, without a BigInt
 * or an object while the micros are a safe integer (within about 285 years of 1970; beyond, by BigInt).
 */
export function microsInto(micros: bigint, millis: Float64Array, nanos: Int32Array, i: number): void {
  const n = Number(micros);
  if (!Number.isSafeInteger(n)) {
    const ts = timestampFromMicros(micros);
    millis[i] = ts.epochMillis;
    nanos[i] = ts.nanoOfMillis;
    return;
  }
  // |n| < 2^53: every product and difference below is exact; the quotient's rounding is corrected.
  let ms = Math.trunc(n / 1000);
  let rest = n - ms * 1000;
  if (rest < 0) {
    ms -= 1;
    rest += 1000;
  } else if (rest >= 1000) {
    ms += 1;
    rest -= 1000;
  }
  millis[i] = ms;
  nanos[i] = rest * 1000;
}

/** Epoch micros → Timestamp (floor division, so nanoOfMillis is never negative). */
export function timestampFromMicros(micros: bigint): Timestamp {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = Number(micros - millis * 1000n);
  return { epochMillis: Number(millis), nanoOfMillis: rest * 1000 };
}

/** Epoch nanos → Timestamp (floor division). */
export function timestampFromNanos(nanos: bigint): Timestamp {
  const millis = nanos / 1_000_000n - (nanos % 1_000_000n < 0n ? 1n : 0n);
  return { epochMillis: Number(millis), nanoOfMillis: Number(nanos - millis * 1_000_000n) };
}

/** Timestamp → INT96 bytes exactly as Java's ParquetRowDataWriter.timestampToInt96. */
export function timestampToInt96(epochMillis: number, nanoOfMillis: number, out = new Uint8Array(12)): Uint8Array {
  const julianDay = Math.trunc(epochMillis / MILLIS_PER_DAY) + JULIAN_EPOCH_OFFSET_DAYS;
  const millisOfDay = epochMillis % MILLIS_PER_DAY; // keeps the sign of epochMillis, like Java's %
  const nanosOfDay = BigInt(millisOfDay) * 1_000_000n + BigInt(nanoOfMillis);
  const view = new DataView(out.buffer, out.byteOffset, 12);
  view.setBigInt64(0, nanosOfDay, true);
  view.setInt32(8, julianDay, true);
  return out;
}

/** INT96 bytes → Timestamp; accepts Java's truncated form and the normalised form alike. */
export function timestampFromInt96(bytes: Uint8Array): Timestamp {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 12);
  const nanosOfDay = view.getBigInt64(0, true);
  const julianDay = view.getInt32(8, true);
  return timestampFromNanos(BigInt(julianDay - JULIAN_EPOCH_OFFSET_DAYS) * NANOS_PER_DAY + nanosOfDay);
}
