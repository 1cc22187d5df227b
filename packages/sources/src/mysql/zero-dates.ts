/**
 * MySQL's zero dates (`0000-00-00`, and dates with a zero month or day, which a server without
 * NO_ZERO_DATE / NO_ZERO_IN_DATE stores) are no date at all. The source's `zeroDates` policy says
 * what one becomes, the same for DATE, DATETIME and TIMESTAMP columns; this is its one home.
 *
 * - `fail` (default): left as it is, so the converter refuses the row (SOURCE_ROW_INVALID, naming
 *   the shard, row and column), or the bad-row policy rejects it.
 * - `null`: NULL (refused in turn for a NOT NULL column).
 * - `epoch`: 1970-01-01 (00:00:00 UTC).
 */
import { z } from 'zod';
import type { SourceValue } from '../source.ts';

export const ZeroDatePolicy = z.enum(['fail', 'null', 'epoch']);
export type ZeroDatePolicy = z.infer<typeof ZeroDatePolicy>;

/** A date part with a zero month or day, optionally followed by a time: MySQL's zero and zero-in dates. */
export function isZeroDate(text: string): boolean {
  return /^\d{4}-(00-\d{2}|\d{2}-00)(?:$| )/.test(text);
}

/** What a zero date in a DATE (`date`) or DATETIME/TIMESTAMP (`timestamp`) column becomes; undefined: leave it to be refused. */
export function zeroDateValue(policy: ZeroDatePolicy, column: 'date' | 'timestamp'): SourceValue | undefined {
  switch (policy) {
    case 'fail':
      return undefined;
    case 'null':
      return null;
    case 'epoch':
      return column === 'date' ? '1970-01-01' : { epochMillis: 0, nanoOfMillis: 0 };
  }
}
