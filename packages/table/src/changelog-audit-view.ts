/**
 * The changelog audit as Tributary's processes ask for it and show it (the coordinator's
 * `GET /v1/tables/{db}/{table}/changelog`, the CLI's `tributary table changelog`): a snapshot
 * window resolved and bounded, the key given as text, every value JSON-safe (spec/json-value.ts).
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from './errors.ts';
import { AUDIT_FLAGS, type AuditFlag } from './format/changelog-audit.ts';
import { formatDataType } from './spec/data-type-json.ts';
import { parseDecimalPlain, parseSqlDate, parseLocalDateTime } from './spec/java-text.ts';
import { jsonCell, type JsonCell } from './spec/json-value.ts';
import { dataFilePaths, partitionPathOptions } from './spec/partition-path.ts';
import { fieldsByName, partitionFields, trimmedPrimaryKeys } from './spec/table-schema.ts';
import type { DataType, InternalValue } from './spec/types.ts';
import type { Table } from './table.ts';

/** Snapshots one audit reads at most (a page; `nextFrom` continues). */
export const MAX_AUDIT_SNAPSHOTS = 100;
/** The window when `from` is not given: the last this many snapshots up to `to`. */
export const DEFAULT_AUDIT_SNAPSHOTS = 20;

export interface ChangelogAuditQuery {
  readonly from?: number;
  readonly to?: number;
  /** The primary-key values without the partition keys, as text, in key order. */
  readonly key?: readonly string[];
  /** Keys reported at most. */
  readonly limit: number;
}

export interface ChangelogAuditView {
  /** The window audited; null when the table has no snapshot. */
  readonly from: number | null;
  readonly to: number | null;
  /** The first snapshot after the window when there is one: ask again from there. */
  readonly nextFrom: number | null;
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly keyColumns: readonly string[];
  readonly keys: readonly {
    readonly partition: string;
    readonly bucket: number;
    readonly key: readonly JsonCell[];
    readonly events: readonly {
      readonly snapshotId: number;
      readonly commitKind: string;
      readonly commitUser: string;
      /** `<partition>/bucket-N/changelog-….parquet` below the table. */
      readonly file: string;
      /** `_SEQUENCE_NUMBER`, as text (a Java long). */
      readonly sequenceNumber: string;
      readonly rowKind: '+I' | '-U' | '+U' | '-D';
      readonly row: readonly JsonCell[];
    }[];
    readonly findings: readonly { readonly snapshotId: number; readonly flag: AuditFlag; readonly event: number | null }[];
  }[];
  readonly counts: Readonly<Record<AuditFlag, number>>;
  readonly truncated: boolean;
}

const ROW_KINDS = ['+I', '-U', '+U', '-D'] as const;

function invalid(message: string, context: Record<string, string | number> = {}): Error {
  return errorFrom(tableErrors, 'CHANGELOG_AUDIT_INVALID', message, context);
}

/** Audits the window; a missing snapshot in it gives SNAPSHOT_NOT_FOUND. @throws CHANGELOG_AUDIT_INVALID */
export async function changelogAuditView(table: Table, query: ChangelogAuditQuery): Promise<ChangelogAuditView> {
  const schema = table.schema;
  if (schema.primaryKeys.length === 0) throw invalid('an append table has no keys to audit: its changes are its rows');
  const keyFields = fieldsByName(schema, trimmedPrimaryKeys(schema));
  const key = query.key === undefined ? undefined : parseKey(query.key, keyFields.map((f) => ({ name: f.name, type: f.type })));
  const ids = await table.snapshots.listIds();
  const latest = ids.at(-1);
  const columns = schema.fields.map((f) => ({ name: f.name, type: formatDataType(f.type) }));
  const empty = Object.fromEntries(AUDIT_FLAGS.map((f) => [f, 0])) as Record<AuditFlag, number>;
  if (latest === undefined) return { from: null, to: null, nextFrom: null, columns, keyColumns: keyFields.map((f) => f.name), keys: [], counts: empty, truncated: false };
  const earliest = ids[0] as number;
  const to = query.to ?? latest;
  // The snapshot before the window must still exist: it holds the rows the first one changed.
  const first = earliest === 1 ? 1 : earliest + 1;
  const from = query.from ?? Math.max(first, to - DEFAULT_AUDIT_SNAPSHOTS + 1);
  if (from > to) throw invalid(`from (${from}) is after to (${to})`, { from, to });
  if (to - from + 1 > MAX_AUDIT_SNAPSHOTS) throw invalid(`an audit reads at most ${MAX_AUDIT_SNAPSHOTS} snapshots; page with from and to`, { from, to });
  const audit = await table.auditChangelog({ from, to, ...(key !== undefined ? { key } : {}), limit: query.limit });
  const paths = dataFilePaths(partitionFields(schema), partitionPathOptions(schema.options));
  const cells = (row: readonly InternalValue[], types: readonly DataType[]) => row.map((v, i) => jsonCell(v, types[i] as DataType));
  const types = schema.fields.map((f) => f.type);
  const keyTypes = keyFields.map((f) => f.type);
  return {
    from,
    to,
    nextFrom: to < latest ? to + 1 : null,
    columns,
    keyColumns: keyFields.map((f) => f.name),
    keys: audit.keys.map((k) => ({
      partition: paths.directory(k.partition),
      bucket: k.bucket,
      key: cells(k.key, keyTypes),
      events: k.events.map((e) => ({
        snapshotId: e.snapshotId,
        commitKind: e.commitKind,
        commitUser: e.commitUser,
        file: paths.file(k.partition, k.bucket, e.fileName),
        sequenceNumber: String(e.sequenceNumber),
        rowKind: ROW_KINDS[e.kind] ?? '+I',
        row: cells(e.row, types),
      })),
      findings: k.findings.map((f) => ({ ...f })),
    })),
    counts: audit.counts,
    truncated: audit.truncated,
  };
}

/** Key values from text, one per key column: integers, decimals, strings, booleans and dates. */
export function parseKey(texts: readonly string[], fields: readonly { readonly name: string; readonly type: DataType }[]): InternalValue[] {
  if (texts.length !== fields.length) {
    throw invalid(`the key has ${fields.length} column(s) (${fields.map((f) => f.name).join(', ')}), not ${texts.length}`, { expected: fields.length, given: texts.length });
  }
  return fields.map((f, i) => {
    const value = parseKeyCell(texts[i] as string, f.type);
    // The value itself is user data: the error names the column only.
    if (value === undefined) throw invalid(`the key value for column '${f.name}' does not parse as ${formatDataType(f.type)}`, { column: f.name });
    return value;
  });
}

function parseKeyCell(text: string, type: DataType): InternalValue | undefined {
  const integer = /^-?\d+$/.test(text.trim());
  switch (type.root) {
    case 'BOOLEAN':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      const bits = { TINYINT: 8, SMALLINT: 16, INT: 32 }[type.root];
      const n = Number(text);
      return integer && Number.isSafeInteger(n) && n >= -(2 ** (bits - 1)) && n < 2 ** (bits - 1) ? n : undefined;
    }
    case 'BIGINT': {
      if (!integer) return undefined;
      const n = BigInt(text.trim());
      return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
    }
    case 'DECIMAL':
      return parseDecimalPlain(text.trim(), type.precision, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      return text;
    case 'DATE':
      return parseSqlDate(text.trim());
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return parseLocalDateTime(text.trim());
    default:
      return undefined;
  }
}
