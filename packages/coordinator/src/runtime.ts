/**
 * Assembles a running coordinator: the sync store, the flows, the committer as the `commit`
 * queue's processor, the HTTP app, its metrics and readiness; then resumes every non-terminal
 * sync. The CLI (`tributary coordinator`) and the tests start it; nothing here reads the
 * environment (the CLI's configuration does).
 *
 * `close` is the graceful shutdown: new syncs are refused (503 COORDINATOR_SHUTTING_DOWN) and
 * /readyz says so, schedules stop firing, the commits in flight finish, then the HTTP app and the
 * connections close. Syncs still preparing are left to the queue: their commit job runs on another
 * coordinator, or on this one when it restarts (and `resume` picks up every non-terminal sync).
 */
import { QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { JOB_BACKOFF_MS, SYNC_QUEUES, SyncCommitJob, SyncShardResult, checkClusterSecret, checkReadiness, parsePayload, queueConnections, redisProbe, type Readiness } from '@tributary/protocol';
import { noSourceAccess, type SourceAccess } from '@tributary/sources';
import { warehouseTables, type S3ConnectionOptions, type Tables } from '@tributary/table';
import { catalogTables, openCatalog, type CatalogOptions } from '@tributary/catalog';
import { buildApp } from './app.ts';
import { CoordinatorMetrics } from './metrics.ts';
import { DEFAULT_RATE_LIMIT, type RateLimitOptions } from './http/rate-limit.ts';
import type { AuthOptions } from './http/auth.ts';
import { SyncCommitter, type FaultPoint } from './sync/committer.ts';
import { TableMaintenance } from './maintenance/table-maintenance.ts';
import { redisRefreshJournal } from './maintenance/refresh-journal.ts';
import { ABORT_GRACE_JOB, COMMIT_ATTEMPTS, COMMIT_MAX_STALLS, PREPARE_TIMEOUT_JOB, REDRIVE_DELAY_MS, REDRIVE_JOB, SyncFlows, commitBackoffMs } from './sync/flow.ts';
import { SyncService, type SyncLimits } from './sync/service.ts';
import { SyncStore } from './sync/store.ts';
import { SessionStore } from './sessions.ts';
import { isTerminal, type SyncRecord } from './sync/state.ts';
import { startSchedules } from './schedule/runtime.ts';
import type { ScheduleLimits, ScheduleService } from './schedule/service.ts';
import { CompactionService } from './compaction/compaction-service.ts';

export interface CoordinatorConfig {
  readonly redis: { readonly host: string; readonly port: number };
  /** Key prefix of the sync records and of the BullMQ queues. */
  readonly prefix: string;
  /**
   * The cluster secret shared with the workers (at least 32 bytes): signs each shard job and checks
   * each blob (vote tokens). The CLI reads it from the configuration; it never goes to Redis.
   */
  readonly clusterSecret: Uint8Array;
  /** `s3://bucket/prefix` or `file:///path`. */
  readonly warehouse: string;
  readonly s3?: S3ConnectionOptions;
  /** Named connections and source roots (loadSourceAccess); default: no database source and no file source allowed. */
  readonly sources?: SourceAccess;
  /** BullMQ lock of the commit job; a crashed coordinator's commit is re-run after about this long. */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /**
   * How long an abort of a preparing sync waits for its running shards to stop before it deletes
   * the staged files and records ABORTED anyway (default 10 s). Live workers stop within about half
   * a second; this bounds an abort whose shard is held by a dead or frozen worker.
   */
  readonly abortGraceMs?: number;
  /** JSON log lines (pino) of the coordinator and of its HTTP requests; default: none. */
  readonly logger?: Logger;
  /** Crash-test hook of the sync and compaction commits, see CommitterDeps.faultPoint. */
  readonly faultPoint?: (point: FaultPoint) => void;
  /** Tokens and public routes; without tokens the HTTP app is open (`tributary coordinator` allows that on loopback only). */
  readonly auth?: AuthOptions;
  /** Requests per window per token (per address when open); counted in Redis. Default DEFAULT_RATE_LIMIT. */
  readonly rateLimit?: Omit<RateLimitOptions, 'redis' | 'keyPrefix'>;
  /** Shards per sync and non-terminal syncs at once; default DEFAULT_LIMITS. */
  readonly limits?: SyncLimits;
  /** Schedules at once and the least time between two fires of one; default DEFAULT_SCHEDULE_LIMITS (1,000; 60 s). */
  readonly scheduleLimits?: ScheduleLimits;
  /** Tries of each commit job before the sync is left to a redrive (default COMMIT_ATTEMPTS). */
  readonly commitAttempts?: number;
  /** How long after its commit job's last failed try a sync not yet ended is driven again (default REDRIVE_DELAY_MS). */
  readonly redriveDelayMs?: number;
  /** Accept test hooks in requests (the generator's `faults`); tests only. */
  readonly testMode?: boolean;
  /** The warehouse's catalog (docs/catalogs.md); default the filesystem catalog, the warehouse's own layout. */
  readonly catalog?: CatalogOptions;
  /** How long an ended compaction's record stays in Redis (default COMPACTION_RECORD_RETENTION_MS, 7 days). */
  readonly compactionRecordRetentionMs?: number;
  /**
   * How long a list, or a sync's view (GET /v1/syncs/:id), read at one revision may answer again while
   * no write moved that revision (0: every request reads); default 1 s. See the README, "API".
   */
  readonly apiCacheMs?: number;
}

export interface Coordinator {
  readonly app: FastifyInstance;
  readonly syncs: SyncService;
  readonly store: SyncStore;
  readonly tables: Tables;
  readonly schedules: ScheduleService;
  readonly metrics: CoordinatorMetrics;
  /** Whether Redis, the warehouse's storage and its catalog (jdbc, hive) answer, and the coordinator still takes syncs. */
  readiness(): Promise<Readiness>;
  /** Graceful: refuses new syncs, lets the commits in flight finish, then disconnects. */
  close(): Promise<void>;
}

const DEFAULT_ABORT_GRACE_MS = 10_000;

export async function startCoordinator(config: CoordinatorConfig): Promise<Coordinator> {
  const clusterSecret = checkClusterSecret(config.clusterSecret);
  const connection: ConnectionOptions = { ...config.redis, maxRetriesPerRequest: null };
  const logger = config.logger ?? pino({ level: 'silent' });
  // Auto-pipelining: the commands issued in one turn of the event loop (a burst of API requests'
  // rate-limit counts and reads) leave in one socket write instead of one write each.
  const redis = new Redis({ ...config.redis, maxRetriesPerRequest: null, enableAutoPipelining: true });
  // ioredis reconnects by itself; log instead of an unhandled 'error' event while Redis is away.
  redis.on('error', (error: Error) => logger.warn(`redis: ${error.message}`));
  // What is open so far, closed again (newest first) if the start fails part-way: a coordinator that
  // could not start leaves no connection behind (its process exits instead of hanging).
  const opened: Array<() => Promise<unknown>> = [async () => redis.disconnect()];
  const undo = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw error;
  };
  const metrics = new CoordinatorMetrics();
  const store = new SyncStore(
    redis,
    config.prefix,
    (record, previous) => {
      metrics.transition(record, previous);
      logTransition(logger, record, previous);
    },
    config.apiCacheMs === undefined ? {} : { listCacheMs: config.apiCacheMs },
  );
  const storage = warehouseTables(config.s3);
  // Tables are created, found, dropped and committed through the catalog (the filesystem catalog: as they lie).
  // A metastore's refresh after each commit is journalled in Redis, so one cut short by a crash runs again on start.
  const journal = config.catalog?.type === 'hive' ? redisRefreshJournal(redis, config.prefix) : undefined;
  const catalog = await openCatalog(config.warehouse, storage.warehouseStore(config.warehouse), {
    log: logger,
    ...(config.catalog ?? { type: 'filesystem' }),
    onLockReleaseFailure: (lockId, error) => logger.warn({ lockId, error: error instanceof Error ? error.message : String(error) }, 'catalog lock not released; it expires on its own'),
    onRefresh: (event) => {
      config.catalog?.onRefresh?.(event);
      if (event.status !== 'refreshed' || journal === undefined) return;
      journal.refreshed({ database: event.database, table: event.table }, event.snapshotId).catch((error: unknown) =>
        logger.warn({ database: event.database, table: event.table, snapshotId: event.snapshotId, error: error instanceof Error ? error.message : String(error) }, 'catalog refresh mark not written; the next start refreshes again'),
      );
    },
  }).catch(undo);
  opened.push(() => catalog.close());
  const cataloged =
    catalog.kind === 'filesystem'
      ? undefined
      : catalogTables(storage, catalog, config.warehouse, {
          onAfterCommitError: (table, snapshotId, error) =>
            logger.error({ table, snapshotId, error: error instanceof Error ? error.message : String(error) }, 'catalog refresh after commit failed; the snapshot stays committed'),
          ...(journal === undefined ? {} : { journal }),
        });
  const tables: Tables = cataloged ?? storage;
  const flows = new SyncFlows({
    connection,
    prefix: config.prefix,
    clusterSecret,
    shardBackoffMs: JOB_BACKOFF_MS,
    commitAttempts: config.commitAttempts ?? COMMIT_ATTEMPTS,
  });
  flows.onError((error) => logger.warn({ error: error.message }, 'sync queues error'));
  opened.push(() => flows.close());
  const compactions = new CompactionService({
    redis,
    connection,
    prefix: config.prefix,
    tables,
    warehouse: config.warehouse,
    clusterSecret,
    logger,
    faultPoint: config.faultPoint,
    ...(config.compactionRecordRetentionMs === undefined ? {} : { recordRetentionMs: config.compactionRecordRetentionMs }),
  });
  opened.push(() => compactions.close());
  const maintenance = new TableMaintenance({ tables, warehouse: config.warehouse, store, logger, compactions });
  const committer = new SyncCommitter({
    store,
    tables,
    warehouse: config.warehouse,
    clusterSecret,
    logger,
    faultPoint: config.faultPoint,
    published: (attempts, conflicts) => metrics.published(attempts, conflicts),
    committed: async (record) => {
      await maintenance.expireAfterCommit(record.plan.table, record.id);
      if (record.plan.options.compactAfter === true) await compactions.startAfterCommit(record.plan.table, record.id);
    },
    bucketFlows: flows,
  });
  const syncs = new SyncService({
    store,
    flows,
    committer,
    tables,
    warehouse: config.warehouse,
    sources: config.sources ?? noSourceAccess(),
    abortGraceMs: config.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
    logger,
    ...(config.limits === undefined ? {} : { limits: config.limits }),
    testMode: config.testMode === true,
  });
  const commitWorker = new Worker(
    SYNC_QUEUES.commit,
    async (job) => {
      const { syncId } = parsePayload(SyncCommitJob, job.data, 'commit job');
      if (job.name === REDRIVE_JOB) return { syncId, phase: (await syncs.redrive(syncId))?.state.phase ?? 'gone' };
      const record =
        job.name === PREPARE_TIMEOUT_JOB ? await syncs.timeOut(syncId) : job.name === ABORT_GRACE_JOB ? await syncs.finishAbort(syncId) : await committer.drive(syncId);
      return { syncId, phase: record.state.phase };
    },
    {
      connection,
      prefix: config.prefix,
      concurrency: 4,
      lockDuration: config.lockDurationMs ?? 30_000,
      stalledInterval: config.stalledIntervalMs ?? 30_000,
      // A drive is safe to repeat, so a commit job whose lock lapsed (a coordinator busy or starved
      // past its lock) is simply run again; failing it after one stall, BullMQ's default, left the
      // sync to a redrive a minute later.
      maxStalledCount: COMMIT_MAX_STALLS,
      settings: { backoffStrategy: (attemptsMade: number) => commitBackoffMs(attemptsMade) },
    },
  );
  commitWorker.on('failed', (job, error) => {
    const retried = job !== undefined && job.attemptsMade < (job.opts.attempts ?? 1);
    if (retried) metrics.commitJobRetried();
    const syncId = job === undefined ? undefined : SyncCommitJob.safeParse(job.data).data?.syncId;
    logger.warn({ jobId: job?.id, syncId, jobAttempt: job?.attemptsMade, retried, error: error.message }, 'commit job failed');
    // Every attempt of a job that drives a sync failed: drive it again later rather than leave it
    // waiting for a restart (a timeout or abort-grace job is a drive too).
    if (job !== undefined && syncId !== undefined) {
      void (async () => {
        // Ended for good: failed (or removed on failure); a job still to be retried waits delayed. A job
        // stalled too often fails whatever its attempts, so the state, not the count, decides.
        const state = await job.getState();
        if (state !== 'failed' && state !== 'unknown') return;
        const record = await store.get(syncId);
        if (record === undefined || isTerminal(record.state.phase)) return;
        const delayMs = config.redriveDelayMs ?? REDRIVE_DELAY_MS;
        await flows.scheduleRedrive(syncId, delayMs, config.commitAttempts ?? COMMIT_ATTEMPTS);
        logger.warn({ syncId, phase: record.state.phase, delayMs }, 'every commit attempt failed; the sync is driven again later');
      })().catch((redriveError: unknown) => logger.error({ syncId, error: redriveError instanceof Error ? redriveError.message : String(redriveError) }, 'sync not scheduled to be driven again; a coordinator restart resumes it'));
    }
  });
  commitWorker.on('error', (error) => logger.warn({ error: error.message }, 'commit worker error'));
  opened.push(() => commitWorker.close(true));
  // A commit job whose lock lapsed (a starved or frozen event loop) is run again, and fails once it
  // stalled too often: both are worth a line when a sync seems to wait.
  commitWorker.on('stalled', (jobId) => logger.warn({ jobId }, 'commit job stalled (its lock lapsed); BullMQ runs it again'));
  commitWorker.on('lockRenewalFailed', (jobIds) => logger.warn({ jobIds }, 'commit job locks not renewed'));
  // Verify each accepted blob as its shard finishes, so the commit does not start with N reads.
  const shardEvents = new QueueEvents(SYNC_QUEUES.writeShard, { connection, prefix: config.prefix });
  shardEvents.on('error', (error) => logger.warn({ error: error.message }, 'shard queue events error'));
  opened.push(() => shardEvents.close());
  shardEvents.on('completed', ({ returnvalue }) => {
    const parsed = SyncShardResult.safeParse(typeof returnvalue === 'string' ? safeJson(returnvalue) : returnvalue);
    if (parsed.success && parsed.data.accepted) {
      committer.prefetch(parsed.data.syncId, parsed.data.shardId, parsed.data.attemptId);
    }
  });
  // Records written before the list's summaries and table indexes existed join them once.
  const migrated = await store.migrateIndex().catch(undo);
  if (migrated > 0) logger.info({ syncs: migrated }, 'indexed syncs written by an earlier version');
  await syncs.resume().catch(undo);
  await compactions.resume().catch(undo);
  // In the background: a catalog that is away must not hold the start (its refresh retries on its own).
  cataloged?.resumeAfterCommits(config.warehouse).then(
    (resumed) => {
      if (resumed > 0) logger.info({ tables: resumed }, 'catalog refreshes resumed after a restart');
    },
    (error: unknown) => logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'catalog refreshes not resumed'),
  );
  const schedules = await startSchedules({ connection, redis, prefix: config.prefix, syncs, syncStore: store, compactions, tables, warehouse: config.warehouse, logger, ...(config.scheduleLimits === undefined ? {} : { limits: config.scheduleLimits }) }).catch(undo);
  opened.push(() => schedules.close());
  const queues = [flows.commitQueue, flows.shardQueue, flows.bucketQueue, schedules.queue, compactions.queue];
  const queueLinks = queueConnections([commitWorker, shardEvents, schedules.worker]);
  metrics.watch({ store, queues, shardQueue: flows.shardQueue });
  const probes = {
    redis: redisProbe(redis, queueLinks),
    storage: async () => void (await tables.warehouseStore(config.warehouse).stat('.tributary/readyz')),
    // A catalog that is away fails its check with its code (CATALOG_UNAVAILABLE) and address, never a credential.
    ...(catalog.kind === 'filesystem' ? {} : { catalog: () => catalog.ping() }),
    accepting: () => (syncs.accepting ? Promise.resolve() : Promise.reject(new Error('shutting down: no new syncs'))),
  };
  const readiness = () => checkReadiness(probes);
  const app = await buildApp(
    {
    syncs,
    store,
    tables,
    warehouse: config.warehouse,
    queues,
    schedules: schedules.service,
    compactions,
    ...(config.auth === undefined ? {} : { auth: config.auth }),
    sessions: new SessionStore(redis, config.prefix),
    rateLimit: { ...DEFAULT_RATE_LIMIT, ...config.rateLimit, redis, keyPrefix: config.prefix },
    ...(config.apiCacheMs === undefined ? {} : { viewCacheMs: config.apiCacheMs }),
    readiness,
    redisReady: () => redis.status === 'ready',
    metrics: metrics.registry,
    },
    { logger },
  ).catch(undo);
  return {
    app,
    syncs,
    store,
    tables,
    schedules: schedules.service,
    metrics,
    readiness,
    async close() {
      // No new sync (POST answers 503, /readyz too), no schedule fires; the HTTP app still answers
      // reads while the commits in flight finish.
      syncs.stopAccepting();
      logger.info('shutting down: no new syncs; finishing the commits in flight');
      // BullMQ's graceful close hangs on a connection between reconnection attempts (queue-connections.ts).
      await queueLinks.settled();
      await schedules.close();
      // No new prefetches, then the running commit and the running prefetches finish, and only then
      // the connections close: a prefetch still queued at 10,000 shards once hit a closed connection.
      await shardEvents.close();
      await commitWorker.close();
      await committer.close();
      await compactions.close();
      await app.close();
      await cataloged?.drain();
      await catalog.close();
      await flows.close();
      await redis.quit();
      logger.info('shut down');
    },
  };
}

/** One line per sync transition this coordinator wrote: the sync id, its phase and the time it spent in the previous one. */
function logTransition(logger: Logger, record: SyncRecord, previous: SyncRecord | undefined): void {
  const phase = record.state.phase;
  if (previous === undefined) {
    logger.info({ syncId: record.id, phase, table: record.plan.table, shards: record.plan.shards.length }, 'sync created');
    return;
  }
  const from = previous.state.phase;
  if (from === phase) return;
  const enteredAt = previous.timings[from];
  const at = record.timings[phase];
  const durationMs = enteredAt === undefined || at === undefined ? undefined : Date.parse(at) - Date.parse(enteredAt);
  const fields = { syncId: record.id, phase, from, durationMs };
  if (phase === 'COMMITTED') logger.info({ ...fields, snapshotId: record.state.snapshotId }, 'sync committed');
  else if (phase === 'ABORTING' || phase === 'ABORTED') logger.warn({ ...fields, reason: 'reason' in record.state ? record.state.reason.code : undefined }, `sync ${phase.toLowerCase()}`);
  else logger.info(fields, 'sync phase');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
