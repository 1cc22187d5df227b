/**
 * How a file's column names (a CSV header, NDJSON keys, Parquet column names) map to the table's
 * columns, the one rule of every format, at plan time (inspect.ts) and when a worker reads:
 * an exact (case-sensitive) match first, else the one name that matches ignoring case. Two names
 * that match one column ignoring case, a matched name the file has twice (a CSV header `id,s,s`),
 * and a file that has names but none of them a table column (a semicolon-separated CSV read as one column
 * `id;amount`), and a name that is a column's but for white space around it (a header `id, name`)
 * are refused with SOURCE_SCHEMA_MISMATCH naming the file: loading them would give rows of NULLs or
 * one of two columns chosen silently. So is, unless the source says `unknownColumns: "ignore"`, a
 * file column that is no column of the table: its values would not be loaded, and a misspelt name
 * (a header `amout` for the table's `amount`) would load the table's column as null in every row.
 */
import { errorFrom, type TributaryError } from '@tributary/protocol';
import { sourceErrors } from '../errors.ts';

/** The file formats, for the hint of a file that shares no column with the table. */
type FileFormat = 'csv' | 'ndjson' | 'parquet';

/** What a file column that is no column of the table does: `fail` refuses the file, naming it; `ignore` loads the file without it. */
export type UnknownColumns = 'fail' | 'ignore';

export interface MatchOptions {
  /** The names are all the file's columns (a CSV header, a Parquet schema), not one NDJSON object's keys. Default true. */
  readonly whole?: boolean;
  readonly unknownColumns: UnknownColumns;
}

/**
 * The file's name for one table column: exact, else the unique case-insensitive match, else
 * undefined. A file name that is the column's but for white space around it (a header `id, name`)
 * is refused: it matches nothing, so the column would load as null in every row with no error.
 * `table`: all the table's columns (a padded name that is itself one of them is that column's).
 */
export function matchColumn(name: string, available: readonly string[], uri: string, table: readonly string[]): string | undefined {
  if (available.includes(name)) return name;
  const lower = name.toLowerCase();
  const folded = available.filter((a) => a.toLowerCase() === lower);
  if (folded.length > 1) {
    throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri}: columns ${folded.join(', ')} all match ${name} ignoring case`, { file: uri, column: name });
  }
  if (folded.length === 0) {
    const padded = available.find((a) => a !== a.trim() && a.trim().toLowerCase() === lower && !table.includes(a));
    if (padded !== undefined) {
      throw errorFrom(
        sourceErrors,
        'SOURCE_SCHEMA_MISMATCH',
        `${uri}: its column ${JSON.stringify(padded)} is the table's column ${name} with white space around the name; a column is matched by its exact name (else ignoring case), so ${name} would load as null: remove the spaces from the file's names`,
        { file: uri, column: name },
      );
    }
  }
  return folded[0];
}

/**
 * Picks the file column for each wanted (table) name by `matchColumn`; a matched name the file
 * has more than once is refused. `whole`: a file that has names but none of the wanted ones is
 * refused too. With `unknownColumns: 'fail'`, so is a name that no wanted column took
 * (`refuseUnknownColumn`).
 */
export function matchColumns(wanted: readonly string[], available: readonly string[], uri: string, format: FileFormat, options: MatchOptions): (string | undefined)[] {
  const whole = options.whole ?? true;
  const matched = wanted.map((name) => matchColumn(name, available, uri, wanted));
  for (const [i, name] of matched.entries()) {
    if (name !== undefined && available.indexOf(name) !== available.lastIndexOf(name)) {
      throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri} names column ${name} more than once`, { file: uri, column: wanted[i] ?? name });
    }
  }
  // A file with no names at all (an NDJSON `{}`) says nothing of its columns.
  if (whole && wanted.length > 0 && available.length > 0 && matched.every((m) => m === undefined)) throw noSharedColumn(uri, format);
  // No wanted column at all is a caller that checks no column (a plan without a target), not a table.
  if (options.unknownColumns === 'fail' && wanted.length > 0) {
    const unknown = available.find((name) => !matched.includes(name));
    if (unknown !== undefined) throw unknownColumn(unknown, wanted, matched, uri);
  }
  return matched;
}

/**
 * A file column (`name`) that no table column takes. `matched`: each wanted column's file name (or
 * undefined), so the message can name the table's columns the file lacks: a misspelt name is
 * usually one of them.
 */
export function unknownColumn(name: string, wanted: readonly string[], matched: readonly (string | undefined)[], uri: string): TributaryError {
  const absent = wanted.filter((_, i) => matched[i] === undefined);
  const shown = absent.slice(0, 5).join(', ') + (absent.length > 5 ? `, … (${absent.length} in all)` : '');
  const hint = absent.length === 0 ? '' : ` The table's ${absent.length === 1 ? 'column' : 'columns'} ${shown} ${absent.length === 1 ? 'is' : 'are'} not in the file and would load as null: is ${quoted(name)} one of them misspelt?`;
  return errorFrom(
    sourceErrors,
    'SOURCE_SCHEMA_MISMATCH',
    `${uri} has a column ${quoted(name)} that is no column of the table, so its values would not be loaded.${hint} Rename it, or set "unknownColumns": "ignore" in the source to load the file without it.`,
    { file: uri, column: name.slice(0, NAME_SHOWN) },
  );
}

/** How much of a file's column name a message shows. */
const NAME_SHOWN = 64;

function quoted(name: string): string {
  return JSON.stringify(name.length > NAME_SHOWN ? `${name.slice(0, NAME_SHOWN)}…` : name);
}

/** A file that has none of the table's columns: the wrong file, or one read with the wrong format or separator. */
export function noSharedColumn(uri: string, format: FileFormat): TributaryError {
  return errorFrom(
    sourceErrors,
    'SOURCE_SCHEMA_MISMATCH',
    `${uri} has none of the table's columns (a wrong file or format${format === 'csv' ? ', or a separator other than a comma: a CSV must be comma-separated with a header' : ''})`,
    { file: uri },
  );
}
