/**
 * An instant cut to a TIMESTAMP(p) or TIMESTAMP_LTZ(p) column's precision, toward the past (floor,
 * also before 1970), as Paimon's writers store it: p fraction digits are kept, finer ones dropped.
 * p ≥ 3 cuts the nanoseconds within the millisecond; p = 0, 1, 2 cut the epoch milliseconds
 * themselves (`…56.987` into TIMESTAMP(0) is `…56`, `1969-12-31 23:59:59.987` is `…59.000`, epoch
 * millis -1000) and leave no nanoseconds. The one home of this rule: the row converter, the column
 * converter and every source's cells (CSV, Parquet, MySQL text, PostgreSQL binary) use it.
 *
 * `epochMillis` must be an integer (every path checks it first) and `nanoOfMillis` in [0, 999,999].
 */
import type { Timestamp } from '@tributary/table';

/** Cuts the instant in slot `r` of a timestamp column (`millis`, `nanos`) in place. */
export type TimestampCutInto = (millis: Float64Array, nanos: Int32Array, r: number) => void;

/** The in-place cut of a column of precision `precision` (0 to 9). */
export function timestampCutInto(precision: number): TimestampCutInto {
  if (precision >= 9) return () => {};
  if (precision >= 3) {
    const unit = 10 ** (9 - precision);
    return (_millis, nanos, r) => {
      const n = nanos[r] ?? 0;
      nanos[r] = n - (n % unit);
    };
  }
  const unit = 10 ** (3 - precision);
  return (millis, nanos, r) => {
    const m = millis[r] ?? 0;
    millis[r] = m - floorMod(m, unit);
    nanos[r] = 0;
  };
}

/** The cut of a column of precision `precision` (0 to 9), as a new value. */
export function timestampCut(precision: number): (ts: Timestamp) => Timestamp {
  const into = timestampCutInto(precision);
  const millis = new Float64Array(1);
  const nanos = new Int32Array(1);
  return (ts) => {
    millis[0] = ts.epochMillis;
    nanos[0] = ts.nanoOfMillis;
    into(millis, nanos, 0);
    return { epochMillis: millis[0] ?? 0, nanoOfMillis: nanos[0] ?? 0 };
  };
}

/** `m` mod `unit` in [0, unit): the remainder toward the past, also for a negative `m`. */
function floorMod(m: number, unit: number): number {
  const rest = m % unit;
  return rest < 0 ? rest + unit : rest;
}
