/**
 * How a data or changelog file Tributary writes is compressed and which value statistics its
 * manifest entry keeps, from the table's options, with Paimon's precedence
 * (KeyValueFileWriterFactory's `key2Compress` and `key2Stats`):
 *
 *   compression   changelog file and `changelog-file.compression` set ─► that
 *                 else `file.compression.per.level` for the file's level ─► that
 *                 else `file.compression` (default zstd), at `file.compression.zstd-level` (default 1)
 *   stats mode    changelog file and `changelog-file.stats-mode` set ─► that
 *                 else `metadata.stats-mode.per.level` for the file's level ─► that
 *                 else `metadata.stats-mode` (default truncate(16)); `fields.<f>.stats-mode` still
 *                 wins for its column (statsModesFor)
 *
 * Codecs written: zstd, gzip and none (`uncompressed`). The other Parquet codecs Paimon names
 * (snappy, lz4, lz4_raw, lzo, brotli) are read but not written: such a file is written with zstd,
 * which every Parquet reader reads (the codec is recorded per column chunk). Pure: options in,
 * settings out.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { DEFAULT_STATS_MODE, parseStatsMode, type StatsMode } from './simple-stats.ts';

export type WrittenCompression = 'zstd' | 'gzip' | 'none';

export interface FileCompression {
  readonly compression: WrittenCompression;
  /** `file.compression.zstd-level` (zstd only). */
  readonly zstdLevel: number;
}

/** Which file: its LSM level (0 for a load's files, the output level for a compaction's) and whether it is a changelog file. */
export interface FileKind {
  readonly level: number;
  readonly changelog: boolean;
}

export const DATA_FILE_LEVEL_0: FileKind = { level: 0, changelog: false };
export const CHANGELOG_FILE: FileKind = { level: 0, changelog: true };
/** An append table's file: Paimon's append writer reads neither per-level option (no level matches -1). */
export const APPEND_FILE: FileKind = { level: -1, changelog: false };

type Options = Readonly<Record<string, string>>;

/** Codecs Paimon accepts for Parquet that Tributary reads but writes as zstd. */
const READ_ONLY_CODECS: ReadonlySet<string> = new Set(['snappy', 'lz4', 'lz4_raw', 'lzo', 'brotli']);

/** The compression of a file of kind `kind`. @throws TABLE_OPTION_INVALID for an unknown codec, a malformed per-level map or zstd level */
export function fileCompression(options: Options, kind: FileKind): FileCompression {
  const named = pick(options, kind, 'changelog-file.compression', 'file.compression.per.level', 'file.compression');
  return { compression: named === undefined ? 'zstd' : writtenCodec(named.value, named.option), zstdLevel: zstdLevel(options) };
}

/** The table-wide stats mode for the value columns of a file of kind `kind` (statsModesFor applies the per-field ones). */
export function fileStatsMode(options: Options, kind: FileKind): StatsMode {
  const named = pick(options, kind, 'changelog-file.stats-mode', 'metadata.stats-mode.per.level', 'metadata.stats-mode');
  return named === undefined ? DEFAULT_STATS_MODE : statsMode(named.value, named.option);
}

/**
 * Checks every file option this module reads (at table creation, so a bad value is refused before
 * any file is written). @throws TABLE_OPTION_INVALID
 */
export function checkFileOptions(options: Options): void {
  for (const kind of [DATA_FILE_LEVEL_0, CHANGELOG_FILE]) {
    fileCompression(options, kind);
    fileStatsMode(options, kind);
  }
  for (const [option, read] of [
    ['file.compression.per.level', (v: string, o: string) => writtenCodec(v, o)],
    ['metadata.stats-mode.per.level', (v: string, o: string) => statsMode(v, o)],
  ] as const) {
    for (const value of levelMap(options, option).values()) read(value, option);
  }
}

/** The option that decides for `kind`: the changelog one, the per-level map's entry for its level, the table-wide one. */
function pick(options: Options, kind: FileKind, changelogKey: string, perLevelKey: string, tableKey: string): { value: string; option: string } | undefined {
  const changelog = kind.changelog ? nonEmpty(options[changelogKey]) : undefined;
  if (changelog !== undefined) return { value: changelog, option: changelogKey };
  const level = levelMap(options, perLevelKey).get(kind.level);
  if (level !== undefined) return { value: level, option: perLevelKey };
  const table = nonEmpty(options[tableKey]);
  return table === undefined ? undefined : { value: table, option: tableKey };
}

/** A Paimon map option (`0:lz4,1:zstd`) keyed by level. */
function levelMap(options: Options, option: string): Map<number, string> {
  const text = nonEmpty(options[option]);
  const out = new Map<number, string>();
  if (text === undefined) return out;
  for (const entry of text.split(',')) {
    const at = entry.indexOf(':');
    const level = at < 0 ? NaN : Number(entry.slice(0, at).trim());
    const value = at < 0 ? '' : entry.slice(at + 1).trim();
    if (!Number.isSafeInteger(level) || level < 0 || value === '') {
      throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${option} = '${text}' is not a list of <level>:<value> (e.g. '0:zstd,5:gzip')`, { option });
    }
    out.set(level, value);
  }
  return out;
}

function writtenCodec(value: string, option: string): WrittenCompression {
  const codec = value.trim().toLowerCase();
  if (codec === 'zstd' || codec === 'gzip') return codec;
  if (codec === 'none' || codec === 'uncompressed') return 'none';
  if (READ_ONLY_CODECS.has(codec)) return 'zstd';
  throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${option} = '${value}' is not a Parquet codec (zstd, gzip, none, snappy, lz4, lz4_raw, lzo, brotli)`, { option });
}

function statsMode(value: string, option: string): StatsMode {
  try {
    return parseStatsMode(value);
  } catch {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${option} = '${value}' is not a stats mode (none, counts, full or truncate(N > 0))`, { option });
  }
}

function zstdLevel(options: Options): number {
  const text = nonEmpty(options['file.compression.zstd-level']);
  if (text === undefined) return 1;
  const level = Number(text);
  // zstd's levels: negative ones are its fast modes, 22 its maximum.
  if (!Number.isSafeInteger(level) || level < -131072 || level > 22) {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `file.compression.zstd-level = '${text}' is not a zstd level (an integer up to 22)`, { option: 'file.compression.zstd-level' });
  }
  return level;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
