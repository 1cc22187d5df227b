/**
 * Column statistics as manifests store them. Mirrors org.apache.paimon.stats.SimpleStats (min and
 * max as arity-prefixed BinaryRows over the stats columns, plus null counts) and the per-column
 * `metadata.stats-mode` collectors of org.apache.paimon.statistics (None / Counts / Full /
 * TruncateSimpleColStatsCollector) as StatsCollectorFactories picks them.
 *
 * Readers prune files with these values, so a wrong min or max silently hides rows. When a bound
 * cannot be expressed (a truncated max that cannot be bumped), min and max are both null, which
 * readers treat as "unknown" and keep the file.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { EMPTY_ROW, serializeBinaryRow } from './binary-row.ts';
import type { DataField, DataType, InternalRow, InternalValue } from './types.ts';

export interface SimpleStats {
  /** Arity-prefixed BinaryRow of the minimum per stats column (null = unknown). */
  readonly minValues: Uint8Array;
  readonly maxValues: Uint8Array;
  /**
   * Null count per stats column (an element null = unknown). The list itself is null only in a
   * commit message that carried none (the blob keeps null and `[]` apart); a manifest stores `[]`.
   */
  readonly nullCounts: readonly (bigint | null)[] | null;
}

/** SimpleStats.EMPTY_STATS: rows of arity 0 and no null counts. */
export const EMPTY_STATS: SimpleStats = { minValues: EMPTY_ROW, maxValues: EMPTY_ROW, nullCounts: [] };

/**
 * SimpleStatsConverter.toBinary: the stats of `types.length` columns. Stats rows are written with
 * every field nullable (a min or max may be unknown even for a NOT NULL column).
 */
export function simpleStats(
  mins: InternalRow,
  maxs: InternalRow,
  nullCounts: readonly (bigint | null)[],
  types: readonly DataType[],
): SimpleStats {
  if (nullCounts.length !== types.length) {
    throw errorFrom(tableErrors, 'ROW_VALUE_INVALID', `${nullCounts.length} null counts for ${types.length} stats columns`);
  }
  const nullable = types.map((t) => (t.nullable ? t : { ...t, nullable: true }));
  return {
    minValues: serializeBinaryRow(mins, nullable),
    maxValues: serializeBinaryRow(maxs, nullable),
    nullCounts: [...nullCounts],
  };
}

// ---------------------------------------------------------------------------------------------
// metadata.stats-mode
// ---------------------------------------------------------------------------------------------

export type StatsMode =
  | { readonly kind: 'none' }
  | { readonly kind: 'counts' }
  | { readonly kind: 'full' }
  | { readonly kind: 'truncate'; readonly length: number };

export const DEFAULT_STATS_MODE: StatsMode = { kind: 'truncate', length: 16 };

/** SimpleColStatsCollector.from: `none`, `counts`, `full` or `truncate(N)`, any case. */
export function parseStatsMode(text: string): StatsMode {
  const upper = text.toUpperCase();
  if (upper === 'NONE') return { kind: 'none' };
  if (upper === 'COUNTS') return { kind: 'counts' };
  if (upper === 'FULL') return { kind: 'full' };
  const m = /^TRUNCATE\((\d+)\)$/.exec(upper);
  const length = m === null ? NaN : Number(m[1]);
  if (!Number.isSafeInteger(length) || length <= 0 || length > 0x7fffffff) {
    throw errorFrom(tableErrors, 'SCHEMA_INVALID', `stats mode '${text}' is not none, counts, full or truncate(N > 0)`, { mode: text });
  }
  return { kind: 'truncate', length };
}

/**
 * StatsCollectorFactories.createStatsFactories for value columns: `fields.<name>.stats-mode`
 * first; then `tableMode` (`metadata.stats-mode`, default truncate(16), unless the file's kind picks
 * another: spec/file-options.ts fileStatsMode) for the first `metadata.stats-keep-first-n-columns`
 * columns (default all), `none` after them.
 */
export function statsModesFor(
  options: Readonly<Record<string, string>>,
  fieldNames: readonly string[],
  tableMode: StatsMode = parseStatsMode(options['metadata.stats-mode'] ?? 'truncate(16)'),
): StatsMode[] {
  const keepFirst = Number(options['metadata.stats-keep-first-n-columns'] ?? '-1');
  let counted = 0;
  return fieldNames.map((name) => {
    const own = options[`fields.${name}.stats-mode`];
    counted++;
    if (own !== undefined) return parseStatsMode(own);
    return keepFirst >= 0 && counted > keepFirst ? { kind: 'none' } : tableMode;
  });
}

/** org.apache.paimon.format.SimpleColStats: one column's min, max and null count. */
export interface SimpleColStats {
  readonly min: InternalValue;
  readonly max: InternalValue;
  readonly nullCount: bigint | null;
}

/** SimpleColStatsCollector.convert for one column: what the stats mode keeps of the exact stats. */
export function applyStatsMode(stats: SimpleColStats, mode: StatsMode): SimpleColStats {
  switch (mode.kind) {
    case 'none':
      return { min: null, max: null, nullCount: null };
    case 'counts':
      return { min: null, max: null, nullCount: stats.nullCount };
    case 'full':
      return stats;
    case 'truncate': {
      const max = truncateMax(stats.max, mode.length);
      if (max === null) return { min: null, max: null, nullCount: stats.nullCount };
      return { min: truncateMin(stats.min, mode.length), max, nullCount: stats.nullCount };
    }
  }
}

/** TruncateSimpleColStatsCollector.truncateMin: a prefix, which is ≤ the value. */
export function truncateMin(v: InternalValue, length: number): InternalValue {
  if (typeof v === 'string') return codePointPrefix(v, length) ?? v;
  if (v instanceof Uint8Array) return v.length <= length ? v : v.slice(0, length);
  return v;
}

/**
 * TruncateSimpleColStatsCollector.truncateMax: a value ≥ the input. A longer string is cut to
 * `length` code points and its last incrementable code point bumped; bytes likewise with the last
 * byte below 0xFF. Null when no such bound exists.
 */
export function truncateMax(v: InternalValue, length: number): InternalValue {
  if (typeof v === 'string') {
    const prefix = codePointPrefix(v, length);
    if (prefix === undefined) return v;
    const points = Array.from(prefix, (ch) => ch.codePointAt(0) as number);
    for (let i = points.length - 1; i >= 0; i--) {
      let next = (points[i] as number) + 1;
      // Java would append a lone surrogate here (U+D7FF + 1); U+E000 is the next valid bound.
      if (next === 0xd800) next = 0xe000;
      if (next <= 0x10ffff) return String.fromCodePoint(...points.slice(0, i), next);
    }
    return null;
  }
  if (v instanceof Uint8Array) {
    if (v.length <= length) return v;
    for (let i = length - 1; i >= 0; i--) {
      if (v[i] !== 0xff) {
        const out = v.slice(0, i + 1);
        out[i] = (out[i] as number) + 1;
        return out;
      }
    }
    return null;
  }
  return v;
}

/** The first `length` code points, or undefined when the string has no more than that. */
function codePointPrefix(s: string, length: number): string | undefined {
  if (s.length <= length) return undefined;
  let units = 0;
  let count = 0;
  for (const ch of s) {
    if (count === length) return s.slice(0, units);
    units += ch.length;
    count++;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// SimpleStatsConverter: column stats → the manifest's SimpleStats and _VALUE_STATS_COLS
// ---------------------------------------------------------------------------------------------

/** SimpleColStats.isNone: nothing known (the column's mode is `none`). */
export function isNoneStats(s: SimpleColStats): boolean {
  return s.min === null && s.max === null && s.nullCount === null;
}

export interface StatsWithColumns {
  /** `_VALUE_STATS_COLS`: null when the stats cover every field, else the covered field names. */
  readonly statsColumns: string[] | null;
  readonly stats: SimpleStats;
}

/**
 * SimpleStatsConverter.toBinary. Dense store (`metadata.stats-dense-store`, default true) drops
 * the columns whose stats are none and lists the kept ones; all-mode keeps every column and
 * returns null columns. `stats[i]` belongs to `fields[i]`; pass them through applyStatsMode first.
 */
export function statsToBinary(stats: readonly SimpleColStats[], fields: readonly DataField[], denseStore = true): StatsWithColumns {
  if (stats.length !== fields.length) {
    throw errorFrom(tableErrors, 'ROW_VALUE_INVALID', `${stats.length} column stats for ${fields.length} fields`);
  }
  const kept = denseStore ? fields.flatMap((_, i) => (isNoneStats(stats[i] as SimpleColStats) ? [] : [i])) : fields.map((_, i) => i);
  const pick = <T>(get: (s: SimpleColStats) => T): T[] => kept.map((i) => get(stats[i] as SimpleColStats));
  return {
    statsColumns: !denseStore || kept.length === fields.length ? null : kept.map((i) => (fields[i] as DataField).name),
    stats: simpleStats(
      pick((s) => s.min),
      pick((s) => s.max),
      pick((s) => s.nullCount),
      kept.map((i) => (fields[i] as DataField).type),
    ),
  };
}
