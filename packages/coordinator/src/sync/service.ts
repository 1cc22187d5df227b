/**
 * The operations the REST API offers on syncs, and the resume that runs when a coordinator starts.
 *
 * Start = PLAN: validate, resolve the source into exact shard ids, pin the table's latest snapshot
 * and schema, derive the commit identity from the sync id, persist the record (PLANNED), and only
 * then enqueue the flow and record PREPARING. A crash between any two of these steps is repaired
 * by `resume` (the flow's job ids are deterministic, so enqueueing twice adds nothing).
 */
import type { Logger } from 'pino';
import { partitionRowOf, tableErrors, type ColumnSpec, type Tables } from '@tributary/table';
import { randomUUID } from 'node:crypto';
import { errorFrom, isTributaryError } from '@tributary/protocol';
import { openSource, sourceErrors, sourceIdentity, summarizeSource, type Source, type SourceAccess, type PlanHistory, type SyncSourceSpec, type Watermark } from '@tributary/sources';
import { coordinatorErrors } from '../errors.ts';
import { idempotencyHash } from '../idempotency.ts';
import type { StartSyncRequest } from '../requests.ts';
import type { SyncCommitter } from './committer.ts';
import type { SyncFlows } from './flow.ts';
import { tableHistory } from './history.ts';
import { checkLoad } from './load-checks.ts';
import { SOURCE_ID_PROPERTY, SOURCE_KIND_PROPERTY, WATERMARK_PROPERTY, watermarkProperty } from './positions.ts';
import { isTerminal, newSyncRecord, type PlannedShard, type SyncPlan, type SyncRecord } from './state.ts';
import type { ActiveLimits, SyncStore } from './store.ts';

/** Paimon's BatchWriteBuilder.COMMIT_IDENTIFIER (Long.MAX_VALUE): one batch commit per commit user. */
export const BATCH_COMMIT_IDENTIFIER = '9223372036854775807';

export interface SyncServiceDeps {
  readonly store: SyncStore;
  readonly flows: SyncFlows;
  readonly committer: SyncCommitter;
  readonly tables: Tables;
  readonly warehouse: string;
  /** How long an abort waits for running shards to stop before it deletes the staged files anyway. */
  readonly abortGraceMs: number;
  /** The connections and source roots this coordinator was configured with. */
  readonly sources: SourceAccess;
  readonly logger?: Logger;
  readonly limits?: SyncLimits;
  /** Test hooks (such as the generator's `faults`) are accepted only in test mode. */
  readonly testMode?: boolean;
}

export interface SyncLimits extends ActiveLimits {
  /** Shards one sync may plan (default DEFAULT_LIMITS.maxShards). */
  readonly maxShards?: number;
}

export const DEFAULT_LIMITS = { maxShards: 10_000, maxActivePerTable: 8, maxActive: 64 } as const;

/** When a client refused by a shutting-down coordinator should try again (it restarts within seconds). */
const SHUTDOWN_RETRY_AFTER_S = 5;

export class SyncService {
  readonly #deps: SyncServiceDeps;
  #accepting = true;

  constructor(deps: SyncServiceDeps) {
    this.#deps = deps;
  }

  get #maxShards(): number {
    return this.#deps.limits?.maxShards ?? DEFAULT_LIMITS.maxShards;
  }

  /**
   * What can be refused from the request alone, before anything is read or planned: test hooks
   * outside test mode, and a source whose spec names too many shards. Schedules check the same.
   */
  check(request: StartSyncRequest): void {
    const { testHook, shards } = summarizeSource(request.source);
    if (testHook !== undefined && this.#deps.testMode !== true) {
      const field = `source.${testHook}`;
      throw errorFrom(coordinatorErrors, 'TEST_HOOKS_DISABLED', `${field} is a test hook; the coordinator is not in test mode`, { field });
    }
    if (shards !== undefined && shards > this.#maxShards) throw this.#tooManyShards(String(shards));
  }

  #tooManyShards(planned: string): Error {
    return errorFrom(coordinatorErrors, 'SYNC_TOO_MANY_SHARDS', `the source plans ${planned} shards; at most ${this.#maxShards} are allowed per sync`, {
      limit: this.#maxShards,
      planned,
    });
  }

  /** From now on `start` refuses with COORDINATOR_SHUTTING_DOWN (a coordinator shutting down). */
  stopAccepting(): void {
    this.#accepting = false;
  }

  get accepting(): boolean {
    return this.#accepting;
  }

  /** Plans, persists and enqueues a sync; with an idempotency key, a repeated request returns the first sync. */
  async start(request: StartSyncRequest, idempotencyKey?: string): Promise<{ record: SyncRecord; created: boolean }> {
    const { store } = this.#deps;
    if (!this.#accepting) {
      throw errorFrom(coordinatorErrors, 'COORDINATOR_SHUTTING_DOWN', 'this coordinator is shutting down and starts no new sync', { retryAfterSeconds: SHUTDOWN_RETRY_AFTER_S });
    }
    this.check(request);
    let syncId = `sync-${randomUUID()}`;
    if (idempotencyKey !== undefined) {
      const bound = await store.claimIdempotencyKey(idempotencyKey, requestHash(request), syncId);
      if (bound !== undefined) {
        const existing = await store.get(bound);
        if (existing !== undefined) return { record: existing, created: false };
        syncId = bound; // the first request crashed before persisting its plan: plan it now, under its id
      }
    }
    const plan = await this.#plan(syncId, request);
    const record = newSyncRecord(syncId, plan, new Date().toISOString());
    const limits = { ...DEFAULT_LIMITS, ...this.#deps.limits };
    if (!(await store.create(record, Date.now(), { maxActive: limits.maxActive, maxActivePerTable: limits.maxActivePerTable }))) return { record: await store.require(syncId), created: false };
    return { record: await this.#enqueue(record), created: true };
  }

  async #plan(syncId: string, request: StartSyncRequest): Promise<SyncPlan> {
    const info = await this.#deps.tables.describeTable(this.#deps.warehouse, request.table);
    if (info === undefined) {
      throw errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${request.table.database}.${request.table.table} does not exist`, {
        ...request.table,
      });
    }
    if (request.mode === 'upsert' && info.primaryKeys.length === 0) {
      throw errorFrom(coordinatorErrors, 'REQUEST_INVALID', 'mode upsert needs a table with a primary key', { ...request.table });
    }
    // One writer per bucket for primary-key tables; append tables keep the lowest latency unless asked.
    const layout = request.options.layout ?? (info.primaryKeys.length > 0 ? 'bucketed' : 'direct');
    const deletes = checkLoad(info, request, layout);
    if (deletes?.fullExtract !== undefined) {
      partitionRowOf((await this.#deps.tables.openTable(this.#deps.warehouse, request.table, info.schemaId)).schema, deletes.fullExtract.partition);
    }
    // Which table this is: a table dropped and made again under its name has another schema file.
    const schemaSha256 = await this.#deps.tables.schemaSha256(this.#deps.warehouse, request.table, info.schemaId);
    const sourceId = sourceIdentity(request.source);
    let watermark: Watermark | undefined;
    const shards = await this.#planShards(request.source, info.columns, tableHistory(this.#deps.tables, this.#deps.warehouse, request.table, sourceId, info.latestSnapshotId), (w) => (watermark = w));
    // The load's own properties (they win over the request's): which source, and the watermark it commits.
    const sourceProperties: Record<string, string> = {
      [SOURCE_KIND_PROPERTY]: request.source.kind,
      [SOURCE_ID_PROPERTY]: sourceId,
      ...(watermark === undefined ? {} : { [WATERMARK_PROPERTY]: watermarkProperty(watermark.column, watermark.upTo) }),
    };
    return {
      table: request.table,
      mode: request.mode,
      source: { ...request.source },
      shards,
      baseSnapshotId: info.latestSnapshotId,
      schemaId: info.schemaId,
      ...(schemaSha256 === undefined ? {} : { schemaSha256 }),
      commitUser: `tributary-${syncId}`,
      commitIdentifier: BATCH_COMMIT_IDENTIFIER,
      options: {
        maxAttempts: request.options.maxAttempts,
        snapshotProperties: { ...request.options.snapshotProperties, ...sourceProperties },
        badRows: request.options.badRows,
        layout,
        ...(deletes === undefined ? {} : { deletes }),
        ...(request.options.prepareTimeoutMs === undefined ? {} : { prepareTimeoutMs: request.options.prepareTimeoutMs }),
        ...(request.options.compactAfter === true ? { compactAfter: true } : {}),
      },
    };
  }

  /** The exact shard list, listed once by the source (never re-listed later). */
  async #planShards(spec: SyncSourceSpec, columns: readonly ColumnSpec[], history: PlanHistory, fixWatermark: (w: Watermark) => void): Promise<PlannedShard[]> {
    const shards = await this.#source(spec, columns).plan({
      target: columns,
      maxShards: this.#maxShards,
      tooManyShards: (planned) => this.#tooManyShards(planned),
      refuse: (message, context) => errorFrom(coordinatorErrors, 'REQUEST_INVALID', message, context),
      mismatch: (column, message) => errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', message, { column }),
      nothingToLoad: (message) => errorFrom(coordinatorErrors, 'SYNC_NOTHING_TO_LOAD', message),
      history,
      fixWatermark,
    });
    return shards.map(({ id, spec: shard }) => ({ id, spec: { ...shard } }));
  }

  /**
   * What can be refused without reading the source: a file URI outside the roots, inline or unknown
   * credentials (schedules check this when they are stored).
   */
  async checkSource(spec: SyncSourceSpec): Promise<void> {
    await this.#source(spec, []).check();
  }

  /**
   * A table definition made from a source's own schema (`POST /v1/tables` with `fromSource`): its
   * columns and types, its primary key (unless the request names one), and, for a primary-key
   * table, one bucket per started GiB of the source's size, at least 1 and at most MAX_BUCKETS
   * (unless the request gives `bucket`); a table without a primary key is bucket-unaware (-1).
   */
  async tableFromSource(spec: SyncSourceSpec, override: { primaryKeys?: readonly string[]; bucket?: number }): Promise<{ columns: readonly { name: string; type: string }[]; primaryKeys: readonly string[]; bucket: number }> {
    const source = this.#source(spec, []);
    await source.check();
    if (source.schema === undefined) {
      throw errorFrom(coordinatorErrors, 'REQUEST_INVALID', `a table cannot be made from a ${spec.kind} source's schema; give its columns`, { kind: spec.kind });
    }
    const schema = await source.schema();
    const primaryKeys = override.primaryKeys ?? schema.primaryKeys;
    const bucket = override.bucket ?? (primaryKeys.length === 0 ? -1 : bucketsForBytes(schema.bytes));
    return { columns: schema.columns, primaryKeys, bucket };
  }

  /** The source of a request, bound to this coordinator's stores and source access. */
  #source(spec: SyncSourceSpec, columns: readonly ColumnSpec[]): Source {
    const { tables, sources } = this.#deps;
    return openSource(spec, {
      openStore: (root) => tables.warehouseStore(root),
      openCredentialedStore: (root, s3) => tables.sourceStore(root, s3),
      columns: columns.map((c) => c.name),
      access: sources,
    });
  }

  async #enqueue(record: SyncRecord): Promise<SyncRecord> {
    // The workers' copy of the plan exists before any job that points at it.
    const fingerprint = await this.#deps.committer.writeWorkerPlan(record);
    await this.#deps.flows.enqueue(record, fingerprint);
    await this.#deps.flows.scheduleTimeout(record);
    try {
      return await this.#deps.store.apply(record.id, { type: 'start' });
    } catch (error) {
      // Refused only once the sync left PLANNED and PREPARING: aborted while its flow was enqueued (a
      // request, its prepare timeout), after the PLANNED record was read. That abort's own handling
      // ends it; a resume that threw here stopped the coordinator's start.
      if (isTributaryError(error) && error.code === 'SYNC_ILLEGAL_TRANSITION') return this.#deps.store.require(record.id);
      throw error;
    }
  }

  async get(syncId: string): Promise<SyncRecord> {
    return this.#deps.store.require(syncId);
  }

  /**
   * Aborts a sync that has not started its commit. Running shards see the new phase within their
   * phase check, cancel their reads and stop; the flow's parent deletes the staged files once every
   * shard job has finished. Without a pending parent (a sync that never got its flow) the committer
   * cleans up at once. Either way the abort ends within the grace period: a shard job held by a
   * dead or frozen worker does not hold it up (the committer sweeps late files when that job ends).
   */
  async abort(syncId: string, message: string): Promise<SyncRecord> {
    const reason = errorFrom(coordinatorErrors, 'SYNC_ABORT_REQUESTED', message, { syncId });
    const record = await this.#deps.store.apply(syncId, {
      type: 'abort',
      reason: { code: reason.code, message: reason.message, retryable: false, context: { syncId } },
    });
    if (isTerminal(record.state.phase)) return record;
    if (!(await this.#deps.flows.parentPending(syncId))) return this.#deps.committer.drive(syncId);
    await this.#deps.flows.scheduleAbortGrace(syncId, this.#deps.abortGraceMs);
    return record;
  }

  /** The abort's grace period is over: finish the abort whether or not the shard jobs have ended. */
  async finishAbort(syncId: string): Promise<SyncRecord> {
    const record = await this.#deps.store.require(syncId);
    if (record.state.phase !== 'ABORTING') return record;
    this.#deps.logger?.warn({ syncId }, 'shards still running after the abort grace; cleaning up without them');
    return this.#deps.committer.drive(syncId);
  }

  /**
   * The prepare timeout fired: abort a sync that is still preparing. Staged files are removed at
   * once when no shard job is running (for example no worker is up); otherwise the flow's parent
   * removes them when the running shards have stopped, or the abort grace ends it.
   */
  async timeOut(syncId: string): Promise<SyncRecord> {
    const record = await this.#deps.store.require(syncId);
    if (record.state.phase !== 'PLANNED' && record.state.phase !== 'PREPARING' && record.state.phase !== 'MERGING') return record;
    const timeoutMs = record.plan.options.prepareTimeoutMs ?? 0;
    const error = errorFrom(coordinatorErrors, 'SYNC_PREPARE_TIMEOUT', `the shards did not finish within ${timeoutMs} ms`, { syncId, timeoutMs });
    const { record: aborting, from } = await this.#deps.store.applyFrom(syncId, {
      type: 'abort',
      reason: { code: error.code, message: error.message, retryable: false, context: { syncId, timeoutMs } },
    });
    // Aborted by another writer first (a request, the committer): that abort's own handling finishes it.
    if (aborting.state.phase !== 'ABORTING' || from.state.phase === 'ABORTING') return aborting;
    // The jobs of the phase the abort moved the sync out of, not of the phase read above: the commit
    // job may have taken a PREPARING sync to MERGING in between, and its bucket jobs (which the record
    // read above does not name) would have been missed, the staged files deleted under them at once.
    if (!(await this.#deps.flows.anyShardActive(from))) return this.#deps.committer.drive(syncId);
    await this.#deps.flows.scheduleAbortGrace(syncId, this.#deps.abortGraceMs);
    return aborting;
  }

  /** Resumes every non-terminal sync from its recorded state (run when a coordinator starts). */
  async resume(): Promise<number> {
    let resumed = 0;
    for (const id of await this.#deps.store.activeIds()) {
      const record = await this.#deps.store.get(id);
      if (record === undefined || isTerminal(record.state.phase)) continue;
      resumed++;
      this.#deps.logger?.info({ syncId: id, phase: record.state.phase }, 'resuming sync');
      await this.#resumeOne(record);
    }
    return resumed;
  }

  /**
   * Drives one sync again, as a restart would: for a sync whose commit job used every attempt
   * (a redrive job, see SyncFlows.scheduleRedrive). A sync whose flow is still pending is left to it.
   */
  async redrive(syncId: string): Promise<SyncRecord | undefined> {
    const record = await this.#deps.store.get(syncId);
    if (record === undefined || isTerminal(record.state.phase)) return record;
    await this.#resumeOne(record);
    return this.#deps.store.get(syncId);
  }

  async #resumeOne(record: SyncRecord): Promise<void> {
    const { flows, committer } = this.#deps;
    if (record.state.phase === 'PLANNED') {
      await this.#enqueue(record);
    } else if (!(await flows.parentPending(record.id))) {
      await committer.drive(record.id);
    } else if (record.state.phase === 'ABORTING') {
      // A crash may have come between the abort and its grace job (adding it twice adds nothing).
      await flows.scheduleAbortGrace(record.id, this.#deps.abortGraceMs);
    }
    // Otherwise the flow's parent job is still pending: it will drive the sync when it runs.
  }
}


/** Buckets of a primary-key table made from a source: one per started GIB_PER_BUCKET of its data. */
export const GIB_PER_BUCKET = 1;
export const MAX_BUCKETS = 256;

export function bucketsForBytes(bytes: number): number {
  return Math.min(MAX_BUCKETS, Math.max(1, Math.ceil(bytes / (GIB_PER_BUCKET * 2 ** 30))));
}

function requestHash(request: StartSyncRequest): string {
  return idempotencyHash(request);
}
