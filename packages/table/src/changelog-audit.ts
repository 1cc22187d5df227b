/**
 * Audits the changelog of a primary-key table over a range of snapshots, per key: the RowKind
 * sequence a streaming reader gets (snapshot, commit kind, file, sequence number) and the anomalies
 * of format/changelog-audit.ts, each snapshot checked against the data it changed:
 *
 *   per snapshot s in [from, to]
 *     its changelog rows (read/changelog-read.ts), and the keys of its data delta (APPEND, OVERWRITE)
 *     ─► per touched (partition, bucket): the keys' stored rows in s - 1 and in s
 *        (read/before-images.ts: only files whose key range holds one of them)
 *     ─► per key: auditKey(stored before, stored after, the key's changelog rows)
 *
 * Works on tables any engine wrote (Paimon Java, Flink, pypaimon): it reads only files and
 * manifests. Bounded by the caller: the snapshot range and the number of keys reported (`limit`;
 * keys past it are not tracked and `truncated` says so). With `key`, only that key is read, and
 * files whose key range cannot hold it are skipped.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from './errors.ts';
import type { ObjectStore } from './io/object-store.ts';
import { auditKey, AUDIT_FLAGS, type AuditFlag } from './format/changelog-audit.ts';
import { bucketKey, decodeBinaryRow } from './spec/binary-row.ts';
import type { ManifestEntry } from './spec/manifest-entry.ts';
import type { Snapshot } from './spec/snapshot.ts';
import { fieldsByName, partitionFields, trimmedPrimaryKeys, type TableSchema } from './spec/table-schema.ts';
import type { InternalRow } from './spec/types.ts';
import { FileStoreScan } from './snapshot/file-store-scan.ts';
import { SnapshotManager } from './snapshot/snapshot-manager.ts';
import { lookupBeforeImages } from './read/before-images.ts';
import { readChangelog } from './read/changelog-read.ts';
import { TableRead } from './read/table-read.ts';

export interface ChangelogAuditRequest {
  readonly from: number;
  readonly to: number;
  /** Only this key: the primary-key values without the partition keys, in key order. */
  readonly key?: InternalRow;
  /** Keys reported at most. */
  readonly limit: number;
}

/** One changelog row of a key, where it is stored. */
export interface AuditEvent {
  readonly snapshotId: number;
  readonly commitKind: string;
  readonly commitUser: string;
  readonly fileName: string;
  readonly sequenceNumber: bigint;
  /** RowKind byte: +I 0, -U 1, +U 2, -D 3. */
  readonly kind: number;
  readonly row: InternalRow;
}

export interface AuditFinding {
  readonly snapshotId: number;
  readonly flag: AuditFlag;
  /** The index in the key's `events` of the row that raised it; null for the key as a whole. */
  readonly event: number | null;
}

export interface KeyAudit {
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** The primary-key values without the partition keys. */
  readonly key: InternalRow;
  readonly events: AuditEvent[];
  readonly findings: AuditFinding[];
}

export interface ChangelogAudit {
  readonly from: number;
  readonly to: number;
  /** Keys with a changelog row or a finding, by (partition, bucket, key). */
  readonly keys: KeyAudit[];
  /** Findings per flag over the reported keys. */
  readonly counts: Record<AuditFlag, number>;
  /** True when more keys than `limit` were touched: those past it are not reported. */
  readonly truncated: boolean;
}

interface Touched {
  readonly partition: Uint8Array;
  readonly bucket: number;
  readonly keys: Map<string, InternalRow>;
  readonly rows: Map<string, { kind: number; row: InternalRow; event: AuditEvent }[]>;
}

export async function auditChangelog(store: ObjectStore, tablePath: string, schema: TableSchema, request: ChangelogAuditRequest): Promise<ChangelogAudit> {
  if (schema.primaryKeys.length === 0) {
    throw errorFrom(tableErrors, 'CHANGELOG_AUDIT_INVALID', 'an append table has no keys to audit: its changes are its rows', { table: tablePath });
  }
  const snapshots = new SnapshotManager(store, tablePath);
  const scan = new FileStoreScan(store, tablePath, partitionFields(schema));
  const keyTypes = fieldsByName(schema, trimmedPrimaryKeys(schema)).map((f) => f.type);
  const list = (k: string) => (schema.options[k] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const ignored = new Set(list('changelog-producer.row-deduplicate-ignore-fields').map((n) => schema.fields.findIndex((f) => f.name === n)));
  const ignoreDelete = (schema.options['ignore-delete'] ?? '').trim().toLowerCase() === 'true';
  const audits = new Map<string, KeyAudit>();
  let truncated = false;
  let previous: Snapshot | null = request.from > 1 ? await snapshots.snapshot(request.from - 1) : null;
  for (let id = request.from; id <= request.to; id++) {
    const snapshot = await snapshots.snapshot(id);
    const read = new TableRead(store, tablePath, schema, { snapshotId: id });
    const order = read.keyValueOrder();
    const touched = new Map<string, Touched>();
    const touch = (partition: Uint8Array, bucket: number, key: InternalRow): Touched | undefined => {
      const auditId = `${bucketKey(partition, bucket)}|${keyText(key)}`;
      if (!audits.has(auditId) && audits.size + countKeys(touched) >= request.limit) {
        truncated = true;
        return undefined;
      }
      const at = bucketKey(partition, bucket);
      let t = touched.get(at);
      if (t === undefined) touched.set(at, (t = { partition, bucket, keys: new Map(), rows: new Map() }));
      t.keys.set(keyText(key), key);
      return t;
    };
    for await (const r of readChangelog(read, scan, snapshot, request.key)) {
      const t = touch(r.partition, r.bucket, r.key);
      if (t === undefined) continue;
      const event: AuditEvent = {
        snapshotId: id,
        commitKind: snapshot.commitKind,
        commitUser: snapshot.commitUser,
        fileName: r.fileName,
        sequenceNumber: r.sequenceNumber,
        kind: r.kind,
        row: r.row,
      };
      const rows = t.rows.get(keyText(r.key)) ?? [];
      rows.push({ kind: r.kind, row: r.row, event });
      t.rows.set(keyText(r.key), rows);
    }
    if (snapshot.commitKind === 'APPEND' || snapshot.commitKind === 'OVERWRITE') {
      for (const entry of await deltaEntries(scan, snapshot)) {
        if (request.key !== undefined && !mayHold(entry, request.key, keyTypes, order.compareKey)) continue;
        for await (const kv of read.keyValues(entry)) {
          if (request.key === undefined || order.compareKey(request.key, kv.key) === 0) touch(entry.partition, entry.bucket, kv.key);
        }
      }
    }
    if (touched.size > 0) {
      const beforeRead = new TableRead(store, tablePath, schema, previous === null ? {} : { snapshotId: Number(previous.id) });
      // Only the touched buckets' manifest entries are kept (the bucket filter of the scan).
      const buckets = { buckets: [...new Set([...touched.values()].map((t) => t.bucket))] };
      const beforeFiles = groupByBucket(previous === null ? [] : await scan.plan(previous, buckets));
      const afterFiles = groupByBucket(await scan.plan(snapshot, buckets));
      for (const [at, t] of touched) {
        const keys = [...t.keys.values()].sort(order.compareKey);
        const before = await lookupBeforeImages(beforeRead, beforeFiles.get(at) ?? [], keys, { ignoreDelete });
        const after = await lookupBeforeImages(read, afterFiles.get(at) ?? [], keys, { ignoreDelete });
        keys.forEach((key, i) => {
          const rows = t.rows.get(keyText(key)) ?? [];
          const flags = auditKey(before.images[i]?.row ?? null, after.images[i]?.row ?? null, rows, ignored);
          if (rows.length === 0 && flags.length === 0) return;
          const auditId = `${at}|${keyText(key)}`;
          let audit = audits.get(auditId);
          if (audit === undefined) audits.set(auditId, (audit = { partition: t.partition, bucket: t.bucket, key, events: [], findings: [] }));
          const offset = audit.events.length;
          audit.events.push(...rows.map((r) => r.event));
          for (const f of flags) audit.findings.push({ snapshotId: id, flag: f.flag, event: f.row === null ? null : offset + f.row });
        });
      }
    }
    previous = snapshot;
  }
  const keys = [...audits.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, audit]) => audit);
  const counts = Object.fromEntries(AUDIT_FLAGS.map((f) => [f, 0])) as Record<AuditFlag, number>;
  for (const audit of keys) for (const f of audit.findings) counts[f.flag]++;
  return { from: request.from, to: request.to, keys, counts, truncated };
}

function countKeys(touched: ReadonlyMap<string, Touched>): number {
  let n = 0;
  for (const t of touched.values()) n += t.keys.size;
  return n;
}

/** A stable text of key values (bigints and bytes included) for maps. */
function keyText(key: InternalRow): string {
  return JSON.stringify(key, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

async function deltaEntries(scan: FileStoreScan, snapshot: Snapshot): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  for (const meta of await scan.readManifestList(snapshot.deltaManifestList)) entries.push(...(await scan.readManifest(meta.fileName)));
  return entries;
}

function mayHold(entry: ManifestEntry, key: InternalRow, keyTypes: Parameters<typeof decodeBinaryRow>[1], compare: (a: InternalRow, b: InternalRow) => number): boolean {
  return compare(key, decodeBinaryRow(entry.file.minKey, keyTypes)) >= 0 && compare(key, decodeBinaryRow(entry.file.maxKey, keyTypes)) <= 0;
}

function groupByBucket(entries: readonly ManifestEntry[]): Map<string, ManifestEntry[]> {
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    const at = bucketKey(e.partition, e.bucket);
    const group = groups.get(at);
    if (group === undefined) groups.set(at, [e]);
    else group.push(e);
  }
  return groups;
}
