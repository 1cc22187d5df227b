/**
 * Table maintenance as the coordinator runs it: snapshot expiration after each committed sync and
 * on request, and orphan cleanup of a table and of its syncs' and compactions' staging, protecting
 * what the syncs and compactions still in flight need (the coordinator is the one that knows them).
 *
 *   live syncs of the table (not COMMITTED or ABORTED), and live compactions (not ended): their
 *   pinned base snapshots, their ids
 *     expiration: nothing from the oldest pinned base on expires (a worker reads its base's manifests,
 *                 the commit looks for its identity in the snapshots after it)
 *     cleanup:    no data file named after a live sync or compaction (`data-<id>-…`) and nothing
 *                 staged under `.tributary/syncs/<syncId>/` or `.tributary/compactions/<id>/` of a
 *                 live one is an orphan; while one of them is
 *                 COMMITTING, no manifest file is (the commit writes manifests before its snapshot)
 *   staging of ended syncs of the table: everything under `.tributary/syncs/<syncId>/` but
 *     `outcome.json`, `positions.json` and the rejects files (the sync's record stays), older than
 *     the guard age; of ended compactions (COMMITTED, FAILED, CONFLICT), everything under
 *     `.tributary/compactions/<compactionId>/` older than the guard age (staging-orphans.ts)
 *   the last scan's result: `.tributary/maintenance/<db>/<table>/orphan-scan.json`, shown by GET /v1/tables/…
 *
 * Order matters: the live syncs are read first, then the table's snapshots, then the files are
 * listed. A sync that ends between the first two steps is committed (its snapshot is seen) or
 * aborted (its files are garbage); one that starts later writes files younger than the guard age.
 */
import type { Logger } from 'pino';
import { changelogFileMarker, compactionStagingPrefix, dataFileMarker, isTributaryError, syncStagingPrefix } from '@tributary/protocol';
import type { ExpireResult, ObjectStore, OrphanFile, RetentionOptions, TableRef, Tables } from '@tributary/table';
import type { SyncStore } from '../sync/store.ts';
import { stagingOrphans, type StagingKind, type StagingOwner } from './staging-orphans.ts';

export interface TableMaintenanceDeps {
  readonly tables: Tables;
  readonly warehouse: string;
  readonly store: SyncStore;
  readonly logger?: Logger;
  /** The table's compactions not yet ended: protected like live syncs (their files, their base snapshots). */
  readonly compactions?: {
    liveOf(ref: TableRef): Promise<{ ids: string[]; bases: number[]; committing: boolean }>;
    /** A compaction's table and whether it ended; undefined when Redis knows no such compaction. */
    ownerOf(id: string): Promise<StagingOwner | undefined>;
  };
}

export interface OrphanCleanupRequest {
  /** Only files last modified at least this long ago (default one day). */
  readonly olderThanMs: number;
  /** List, delete nothing. */
  readonly dryRun: boolean;
}

export interface OrphanCleanup {
  readonly dryRun: boolean;
  readonly olderThanMs: number;
  readonly scannedAt: string;
  /** Orphans found (and deleted unless dryRun), table files first, then staging. */
  readonly files: readonly OrphanFile[];
  readonly fileCount: number;
  readonly bytes: number;
}

/** What the live syncs of a table need kept. */
interface LiveSyncs {
  readonly ids: ReadonlySet<string>;
  readonly protectFrom: number | undefined;
  readonly committing: boolean;
}

const SYNC_STAGING_ROOT = '.tributary/syncs/';
const COMPACTION_STAGING_ROOT = '.tributary/compactions/';
const OUTCOME = 'outcome.json';
/** Rejected rows (the `reject` bad-row policy) are the sync's record for its user, like outcome.json: never orphans. */
const REJECTS_SUFFIX = '.rejects.ndjson';
/** Every shard's source position, referenced (with its SHA-256) by the snapshot's `tributary.positions`: lives as long as the sync's record. */
const POSITIONS = 'positions.json';

export class TableMaintenance {
  readonly #d: TableMaintenanceDeps;

  constructor(deps: TableMaintenanceDeps) {
    this.#d = deps;
  }

  get #store(): ObjectStore {
    return this.#d.tables.warehouseStore(this.#d.warehouse);
  }

  /**
   * Expires what the table's retention options (or the overrides) no longer keep. Expirations of one
   * table run one at a time in this process (after-commit and requested ones alike); two
   * coordinators may still overlap, and the loser answers TABLE_FILES_CHANGED. @throws TABLE_NOT_FOUND
   */
  async expire(ref: TableRef, retention: Partial<RetentionOptions> = {}): Promise<ExpireResult> {
    return oneAtATime(`${this.#d.warehouse}\u0000${ref.database}\u0000${ref.table}`, async () => {
      const live = await this.#live(ref);
      return this.#d.tables.expireSnapshots(this.#d.warehouse, ref, { retention, ...(live.protectFrom === undefined ? {} : { protectFrom: live.protectFrom }) });
    });
  }

  /**
   * Paimon's expiration after a commit: never fails the committed sync; a failure is logged and
   * the next commit (or a request) tries again.
   */
  async expireAfterCommit(ref: TableRef, syncId: string): Promise<void> {
    try {
      const result = await this.expire(ref);
      if (result.expired.length > 0) {
        this.#d.logger?.info({ syncId, table: `${ref.database}.${ref.table}`, expired: result.expired.length, earliestSnapshotId: result.earliestSnapshotId }, 'snapshots expired');
      }
    } catch (error) {
      this.#d.logger?.warn({ syncId, table: `${ref.database}.${ref.table}`, code: isTributaryError(error) ? error.code : undefined, error: error instanceof Error ? error.message : String(error) }, 'snapshot expiration failed; retried after the next commit');
    }
  }

  /** Finds (and unless dryRun deletes) the orphans of a table and of its syncs' and compactions' staging. @throws TABLE_NOT_FOUND */
  async cleanOrphans(ref: TableRef, request: OrphanCleanupRequest): Promise<OrphanCleanup> {
    const now = Date.now();
    const live = await this.#live(ref);
    const tablePath = this.#d.tables.tablePath(ref);
    // A live sync's data and changelog files, a live compaction's data files: not yet in any snapshot.
    const markers = [...live.ids].flatMap((id) => [dataFileMarker(id), changelogFileMarker(id)]);
    const isProtected = (key: string): boolean =>
      markers.some((m) => key.includes(m)) || (live.committing && key.startsWith(`${tablePath}/manifest/`));
    const table = await this.#d.tables.findOrphanFiles(this.#d.warehouse, ref, { olderThanMs: request.olderThanMs, isProtected });
    const staged = await stagingOrphans(this.#store, this.#stagingKinds(), ref, live.ids, now - request.olderThanMs);
    const files = [...table.files, ...staged];
    if (!request.dryRun) await this.#store.deleteMany(files.map((f) => f.key));
    const result: OrphanCleanup = {
      dryRun: request.dryRun,
      olderThanMs: request.olderThanMs,
      scannedAt: new Date(now).toISOString(),
      files,
      fileCount: files.length,
      bytes: files.reduce((sum, f) => sum + f.size, 0),
    };
    await this.#remember(ref, result);
    return result;
  }

  /** The last cleanup's (or dry run's) totals, if any. */
  async lastOrphanScan(ref: TableRef): Promise<{ scannedAt: string; dryRun: boolean; fileCount: number; bytes: number } | null> {
    try {
      const saved = JSON.parse(new TextDecoder().decode(await this.#store.get(scanKey(ref)))) as Record<string, unknown>;
      const { scannedAt, dryRun, fileCount, bytes } = saved;
      if (typeof scannedAt !== 'string' || typeof dryRun !== 'boolean' || typeof fileCount !== 'number' || typeof bytes !== 'number') return null;
      return { scannedAt, dryRun, fileCount, bytes };
    } catch (error) {
      if (isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND') return null;
      if (error instanceof SyntaxError) return null;
      throw error;
    }
  }

  async #remember(ref: TableRef, result: OrphanCleanup): Promise<void> {
    const { scannedAt, dryRun, fileCount, bytes } = result;
    // After a real cleanup nothing it found is left: the orphan bytes are those it could not see yet.
    const saved = { scannedAt, dryRun, fileCount: dryRun ? fileCount : 0, bytes: dryRun ? bytes : 0, deletedFiles: dryRun ? 0 : fileCount, deletedBytes: dryRun ? 0 : bytes };
    await this.#store.put(scanKey(ref), new TextEncoder().encode(`${JSON.stringify(saved)}\n`));
  }

  async #live(ref: TableRef): Promise<LiveSyncs> {
    const ids = await this.#d.store.activeIdsOf(ref);
    const records = await Promise.all(ids.map((id) => this.#d.store.get(id)));
    let protectFrom: number | undefined;
    let committing = false;
    for (const record of records) {
      if (record === undefined) continue;
      const base = record.plan.baseSnapshotId;
      if (base !== null) protectFrom = protectFrom === undefined ? base : Math.min(protectFrom, base);
      if (record.state.phase === 'COMMITTING') committing = true;
    }
    const compactions = (await this.#d.compactions?.liveOf(ref)) ?? { ids: [], bases: [], committing: false };
    for (const base of compactions.bases) protectFrom = protectFrom === undefined ? base : Math.min(protectFrom, base);
    return { ids: new Set([...ids, ...compactions.ids]), protectFrom, committing: committing || compactions.committing };
  }

  /**
   * The kinds of staging the cleanup looks at: the syncs' (a sync's table comes from its record, or
   * from its outcome.json once Redis forgot it), and the compactions' when this coordinator runs them.
   */
  #stagingKinds(): StagingKind[] {
    const syncs: StagingKind = {
      root: SYNC_STAGING_ROOT,
      prefix: syncStagingPrefix,
      owner: async (syncId) => {
        const table = await this.#tableOf(syncId);
        if (table === undefined) return undefined;
        // Read after the table: a sync created since the live syncs were read is not ended.
        const phase = await this.#d.store.phase(syncId);
        return { table, ended: phase === undefined || phase === 'COMMITTED' || phase === 'ABORTED' };
      },
      keeps: (key) => key.endsWith(`/${OUTCOME}`) || key.endsWith(`/${POSITIONS}`) || key.endsWith(REJECTS_SUFFIX),
    };
    const compactions = this.#d.compactions;
    if (compactions === undefined) return [syncs];
    return [syncs, { root: COMPACTION_STAGING_ROOT, prefix: compactionStagingPrefix, owner: (id) => compactions.ownerOf(id), keeps: () => false }];
  }

  async #tableOf(syncId: string): Promise<TableRef | undefined> {
    const record = await this.#d.store.get(syncId);
    if (record !== undefined) return record.plan.table;
    try {
      const outcome = JSON.parse(new TextDecoder().decode(await this.#store.get(`${syncStagingPrefix(syncId)}${OUTCOME}`))) as { plan?: { table?: { database?: unknown; table?: unknown } } };
      const table = outcome.plan?.table;
      return typeof table?.database === 'string' && typeof table.table === 'string' ? { database: table.database, table: table.table } : undefined;
    } catch {
      return undefined;
    }
  }
}

/** The expiration running now per table in this process: the next one waits for it. */
const expiring = new Map<string, Promise<unknown>>();

async function oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T> {
  const before = expiring.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(run);
  expiring.set(key, mine);
  try {
    return await mine;
  } finally {
    if (expiring.get(key) === mine) expiring.delete(key);
  }
}

/** Where the last orphan scan of a table is kept (beside the staging, never inside the Paimon table). */
function scanKey(ref: TableRef): string {
  return `.tributary/maintenance/${ref.database}/${ref.table}/orphan-scan.json`;
}
