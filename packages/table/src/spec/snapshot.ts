/**
 * The snapshot file `snapshot/snapshot-N`. Mirrors org.apache.paimon.Snapshot (Jackson-annotated,
 * CURRENT_VERSION 3) as JsonSerdeUtil.toJson writes it: fields in the creator's order, nullable
 * fields left out when null (@JsonInclude NON_NULL), pretty-printed.
 *
 * Every Java `long` is a bigint here: `commitIdentifier` of a batch commit is Long.MAX_VALUE and
 * old watermarks may be Long.MIN_VALUE, which a JS number cannot hold.
 *
 * Reading is lenient where Java is (unknown keys, ≤ 1.3's `logOffsets` and explicit nulls are
 * ignored) and strict where Java would fail or produce garbage: a missing required field, a wrong
 * type, or an unknown `commitKind` / `operation` gives SNAPSHOT_INVALID.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { JsonObjectReader, parseJsonExact, toJacksonPrettyJson, type JsonNode } from './json-serde.ts';

/** Snapshot.CURRENT_VERSION; always written (version ≤ 1 means "Table Store 0.2" to Java). */
export const SNAPSHOT_VERSION = 3;

/** BatchWriteBuilder.COMMIT_IDENTIFIER = Long.MAX_VALUE. */
export const BATCH_COMMIT_IDENTIFIER = 9223372036854775807n;

/** Snapshot.CommitKind */
export const COMMIT_KINDS = ['APPEND', 'COMPACT', 'OVERWRITE', 'ANALYZE'] as const;
export type CommitKind = (typeof COMMIT_KINDS)[number];

/** Snapshot.Operation (2.0+) */
export const SNAPSHOT_OPERATIONS = [
  'WRITE',
  'OVERWRITE',
  'DELETE',
  'TRUNCATE',
  'UPDATE',
  'MERGE',
  'CREATE_TABLE_AS_SELECT',
  'REPLACE_TABLE_AS_SELECT',
  'CREATE_OR_REPLACE_TABLE_AS_SELECT',
] as const;
export type SnapshotOperation = (typeof SNAPSHOT_OPERATIONS)[number];

/** org.apache.paimon.Snapshot; `null` where Java's field is @Nullable (and then not written). */
export interface Snapshot {
  readonly version: number;
  /** 2.0+: a random UUID per snapshot. */
  readonly uuid: string | null;
  readonly id: bigint;
  /** The latest schema id at commit time. */
  readonly schemaId: bigint;
  readonly baseManifestList: string;
  readonly baseManifestListSize: bigint | null;
  readonly deltaManifestList: string;
  readonly deltaManifestListSize: bigint | null;
  readonly changelogManifestList: string | null;
  readonly changelogManifestListSize: bigint | null;
  /** Carried over from the previous snapshot when no index file changed. */
  readonly indexManifest: string | null;
  readonly commitUser: string;
  readonly writerVersion: string | null;
  readonly commitIdentifier: bigint;
  readonly commitKind: CommitKind;
  readonly timeMillis: bigint;
  readonly totalRecordCount: bigint;
  readonly deltaRecordCount: bigint;
  readonly changelogRecordCount: bigint | null;
  readonly watermark: bigint | null;
  readonly statistics: string | null;
  /** Null (not written) when empty. */
  readonly properties: ReadonlyMap<string, string> | null;
  readonly nextRowId: bigint | null;
  readonly operation: SnapshotOperation | null;
}

/** Snapshot's JSON (Jackson, NON_NULL) in Java's field order. */
export function encodeSnapshot(s: Snapshot): string {
  const node = new Map<string, JsonNode>();
  const put = (key: string, value: JsonNode | undefined): void => {
    if (value !== null && value !== undefined) node.set(key, value);
  };
  put('version', s.version);
  put('uuid', s.uuid);
  put('id', s.id);
  put('schemaId', s.schemaId);
  put('baseManifestList', s.baseManifestList);
  put('baseManifestListSize', s.baseManifestListSize);
  put('deltaManifestList', s.deltaManifestList);
  put('deltaManifestListSize', s.deltaManifestListSize);
  put('changelogManifestList', s.changelogManifestList);
  put('changelogManifestListSize', s.changelogManifestListSize);
  put('indexManifest', s.indexManifest);
  put('commitUser', s.commitUser);
  put('writerVersion', s.writerVersion);
  put('commitIdentifier', s.commitIdentifier);
  put('commitKind', s.commitKind);
  put('timeMillis', s.timeMillis);
  put('totalRecordCount', s.totalRecordCount);
  put('deltaRecordCount', s.deltaRecordCount);
  put('changelogRecordCount', s.changelogRecordCount);
  put('watermark', s.watermark);
  put('statistics', s.statistics);
  put('properties', s.properties === null || s.properties.size === 0 ? null : new Map(s.properties));
  put('nextRowId', s.nextRowId);
  put('operation', s.operation);
  return toJacksonPrettyJson(node);
}

function enumValue<T extends string>(r: JsonObjectReader, key: string, values: readonly T[]): T {
  const v = r.string(key);
  if (!(values as readonly string[]).includes(v)) throw r.fail(`snapshot: unknown ${key} '${v}'`);
  return v as T;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function textOf(input: string | Uint8Array): string {
  if (typeof input === 'string') return input;
  try {
    return utf8.decode(input);
  } catch (cause) {
    throw errorFrom(tableErrors, 'SNAPSHOT_INVALID', 'snapshot file is not valid UTF-8', {}, { cause });
  }
}

/** Snapshot.fromJson, with every long exact. Accepts the file's text or its bytes. */
export function decodeSnapshot(input: string | Uint8Array): Snapshot {
  const r = new JsonObjectReader(parseJsonExact(textOf(input), 'SNAPSHOT_INVALID', 'snapshot file'), 'SNAPSHOT_INVALID', 'snapshot');
  const operation = r.has('operation') ? enumValue(r, 'operation', SNAPSHOT_OPERATIONS) : null;
  return {
    version: r.int('version'),
    uuid: r.optionalString('uuid') ?? null,
    id: r.long('id'),
    schemaId: r.long('schemaId'),
    baseManifestList: r.string('baseManifestList'),
    baseManifestListSize: r.optionalLong('baseManifestListSize') ?? null,
    deltaManifestList: r.string('deltaManifestList'),
    deltaManifestListSize: r.optionalLong('deltaManifestListSize') ?? null,
    changelogManifestList: r.optionalString('changelogManifestList') ?? null,
    changelogManifestListSize: r.optionalLong('changelogManifestListSize') ?? null,
    indexManifest: r.optionalString('indexManifest') ?? null,
    commitUser: r.string('commitUser'),
    writerVersion: r.optionalString('writerVersion') ?? null,
    commitIdentifier: r.long('commitIdentifier'),
    commitKind: enumValue(r, 'commitKind', COMMIT_KINDS),
    timeMillis: r.long('timeMillis'),
    totalRecordCount: r.long('totalRecordCount'),
    deltaRecordCount: r.long('deltaRecordCount'),
    changelogRecordCount: r.optionalLong('changelogRecordCount') ?? null,
    watermark: r.optionalLong('watermark') ?? null,
    statistics: r.optionalString('statistics') ?? null,
    properties: r.has('properties') ? r.stringMap('properties') : null,
    nextRowId: r.optionalLong('nextRowId') ?? null,
    operation,
  };
}

/**
 * Equality as RenamingSnapshotCommit judges it after an ambiguous publish: the decoded values,
 * not the bytes (a snapshot file found in place with equal content means our commit landed).
 */
export function snapshotsEqual(a: Snapshot, b: Snapshot): boolean {
  // Java compares properties as a Map (order-insensitive); JSON.parse also reorders integer-like keys.
  const sorted = (s: Snapshot): Snapshot => ({
    ...s,
    properties: s.properties === null ? null : new Map([...s.properties].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))),
  });
  return encodeSnapshot(sorted(a)) === encodeSnapshot(sorted(b));
}

/** The commit identity written into every snapshot (Snapshot.commitUser / commitIdentifier). */
export interface CommitIdentity {
  readonly commitUser: string;
  readonly commitIdentifier: bigint;
}

/** Does a snapshot carry this identity? (the check of FileStoreCommitImpl's retry loop, apache/paimon#5771) */
export function hasIdentity(snapshot: { readonly commitUser: string; readonly commitIdentifier: bigint }, identity: CommitIdentity): boolean {
  return snapshot.commitUser === identity.commitUser && snapshot.commitIdentifier === identity.commitIdentifier;
}
