/**
 * Schedules: a cron pattern that starts a sync or a compaction. Each enabled schedule is one BullMQ
 * job scheduler on the `schedules` queue (id = schedule id); each fire is a job whose processor
 * (`fire`) starts the schedule's sync through the same SyncService.start as POST /v1/syncs, or its
 * compaction through the same CompactionService.start as POST …/compactions.
 *
 *   PUT ──► check cron, tz, sync body ──► persist definition ──► upsertJobScheduler (full template)
 *   fire job ──► lock ──► already recorded? ──► previous sync running? ──skip──► record "skipped"
 *                                                        └──start (key = schedule + fire time)──► record "started"
 *
 * The definition in Redis is the source of truth; the job scheduler is re-armed from it whenever a
 * coordinator starts (`rearm`). BullMQ replaces a scheduler's whole template on every upsert
 * (BullMQ's upsertJobScheduler), so `fireTemplate` always builds all of it.
 */
import type { Logger } from 'pino';
import type { Queue } from 'bullmq';
import { errorFrom, isTributaryError, type ScheduleRun, type ScheduledCompaction } from '@tributary/protocol';
import type { CompactionService } from '../compaction/compaction-service.ts';
import type { PutScheduleRequest, StartSyncRequest } from '../requests.ts';
import { coordinatorErrors } from '../errors.ts';
import type { SyncService } from '../sync/service.ts';
import type { SyncStore } from '../sync/store.ts';
import type { Tables } from '@tributary/table';
import { checkCron } from './cron.ts';
import { SCHEDULE_FIRE_JOB, decideCompactionFire, decideFire, fireIdempotencyKey, type ScheduleFireJob } from './fire.ts';
import type { ScheduleDefinition, ScheduleStore } from './store.ts';

export interface ScheduleServiceDeps {
  readonly schedules: ScheduleStore;
  readonly syncs: SyncService;
  readonly syncStore: SyncStore;
  readonly tables: Tables;
  readonly warehouse: string;
  readonly queue: Queue;
  /** Starts the compactions of compaction schedules. */
  readonly compactions: CompactionService;
  readonly logger?: Logger;
  /** How many schedules may exist and how close two fires of one may be; default DEFAULT_SCHEDULE_LIMITS. */
  readonly limits?: ScheduleLimits;
}

export interface ScheduleLimits {
  /** Schedules that may exist at once (a new one past it: SCHEDULE_LIMIT_REACHED; replacing one passes). */
  readonly maxSchedules?: number;
  /** The least time between two fires of a schedule's cron pattern (closer: SCHEDULE_CRON_TOO_FREQUENT); 0: any. */
  readonly minIntervalMs?: number;
}

export const DEFAULT_SCHEDULE_LIMITS = { maxSchedules: 1_000, minIntervalMs: 60_000 } as const;

/** The whole job template of a schedule's fires: pointer data, retries for a transient start failure. */
export function fireTemplate(scheduleId: string) {
  const data: ScheduleFireJob = { scheduleId };
  return {
    name: SCHEDULE_FIRE_JOB,
    data,
    opts: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    },
  };
}

/** Who changes a schedule: a token's name and whether its role may start compactions (admin). */
export interface ScheduleCaller {
  readonly name: string;
  readonly role: string;
  readonly mayCompact: boolean;
}

const ADMIN: ScheduleCaller = { name: 'internal', role: 'admin', mayCompact: true };

/** A compaction needs role admin (as POST …/compactions does): so does creating, replacing or deleting a schedule that starts one. */
function compactionsAllowed(caller: ScheduleCaller, what: string): void {
  if (caller.mayCompact) return;
  throw errorFrom(coordinatorErrors, 'AUTH_ROLE_INSUFFICIENT', `to ${what} needs role admin; the token ${caller.name} has role ${caller.role}`, {
    need: 'admin',
    role: caller.role,
    token: caller.name,
  });
}

export class ScheduleService {
  readonly #deps: ScheduleServiceDeps;

  constructor(deps: ScheduleServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Creates or replaces a schedule and (re-)arms or disarms its job scheduler. A compaction
   * schedule needs role admin to create, and so to replace (whatever replaces it): `caller` says
   * whether the caller has it (AUTH_ROLE_INSUFFICIENT otherwise).
   */
  async put(id: string, body: PutScheduleRequest, caller: ScheduleCaller = ADMIN): Promise<{ definition: ScheduleDefinition; created: boolean }> {
    if (body.compaction !== undefined) compactionsAllowed(caller, 'create or replace a schedule with a compaction');
    const limits = { ...DEFAULT_SCHEDULE_LIMITS, ...this.#deps.limits };
    const cron = checkCron(body.cron, body.tz, limits.minIntervalMs);
    const sync = body.sync === undefined ? undefined : withScheduleDefaults(body.sync);
    if (sync !== undefined) await this.#checkSync(sync);
    if (body.compaction !== undefined) await this.#checkTable(body.compaction.table);
    const previous = await this.#deps.schedules.get(id);
    if (previous?.compaction !== undefined) compactionsAllowed(caller, `replace the compaction schedule ${id}`);
    const now = new Date().toISOString();
    const definition: ScheduleDefinition = {
      id,
      cron,
      ...(body.tz === undefined ? {} : { tz: body.tz }),
      ...(sync === undefined ? {} : { sync }),
      ...(body.compaction === undefined ? {} : { compaction: body.compaction }),
      enabled: body.enabled,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    const created = await this.#deps.schedules.put(definition, limits.maxSchedules);
    await this.#arm(definition);
    return { definition, created };
  }

  /** What POST /v1/syncs checks before planning: no test hooks, shard limit; the table exists; upsert needs a primary key; the source is allowed. */
  async #checkSync(sync: StartSyncRequest): Promise<void> {
    this.#deps.syncs.check(sync);
    await this.#deps.syncs.checkSource(sync.source);
    const info = await this.#checkTable(sync.table);
    if (sync.mode === 'upsert' && info.primaryKeys.length === 0) {
      throw errorFrom(coordinatorErrors, 'REQUEST_INVALID', 'mode upsert needs a table with a primary key', { ...sync.table });
    }
  }

  /** @throws SCHEDULE_TABLE_NOT_FOUND */
  async #checkTable(ref: StartSyncRequest['table']) {
    const info = await this.#deps.tables.describeTable(this.#deps.warehouse, ref);
    if (info === undefined) throw errorFrom(coordinatorErrors, 'SCHEDULE_TABLE_NOT_FOUND', `table ${ref.database}.${ref.table} does not exist`, { ...ref });
    return info;
  }

  async #arm(definition: ScheduleDefinition): Promise<void> {
    const { queue } = this.#deps;
    if (!definition.enabled) {
      await queue.removeJobScheduler(definition.id);
      return;
    }
    await queue.upsertJobScheduler(definition.id, { pattern: definition.cron, tz: definition.tz ?? 'UTC' }, fireTemplate(definition.id));
  }

  /** Re-arms every persisted schedule (a coordinator starting); returns how many are enabled. */
  async rearm(): Promise<number> {
    const all = await this.#deps.schedules.list();
    for (const definition of all) await this.#arm(definition);
    return all.filter((d) => d.enabled).length;
  }

  get(id: string): Promise<ScheduleDefinition> {
    return this.#deps.schedules.require(id);
  }

  list(): Promise<ScheduleDefinition[]> {
    return this.#deps.schedules.list();
  }

  /** A page of the schedules by id (GET /v1/schedules): at most `limit` after the id `after`, and the id the next page starts after. */
  page(limit: number, after?: string): Promise<{ definitions: ScheduleDefinition[]; next: string | undefined }> {
    return this.#deps.schedules.page(limit, after);
  }

  /**
   * Under the fire lock, so a fire being decided right now finishes first: once DELETE has
   * answered, no sync of this schedule starts. Scheduler first: once it is gone no new fire is
   * created; a fire already queued finds no definition.
   */
  async delete(id: string, caller: ScheduleCaller = ADMIN): Promise<void> {
    const { schedules, queue } = this.#deps;
    if ((await schedules.require(id)).compaction !== undefined) compactionsAllowed(caller, `delete the compaction schedule ${id}`);
    await schedules.withFireLock(id, async () => {
      await queue.removeJobScheduler(id);
      await schedules.delete(id);
    });
  }

  /** The next fire time, or null for a disabled schedule. */
  async nextRunAt(id: string): Promise<string | null> {
    const scheduler = await this.#deps.queue.getJobScheduler(id);
    return scheduler?.next === undefined ? null : new Date(scheduler.next).toISOString();
  }

  /** The newest fires, each with the current phase and snapshot of the sync (or compaction) it started. */
  async runs(id: string, limit: number) {
    const runs = await this.#deps.schedules.runs(id, limit);
    return Promise.all(
      runs.map(async (run) => {
        if (run.compactionId !== undefined) {
          const view = await this.#compaction(run.compactionId);
          return { ...run, phase: view?.phase ?? null, snapshotId: view?.phase === 'COMMITTED' ? view.snapshotId : null };
        }
        const record = run.syncId === undefined ? undefined : await this.#deps.syncStore.get(run.syncId);
        return {
          ...run,
          phase: record?.state.phase ?? null,
          snapshotId: record?.state.phase === 'COMMITTED' ? record.state.snapshotId : null,
        };
      }),
    );
  }

  /**
   * Processes one fire (at most once per schedule and fire time, however often it is delivered).
   * undefined when the schedule was deleted or disabled before the fire was processed.
   */
  async fire(id: string, fireMs: number): Promise<ScheduleRun | undefined> {
    const { schedules } = this.#deps;
    return schedules.withFireLock(id, async () => {
      const definition = await schedules.get(id);
      if (definition === undefined || !definition.enabled) return undefined;
      const recorded = await schedules.runAt(id, fireMs);
      if (recorded !== undefined) return recorded;
      const run = await this.#decideAndStart(definition, fireMs);
      this.#deps.logger?.info({ scheduleId: id, firedAt: run.firedAt, outcome: run.outcome, syncId: run.syncId, code: run.code }, 'schedule fired');
      return schedules.recordRun(id, fireMs, run);
    });
  }

  /** A compaction's view, undefined when its record is gone. */
  async #compaction(compactionId: string) {
    try {
      return await this.#deps.compactions.get(compactionId);
    } catch (error) {
      if (isTributaryError(error) && error.code === 'COMPACTION_NOT_FOUND') return undefined;
      throw error;
    }
  }

  async #decideAndStart(definition: ScheduleDefinition, fireMs: number): Promise<ScheduleRun> {
    if (definition.compaction !== undefined) return this.#decideAndCompact(definition.id, definition.compaction, fireMs);
    const firedAt = new Date(fireMs).toISOString();
    if (definition.sync === undefined) return { firedAt, outcome: 'failed', reason: 'the schedule has neither a sync nor a compaction' };
    const lastSyncId = await this.#deps.schedules.lastSyncId(definition.id);
    const previous = lastSyncId === undefined ? undefined : { syncId: lastSyncId, phase: (await this.#deps.syncStore.get(lastSyncId))?.state.phase };
    const decision = decideFire(previous);
    if (decision.action === 'skip') return { firedAt, outcome: 'skipped', syncId: decision.syncId, reason: decision.reason };
    try {
      const { record } = await this.#deps.syncs.start(definition.sync, fireIdempotencyKey(definition.id, fireMs));
      return { firedAt, outcome: 'started', syncId: record.id };
    } catch (error) {
      // Nothing new to load (newFilesOnly over files already loaded): the fire is skipped, saying why.
      // Another sync loading what is new from the same source still runs (one started by hand): skipped too.
      if (isTributaryError(error) && (error.code === 'SYNC_NOTHING_TO_LOAD' || error.code === 'SYNC_SOURCE_BUSY')) return { firedAt, outcome: 'skipped', code: error.code, reason: error.message };
      // A start that cannot succeed as is (table dropped, no source file) is recorded; others are retried.
      if (isTributaryError(error) && !error.retryable) return { firedAt, outcome: 'failed', code: error.code, reason: error.message };
      throw error;
    }
  }

  async #decideAndCompact(id: string, compaction: ScheduledCompaction, fireMs: number): Promise<ScheduleRun> {
    const firedAt = new Date(fireMs).toISOString();
    const lastId = await this.#deps.schedules.lastSyncId(id);
    const decision = decideCompactionFire(lastId === undefined ? undefined : { compactionId: lastId, phase: (await this.#compaction(lastId))?.phase });
    if (decision.action === 'skip') return { firedAt, outcome: 'skipped', compactionId: decision.compactionId, reason: decision.reason };
    const request = { full: compaction.full, ...(compaction.partitions === undefined ? {} : { partitions: compaction.partitions }) };
    try {
      const { view } = await this.#deps.compactions.start(compaction.table, request, fireIdempotencyKey(id, fireMs));
      return { firedAt, outcome: 'started', compactionId: view.id };
    } catch (error) {
      // The table dropped, an option it cannot be compacted with: recorded; others are retried.
      if (isTributaryError(error) && !error.retryable) return { firedAt, outcome: 'failed', code: error.code, reason: error.message };
      throw error;
    }
  }
}

/**
 * What a schedule changes in the sync it fires: a files source that does not say `newFilesOnly`
 * loads only new files (a schedule over a folder would otherwise load the same files at every
 * fire). The stored definition, which PUT and GET return, carries `newFilesOnly: true`.
 */
function withScheduleDefaults(sync: StartSyncRequest): StartSyncRequest {
  if (sync.source.kind !== 'files' || sync.source.newFilesOnly !== undefined) return sync;
  return { ...sync, source: { ...sync.source, newFilesOnly: true } };
}
