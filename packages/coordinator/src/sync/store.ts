/**
 * SyncStore: the durable sync records, in Redis (key layout in @tributary/protocol sync-schemas).
 *
 * Every transition is written with a compare-and-set on the record's `version` (a Lua script, so
 * the check and the write are one step): two coordinators, or a coordinator and an abort request,
 * can never both move a sync from the same state. The `phase` field beside the JSON lets the
 * worker's accept script refuse attempts once a sync left PREPARING, without parsing JSON; the
 * `discard` field tells a fenced worker whether it may delete what it staged (stagedDiscardable).
 * When a sync ends, its attempts still shown `running` become `abandoned` in the same step.
 *
 * Besides the records: `<prefix>:syncs` (sorted set by creation time, for listing),
 * `<prefix>:syncs:active` (set of non-terminal ids, for resuming after a restart) and
 * `<prefix>:idempotency:<key>` (request hash and sync id of a POST /v1/syncs).
 *
 * Listing (GET /v1/syncs) reads no full record: each record's hash keeps the sync's summary
 * (`summary`, sync/summary.ts) beside its JSON, and two more sorted sets by creation time index the
 * syncs of each table (`<prefix>:syncs:table:<database>/<table>`, both names URI-encoded) and of
 * each database (`<prefix>:syncs:database:<database>`). All of them are written by the CAS script,
 * in the same step as the record. Records written before the summary existed are indexed by
 * `migrateIndex` (run when a coordinator starts, and by the first filtered list that finds the
 * index unmarked) and, one by one, by the list that meets them. A record that is gone (deleted, or
 * expired by a TTL set from outside) is skipped by every list, and removed from the index the list
 * was reading. Likewise GET /v1/syncs/:id reads the record's `head` (sync/head.ts): its first page of
 * shards and its counts, not the whole plan; and GET /v1/syncs/:id/status (sync/status.ts) reads the
 * summary and the head's frozen totals (field `frozen`, with the version it was written for) in one
 * script call, and no head.
 *
 * And what the workers read and write of a sync: `:plan` (the plan's head and each shard's spec,
 * written here before anything is enqueued) and `:votes` (each accepted attempt's vote, written by
 * the worker's accept script).
 */
import type { Redis } from 'ioredis';
import { claimIdempotencyKey } from '../idempotency.ts';
import {
  ABANDON_RUNNING_LUA,
  BucketVote,
  PLAN_HEAD_FIELD,
  PLAN_POSITIONS_FIELD,
  ShardAttempt,
  ShardAttemptStatus,
  bucketJobId,
  planBucketField,
  ShardVote,
  errorFrom,
  planShardField,
  syncRedisKeys,
  protocolError,
  SealedBucketEntry,
  SealedPositions,
  type PlannedShardEntry,
  type SyncPlanHead,
} from '@tributary/protocol';
import { z } from 'zod';
import { coordinatorErrors } from '../errors.ts';
import { RevisionCache } from '../revision-cache.ts';
import { SyncPhaseSchema, SyncRecordSchema } from './record-schema.ts';
import { recordJson } from './record-json.ts';
import { isTerminal, stagedDiscardable, transition, type SyncEvent, type SyncPhase, type SyncRecord } from './state.ts';
import { SyncHeadSchema, syncHead, type SyncHead } from './head.ts';
import { SyncSummarySchema, syncSummary, summaryText, type SyncSummary } from './summary.ts';
import { FrozenField, statusText } from './status.ts';

// KEYS: record, index, active, attempts, the table's index, the database's index, the bucket
// attempts, the lists' revision (bumped by every write: see SyncStore.listSummaryTexts). ARGV: expected
// version (-1: must not exist), new version, json, phase, created score, sync id, terminal (1/0),
// table (db.table), and for a create only: the most non-terminal syncs overall and per table (-1:
// no limit), the record key prefix of other syncs; then discard (1/0), the summary, the head, the
// summary's version (the new version when the summary is its schema's own text, else ''), the head's
// frozen totals with the version they were written for (JSON; sync/status.ts), the sync's history
// key (historyKeyOf; '' for none). Returns 1 written, 0 version mismatch (or exists), -1 overall
// limit reached, -2 table limit, -3 a non-terminal sync with the same history key. The limits are
// checked in the same step as the write, so two concurrent starts cannot both pass. A terminal
// transition marks the attempts still shown running as abandoned in the same step. Every write
// (not only the create) puts the sync in its table's and database's index, under its creation
// score: a sync created by a coordinator that predates those indexes joins them at its next write.
const CAS_SCRIPT = `${ABANDON_RUNNING_LUA}
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '-1' then
  if current then return 0 end
  local maxAll = tonumber(ARGV[9])
  local maxTable = tonumber(ARGV[10])
  if maxAll >= 0 or maxTable >= 0 then
    local active = redis.call('SMEMBERS', KEYS[3])
    if maxAll >= 0 and #active >= maxAll then return -1 end
    if maxTable >= 0 then
      local n = 0
      for _, id in ipairs(active) do
        if redis.call('HGET', ARGV[11] .. id, 'table') == ARGV[8] then n = n + 1 end
      end
      if n >= maxTable then return -2 end
    end
  end
  if ARGV[17] ~= '' then
    for _, id in ipairs(redis.call('SMEMBERS', KEYS[3])) do
      if redis.call('HGET', ARGV[11] .. id, 'history') == ARGV[17] then return -3 end
    end
  end
elseif current ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'json', ARGV[3], 'phase', ARGV[4], 'table', ARGV[8], 'discard', ARGV[12], 'summary', ARGV[13], 'head', ARGV[14], 'summaryVersion', ARGV[15], 'frozen', ARGV[16], 'history', ARGV[17])
if ARGV[1] == '-1' then redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6]) end
local score = redis.call('ZSCORE', KEYS[2], ARGV[6])
if score then
  redis.call('ZADD', KEYS[5], score, ARGV[6])
  redis.call('ZADD', KEYS[6], score, ARGV[6])
end
if ARGV[7] == '1' then
  redis.call('SREM', KEYS[3], ARGV[6])
  abandon_running(KEYS[4], {})
  abandon_running(KEYS[7], {})
else
  redis.call('SADD', KEYS[3], ARGV[6])
end
redis.call('INCR', KEYS[8])
return 1
`;

// Indexes one record written without a summary (by an older coordinator). KEYS: record, index,
// the table's index, the database's index, the lists' revision. ARGV: the version the summary was computed from, the
// summary, the sync id, the summary's version (as in CAS_SCRIPT). Does nothing when the record changed since it was read (its writer, or the
// next list, indexes it) or is gone. Returns 1 indexed, 0 not.
const BACKFILL_SCRIPT = `
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'summary') == 0 then redis.call('HSET', KEYS[1], 'summary', ARGV[2], 'summaryVersion', ARGV[4]) end
local score = redis.call('ZSCORE', KEYS[2], ARGV[3])
if not score then return 0 end
redis.call('ZADD', KEYS[3], score, ARGV[3])
redis.call('ZADD', KEYS[4], score, ARGV[3])
redis.call('INCR', KEYS[5])
return 1
`;

// A page of a list. KEYS: the index. ARGV: the position to read after (the score and id of a sync
// listed before, '' and '' for the newest), how many ids to read, the record key prefix, then the
// filter: phase, database, table ('' where not given). The position is found again in this step,
// by its id where the index still holds it, else by its score (ties, ordered by id, count up to
// it): syncs created or removed meanwhile move no page. Returns three values per id read, newest
// first: the id, its score, and the summary's text where it is its schema's own text for the
// record's current version (summaryVersion, written with it by this store; a coordinator that
// predates it leaves it behind) and the record's phase and table (as its write left them) match
// the filter; '!' where the summary is missing, of another version, or the record is gone (the
// caller reads it); '' where the record does not match. Table names hold no '.', so
// 'database.table' splits exactly.
const LIST_PAGE_SCRIPT = `
-- Byte order, as a sorted set orders the ids of one score (Lua's < follows the server's locale).
local function bytes_after(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local start = 0
if ARGV[1] ~= '' then
  local rank = redis.call('ZREVRANK', KEYS[1], ARGV[2])
  if rank then
    start = rank + 1
  else
    start = redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[1], '+inf')
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])) do
      if bytes_after(id, ARGV[2]) then start = start + 1 end
    end
  end
end
local page = redis.call('ZREVRANGE', KEYS[1], start, start + tonumber(ARGV[3]) - 1, 'WITHSCORES')
local out = {}
local dbPrefix = ARGV[6] .. '.'
local tableSuffix = '.' .. ARGV[7]
for i = 1, #page, 2 do
  local id = page[i]
  local value = ''
  local f = redis.call('HMGET', ARGV[4] .. id, 'summary', 'version', 'summaryVersion', 'phase', 'table')
  if not (f[1] and f[2] and f[2] == f[3] and f[4] and f[5]) then
    value = '!'
  elseif (ARGV[5] == '' or f[4] == ARGV[5])
    and (ARGV[6] == '' or string.sub(f[5], 1, #dbPrefix) == dbPrefix)
    and (ARGV[7] == '' or string.sub(f[5], -#tableSuffix) == tableSuffix) then
    value = f[1]
  end
  out[#out + 1] = id
  out[#out + 1] = page[i + 1]
  out[#out + 1] = value
end
return out
`;

// A sync's light status (sync/status.ts). KEYS: the record, its accepted and attempt-seq hashes.
// Returns nil when the record is gone, else the summary, the record's version, the summary's version,
// the frozen totals (nil where absent) and the sizes of the two hashes, all read in one step.
const STATUS_SCRIPT = `
local f = redis.call('HMGET', KEYS[1], 'summary', 'version', 'summaryVersion', 'frozen')
if not f[2] then return nil end
return { f[1], f[2], f[3], f[4], redis.call('HLEN', KEYS[2]), redis.call('HLEN', KEYS[3]) }
`;

/** The marker `migrateIndex` leaves once every record listed in `<prefix>:syncs` has its summary and is in its indexes. */
const INDEX_VERSION = '1';

/** How many syncs may be not yet COMMITTED or ABORTED at once (undefined: no limit). */
export interface ActiveLimits {
  readonly maxActive?: number;
  readonly maxActivePerTable?: number;
}

/** When to come back after a start refused for concurrency: syncs take seconds to minutes. */
const CONCURRENCY_RETRY_AFTER_S = 10;

export interface ListFilter {
  readonly phase?: SyncPhase;
  readonly database?: string;
  readonly table?: string;
  readonly limit: number;
  /** List the syncs after this one (a page's `next`): older, or as old and ordered after it. */
  readonly after?: ListPosition;
}

/** Where a sync stands in the lists: its creation score and its id (ties are ordered by id). */
export interface ListPosition {
  readonly score: number;
  readonly id: string;
}

/** A page of summaries as JSON texts; `next`: where the next page starts, set when the page is full. */
export interface ListPage {
  readonly texts: readonly string[];
  readonly next: ListPosition | undefined;
}

export interface SyncStoreOptions {
  /** How long a list read may answer again while no write moved the revision (0: every list reads); default 1 s. */
  readonly listCacheMs?: number;
}

const DEFAULT_LIST_CACHE_MS = 1_000;
/** Distinct filters kept (a page of 100 summaries is about 30 KB). */
const LIST_CACHE_ENTRIES = 64;

/** What the running totals read of an attempt (SyncStore.attemptFigures). */
export type AttemptFigures = Pick<ShardAttempt, 'shardId' | 'attemptId' | 'status' | 'rows' | 'bytes' | 'rejected'>;

const ATTEMPT_STATUSES: ReadonlySet<unknown> = new Set<string>(ShardAttemptStatus.options);

const isCount = (v: unknown): boolean => v === undefined || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);

function attemptFiguresOf(json: string): AttemptFigures {
  const a = JSON.parse(json) as Record<string, unknown>;
  if (typeof a.shardId === 'string' && typeof a.attemptId === 'string' && ATTEMPT_STATUSES.has(a.status) && isCount(a.rows) && isCount(a.bytes) && isCount(a.rejected)) {
    return a as unknown as AttemptFigures;
  }
  return ShardAttempt.parse(a);
}

/** Told of every record this store wrote (a created sync: `previous` undefined), after the write. */
export type SyncObserver = (record: SyncRecord, previous: SyncRecord | undefined) => void;

export class SyncStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #observe: SyncObserver | undefined;
  readonly #keys: ReturnType<typeof indexKeys>;
  /** Seen the index marked migrated (then filtered lists use the table and database indexes). */
  #indexed = false;
  /** Recent list reads by filter (see listSummaryTexts). */
  readonly #lists: RevisionCache<ListPage>;
  /** The last records `pageRecord` read, by sync id, least recent first (see there). */
  readonly #pageRecords = new Map<string, Readonly<SyncRecord>>();

  constructor(redis: Redis, prefix: string, observe?: SyncObserver, options: SyncStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#observe = observe;
    this.#keys = indexKeys(prefix);
    this.#lists = new RevisionCache(options.listCacheMs ?? DEFAULT_LIST_CACHE_MS, LIST_CACHE_ENTRIES);
  }

  get prefix(): string {
    return this.#prefix;
  }

  /**
   * Persists a new record (version 0); false if a sync with this id exists already. Refused with
   * SYNC_CONCURRENCY_LIMIT when `limits` would be exceeded.
   */
  async create(record: SyncRecord, createdAtMs: number, limits: ActiveLimits = {}): Promise<boolean> {
    const result = await this.#eval(record, -1, createdAtMs, limits);
    if (result === -3) {
      throw errorFrom(
        coordinatorErrors,
        'SYNC_SOURCE_BUSY',
        `another sync of table ${tableKey(record)} loading only what is new from the same source (newFilesOnly or incremental) has not ended: both would load the same files or rows`,
        { table: tableKey(record), retryAfterSeconds: CONCURRENCY_RETRY_AFTER_S },
      );
    }
    if (result === -1 || result === -2) {
      const scope = result === -1 ? 'overall' : `for table ${tableKey(record)}`;
      const max = (result === -1 ? limits.maxActive : limits.maxActivePerTable) ?? 0;
      throw errorFrom(coordinatorErrors, 'SYNC_CONCURRENCY_LIMIT', `${max} syncs are already running ${scope}`, {
        scope: result === -1 ? 'overall' : 'table',
        limit: max,
        retryAfterSeconds: CONCURRENCY_RETRY_AFTER_S,
      });
    }
    if (result === 1) this.#observe?.(record, undefined);
    return result === 1;
  }

  async get(syncId: string): Promise<SyncRecord | undefined> {
    const json = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).record, 'json');
    return json === null ? undefined : SyncRecordSchema.parse(JSON.parse(json));
  }

  /**
   * The record for a page of its shards (GET /v1/syncs/:id/shards, read only: the object is shared
   * by the requests that get it). Every record write bumps the version, so a record read before is
   * still the stored one while its version is: a page then costs one HGET of the version instead of
   * reading and parsing the whole plan (a 10,000-shard record is ~2 MB of JSON, ~50–100 ms of CPU,
   * and `tributary watch` pages every shard each time it looks). The last PAGE_RECORDS records are kept.
   * SYNC_NOT_FOUND if there is no such sync.
   */
  async pageRecord(syncId: string): Promise<Readonly<SyncRecord>> {
    const version = await this.version(syncId);
    const kept = this.#pageRecords.get(syncId);
    this.#pageRecords.delete(syncId);
    const record = kept !== undefined && kept.version === version ? kept : await this.require(syncId);
    this.#pageRecords.set(syncId, record);
    for (const id of this.#pageRecords.keys()) {
      if (this.#pageRecords.size <= PAGE_RECORDS) break;
      this.#pageRecords.delete(id);
    }
    return record;
  }

  /**
   * The stored record's version (one HGET; undefined: no such sync). Every write bumps it in the
   * same compare-and-set as the record, so a record read at this version is still the stored one.
   */
  async version(syncId: string): Promise<number | undefined> {
    const version = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).record, 'version');
    return version === null ? undefined : Number(version);
  }

  async require(syncId: string): Promise<SyncRecord> {
    const record = await this.get(syncId);
    if (record === undefined) throw errorFrom(coordinatorErrors, 'SYNC_NOT_FOUND', `no sync ${syncId}`, { syncId });
    return record;
  }

  /**
   * What GET /v1/syncs/:id shows of a sync holds while this does: the record's version and its
   * activity counter (every worker write of its attempts, attempt counters and accepted attempts
   * bumps it in the same step; protocol sync-schemas). Both are read before the view is; undefined:
   * no such sync.
   */
  async viewRevision(syncId: string): Promise<string | undefined> {
    const keys = syncRedisKeys(this.#prefix, syncId);
    const [version, activity] = await Promise.all([this.#redis.hget(keys.record, 'version'), this.#redis.get(keys.activity)]);
    return version === null ? undefined : `${version}/${activity ?? '0'}`;
  }

  /**
   * The record's head (sync/head.ts): the first page of its shards, its shard counts and totals,
   * read without the whole plan. SYNC_NOT_FOUND if there is no such sync.
   */
  async head(syncId: string): Promise<SyncHead> {
    const json = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).record, 'head');
    return json === null ? syncHead(await this.require(syncId)) : SyncHeadSchema.parse(JSON.parse(json));
  }

  /**
   * Applies `event` to the stored record and persists the result; re-reads and re-applies when
   * another writer got there first. Throws the transition's refusal as a typed error. `known`: the
   * record as the caller last read or wrote it here (never one changed since), tried first.
   */
  async apply(syncId: string, event: SyncEvent, now: () => Date = () => new Date(), known?: SyncRecord): Promise<SyncRecord> {
    return (await this.applyFrom(syncId, event, now, known)).record;
  }

  /**
   * As `apply`, with the record the event was applied to (`from`: the stored record the transition
   * was computed from, the very one its compare-and-set replaced; `record` itself when unchanged).
   * What a caller decides from the state the sync left must use `from`, never a record it read
   * before: another writer may have moved the sync between that read and this write.
   */
  async applyFrom(syncId: string, event: SyncEvent, now: () => Date = () => new Date(), known?: SyncRecord): Promise<{ record: SyncRecord; from: SyncRecord }> {
    for (let round = 0; round < 20; round++) {
      // `known`: a record this store read or wrote, tried first. Every write bumps the version and
      // is a compare-and-set on it, so if the stored version is still `known`'s, the stored record
      // is `known` and the read (the whole plan, at 10,000 shards ~35 ms) can be skipped; if not,
      // the write is refused and the next round reads the record. Only a write is decided on
      // `known`: an event it would leave unchanged or refuse is decided on the stored record.
      const fromKnown = round === 0 && known !== undefined && known.id === syncId;
      const current = fromKnown ? known : await this.require(syncId);
      const result = transition(current, event, now().toISOString());
      if (fromKnown && result.kind !== 'changed') continue;
      if (result.kind === 'unchanged') return { record: current, from: current };
      if (result.kind === 'rejected') {
        throw errorFrom(coordinatorErrors, result.code, result.message, { syncId, phase: current.state.phase, event: event.type });
      }
      if (await this.#write(result.record, current.version, 0)) {
        this.#observe?.(result.record, current);
        return { record: result.record, from: current };
      }
    }
    throw errorFrom(coordinatorErrors, 'SYNC_VERSION_CONFLICT', `sync ${syncId} kept changing under ${event.type}`, { syncId });
  }

  /**
   * Only the record's phase (the hash field the CAS script keeps beside the JSON): a constant-size
   * read, where `get` reads and parses the whole plan, which lists every shard.
   */
  async phase(syncId: string): Promise<SyncPhase | undefined> {
    const phase = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).record, 'phase');
    return phase === null ? undefined : SyncPhaseSchema.parse(phase);
  }

  /** The attempt one shard has accepted so far (HGET: constant size, unlike `acceptedAttempts`). */
  async acceptedAttempt(syncId: string, shardId: string): Promise<string | undefined> {
    return (await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).accepted, shardId)) ?? undefined;
  }

  /** The attempt each shard has accepted so far (shardId → attemptId). */
  async acceptedAttempts(syncId: string): Promise<Record<string, string>> {
    return this.#redis.hgetall(syncRedisKeys(this.#prefix, syncId).accepted);
  }

  /**
   * Writes what the workers read of the plan: the head (the plan's basics and fingerprint,
   * plan-binding.ts) and each shard's entry (its sequence slot, its index in the plan, its spec and
   * the seal `entry` makes). Derived from the persisted record alone, so writing it again (a resumed
   * PLANNED sync) writes the same values.
   */
  async writeWorkerPlan(record: SyncRecord, head: SyncPlanHead, entry: (field: string, slot: number, spec: Readonly<Record<string, unknown>>) => PlannedShardEntry): Promise<void> {
    const { plan } = record;
    const key = syncRedisKeys(this.#prefix, record.id).plan;
    // In slices: one HSET of 100,000 fields would hold Redis for its whole length.
    for (let i = 0; i < plan.shards.length; i += PLAN_FIELDS_PER_WRITE) {
      const fields = plan.shards.slice(i, i + PLAN_FIELDS_PER_WRITE).flatMap((s, k) => {
        const field = planShardField(s.id);
        return [field, JSON.stringify(entry(field, i + k, s.spec))];
      });
      await this.#redis.hset(key, ...fields);
    }
    // The head last: a worker that finds it finds every shard too.
    await this.#redis.hset(key, PLAN_HEAD_FIELD, JSON.stringify(head));
  }

  /**
   * Writes the bucket plan (bucketed layout): one `bucket:<id>` field of `:plan` per bucket job,
   * derived from the accepted shard blobs alone and sealed by the committer, so writing it again
   * writes the same values. Written before the sync enters MERGING and before any bucket job exists.
   */
  async writeBucketPlan(syncId: string, entries: readonly SealedBucketEntry[]): Promise<void> {
    const key = syncRedisKeys(this.#prefix, syncId).plan;
    for (let i = 0; i < entries.length; i += PLAN_FIELDS_PER_WRITE) {
      const fields = entries.slice(i, i + PLAN_FIELDS_PER_WRITE).flatMap((e, k) => [planBucketField(bucketJobId(i + k)), JSON.stringify(e)]);
      await this.#redis.hset(key, ...fields);
    }
  }

  /** Bucket entries as stored (with their seals, which the caller checks); a missing one throws. */
  async bucketEntries(syncId: string, bucketIds: readonly string[]): Promise<{ field: string; entry: SealedBucketEntry }[]> {
    if (bucketIds.length === 0) return [];
    const fields = bucketIds.map(planBucketField);
    const values = await this.#redis.hmget(syncRedisKeys(this.#prefix, syncId).plan, ...fields);
    return values.map((json, i) => {
      const field = fields[i]!;
      if (json === null) throw new Error(`the bucket plan of ${syncId} has no ${bucketIds[i] ?? ''}`);
      const parsed = parseJson(json, SealedBucketEntry);
      if (parsed === undefined) throw protocolError('SYNC_PLAN_ALTERED', `the plan's ${field} of sync ${syncId} does not parse`, { syncId, field });
      return { field, entry: parsed };
    });
  }

  /** Raw fields of the `:plan` hash (null where absent): what the committer checks against the record when jobs are missing. */
  async planFields(syncId: string, fields: readonly string[]): Promise<(string | null)[]> {
    if (fields.length === 0) return [];
    return this.#redis.hmget(syncRedisKeys(this.#prefix, syncId).plan, ...fields);
  }

  /**
   * Bucketed layout: the snapshot properties of the shards' source positions (foldPositions),
   * written with the bucket plan from the same accepted blobs and sealed by the committer, so the
   * commit reads no shard blob.
   */
  async writeFoldedPositions(syncId: string, positions: SealedPositions): Promise<void> {
    await this.#redis.hset(syncRedisKeys(this.#prefix, syncId).plan, PLAN_POSITIONS_FIELD, JSON.stringify(positions));
  }

  /** What writeFoldedPositions wrote (its seal unchecked); undefined if nothing was (or it does not parse). */
  async foldedPositions(syncId: string): Promise<SealedPositions | undefined> {
    const json = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).plan, PLAN_POSITIONS_FIELD);
    return json === null ? undefined : parseJson(json, SealedPositions);
  }

  /** The attempt each bucket job has accepted so far (bucketId → attemptId). */
  async bucketAcceptedAttempts(syncId: string): Promise<Record<string, string>> {
    return this.#redis.hgetall(syncRedisKeys(this.#prefix, syncId).bucketAccepted);
  }

  /** The accepted bucket attempts' votes; a vote that does not parse is left out. */
  async bucketVotes(syncId: string): Promise<Map<string, BucketVote>> {
    const raw = await this.#redis.hgetall(syncRedisKeys(this.#prefix, syncId).bucketVotes);
    const out = new Map<string, BucketVote>();
    for (const [bucket, json] of Object.entries(raw)) {
      try {
        const parsed = BucketVote.safeParse(JSON.parse(json));
        if (parsed.success) out.set(bucket, parsed.data);
      } catch {
        // left out: the commit then refuses the bucket's blob (no vote)
      }
    }
    return out;
  }

  /** Every reported attempt of every bucket job, oldest first per bucket (the buckets of one sync are few). */
  async bucketAttempts(syncId: string): Promise<ShardAttempt[]> {
    const raw = await this.#redis.hvals(syncRedisKeys(this.#prefix, syncId).bucketAttempts);
    return raw
      .map((json) => ShardAttempt.parse(JSON.parse(json)))
      .sort((a, b) => a.shardId.localeCompare(b.shardId, 'en', { numeric: true }) || a.startedAt.localeCompare(b.startedAt));
  }

  /** The accepted attempts' votes (shardId → vote); a vote that does not parse is left out. */
  async votes(syncId: string): Promise<Map<string, ShardVote>> {
    const raw = await this.#redis.hgetall(syncRedisKeys(this.#prefix, syncId).votes);
    return new Map(Object.entries(raw).flatMap(([shard, json]) => parseVote(json).map((v): [string, ShardVote] => [shard, v])));
  }

  /** The accepted votes of these shards alone (one HMGET); a shard without a vote that parses is left out. */
  async votesOf(syncId: string, shardIds: readonly string[]): Promise<Map<string, ShardVote>> {
    if (shardIds.length === 0) return new Map();
    const raw = await this.#redis.hmget(syncRedisKeys(this.#prefix, syncId).votes, ...shardIds);
    return new Map(shardIds.flatMap((shard, i) => {
      const json = raw[i];
      return json === null || json === undefined ? [] : parseVote(json).map((v): [string, ShardVote] => [shard, v]);
    }));
  }

  /** One shard's accepted vote (HGET: constant size, unlike `votes`). */
  async vote(syncId: string, shardId: string): Promise<ShardVote | undefined> {
    const json = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).votes, shardId);
    return json === null ? undefined : parseVote(json)[0];
  }

  /**
   * What the running totals read of every attempt of every shard, in no order (GET /v1/syncs/:id
   * sums them until the shards are frozen, at every request, so this is read for every shard each
   * time). Each attempt's JSON is parsed once and the fields used are checked for their types; an
   * attempt whose fields do not check goes through the full schema, which refuses it as `attempts`
   * does. Neither sorted nor validated beyond those fields: at 10,000 shards about half the CPU of
   * `attempts` (see bench/sync/README.md, "A running sync's view").
   */
  async attemptFigures(syncId: string): Promise<AttemptFigures[]> {
    const raw = await this.#redis.hvals(syncRedisKeys(this.#prefix, syncId).attempts);
    return raw.map(attemptFiguresOf);
  }

  /** Every reported attempt of every shard, oldest first per shard. */
  async attempts(syncId: string): Promise<ShardAttempt[]> {
    const raw = await this.#redis.hvals(syncRedisKeys(this.#prefix, syncId).attempts);
    return raw
      .map((json) => ShardAttempt.parse(JSON.parse(json)))
      .sort((a, b) => a.shardId.localeCompare(b.shardId) || a.startedAt.localeCompare(b.startedAt));
  }

  /**
   * The attempts of some shards only (a page of the shard list): constant work per shard, where
   * `attempts` reads every attempt of the sync. Oldest first per shard.
   */
  async attemptsOf(syncId: string, shardIds: readonly string[]): Promise<ShardAttempt[]> {
    if (shardIds.length === 0) return [];
    const keys = syncRedisKeys(this.#prefix, syncId);
    const counts = await this.#redis.hmget(keys.attemptSeq, ...shardIds);
    const fields = shardIds.flatMap((shardId, i) => Array.from({ length: Number(counts[i] ?? 0) }, (_, n) => `${shardId}/${n + 1}`));
    if (fields.length === 0) return [];
    const raw = await this.#redis.hmget(keys.attempts, ...fields);
    return raw
      .filter((json): json is string => json !== null)
      .map((json) => ShardAttempt.parse(JSON.parse(json)))
      .sort((a, b) => a.shardId.localeCompare(b.shardId) || a.startedAt.localeCompare(b.startedAt));
  }

  /** The accepted attempt of some shards (shardId → attemptId, shards without one left out). */
  async acceptedOf(syncId: string, shardIds: readonly string[]): Promise<Record<string, string>> {
    if (shardIds.length === 0) return {};
    const values = await this.#redis.hmget(syncRedisKeys(this.#prefix, syncId).accepted, ...shardIds);
    const out: Record<string, string> = {};
    shardIds.forEach((id, i) => {
      const value = values[i];
      if (value !== null && value !== undefined) out[id] = value;
    });
    return out;
  }

  /** Shard counts without reading the shards: how many have an accepted attempt, how many were tried. */
  async shardCounts(syncId: string): Promise<{ accepted: number; attempted: number }> {
    const keys = syncRedisKeys(this.#prefix, syncId);
    const [accepted, attempted] = await Promise.all([this.#redis.hlen(keys.accepted), this.#redis.hlen(keys.attemptSeq)]);
    return { accepted, attempted };
  }

  /** How many syncs not yet COMMITTED or ABORTED are in each phase (one read per such sync; they are few). */
  async activePhases(): Promise<Partial<Record<SyncPhase, number>>> {
    const ids = await this.activeIds();
    const counts: Partial<Record<SyncPhase, number>> = {};
    if (ids.length === 0) return counts;
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hget(syncRedisKeys(this.#prefix, id).record, 'phase');
    for (const [error, phase] of (await pipeline.exec()) ?? []) {
      const parsed = SyncPhaseSchema.safeParse(phase);
      if (error === null && parsed.success) counts[parsed.data] = (counts[parsed.data] ?? 0) + 1;
    }
    return counts;
  }

  /** Ids of the syncs that have not reached COMMITTED or ABORTED. */
  async activeIds(): Promise<string[]> {
    return this.#redis.smembers(`${this.#prefix}:syncs:active`);
  }

  /** The ids of the syncs of this table that are not yet COMMITTED or ABORTED. */
  async activeIdsOf(table: { readonly database: string; readonly table: string }): Promise<string[]> {
    const ids = await this.activeIds();
    if (ids.length === 0) return [];
    const tables = await Promise.all(ids.map((id) => this.#redis.hget(syncRedisKeys(this.#prefix, id).record, 'table')));
    return ids.filter((_, i) => tables[i] === `${table.database}.${table.table}`);
  }

  /** Newest first, filtered by phase, database and table: the whole records of what `listSummaries` finds. */
  async list(filter: ListFilter): Promise<SyncRecord[]> {
    const records = await Promise.all((await this.listSummaries(filter)).map((s) => this.get(s.id)));
    return records.filter((r): r is SyncRecord => r !== undefined);
  }

  /**
   * Newest first, filtered by phase, database and table: summaries only, read a page of ids at a
   * time from the narrowest index the filter allows (the table's, the database's, else all syncs).
   */
  async listSummaries(filter: ListFilter): Promise<SyncSummary[]> {
    return (await this.listSummaryTexts(filter)).texts.map((text) => SyncSummarySchema.parse(JSON.parse(text)));
  }

  /**
   * What `listSummaries` finds, as the JSON text of each summary, each exactly what the summary
   * schema's serialisation gives (GET /v1/syncs splices them).
   *
   * A list read is kept with the revision it was read at (`<prefix>:syncs:revision`, bumped in the
   * same step as every write of a record or an index, by any coordinator) and answers the same
   * filter again while the revision has not moved, for at most `listCacheMs`: one GET instead of a
   * page script per request, and callers asking at once share one read. A request that follows a
   * write reads the bumped revision, so it never gets a list from before that write. The age bound
   * covers what no write of this store announces: a record deleted or expired from outside, a
   * coordinator of an earlier version writing beside this one.
   */
  async listSummaryTexts(filter: ListFilter): Promise<ListPage> {
    const key = JSON.stringify([filter.phase ?? null, filter.database ?? null, filter.table ?? null, filter.limit, filter.after?.score ?? null, filter.after?.id ?? null]);
    // Read before the list: a write after this GET bumps the revision past what is kept with it.
    const revision = this.#lists.maxAgeMs > 0 ? ((await this.#redis.get(this.#keys.revision)) ?? '0') : '';
    return this.#lists.get(key, revision, () => this.#readSummaryTexts(filter));
  }

  /** One round trip per page: a script reads the ids and their summaries together; a summary this version of the store wrote is passed on as stored, any other is parsed and re-serialised, a missing one is backfilled. */
  async #readSummaryTexts(filter: ListFilter): Promise<ListPage> {
    const index = await this.#indexFor(filter);
    // Without a phase filter, or a table filter on the index of all syncs, every record listed matches.
    const filtered = filter.phase !== undefined || (filter.database === undefined && filter.table !== undefined);
    const texts: string[] = [];
    let after = filter.after;
    for (;;) {
      const size = filtered ? LIST_PAGE : Math.min(LIST_PAGE, filter.limit - texts.length);
      const read = (await this.#redis.eval(
        LIST_PAGE_SCRIPT,
        1,
        index,
        after === undefined ? '' : String(after.score),
        after?.id ?? '',
        String(size),
        syncRedisKeys(this.#prefix, '').record,
        filter.phase ?? '',
        filter.database ?? '',
        filter.table ?? '',
      )) as string[];
      for (let i = 0; i + 2 < read.length; i += 3) {
        const id = read[i] as string;
        const value = read[i + 2] as string;
        after = { score: Number(read[i + 1]), id };
        const text = value === '!' ? await this.#listedText(index, id, filter) : value === '' ? undefined : value;
        if (typeof text !== 'string') continue;
        texts.push(text);
        if (texts.length === filter.limit) return { texts, next: after };
      }
      // Fewer ids than asked for: the index has no more.
      if (read.length < size * 3) return { texts, next: undefined };
    }
  }

  /**
   * The list's text of a summary the page script could not pass on as stored: parsed and
   * re-serialised by its schema (a record of an earlier version), backfilled if missing. Undefined:
   * the record does not match the filter; null: it is gone (and now out of the index).
   */
  async #listedText(index: string, syncId: string, filter: ListFilter): Promise<string | undefined | null> {
    const summary = (await this.#summaries([syncId]))[0];
    if (summary === undefined) {
      await this.#redis.multi().zrem(index, syncId).incr(this.#keys.revision).exec();
      return null;
    }
    return matches(summary, filter) ? JSON.stringify(SyncSummarySchema.parse(summary)) : undefined;
  }

  /**
   * The light status of one sync (sync/status.ts) as the JSON text its schema serialises it to; undefined:
   * no such sync. One script call reads the summary, the frozen totals and the shard counts; a
   * record written by an earlier version (no summary of its version, no frozen totals) is read
   * further, as the list and GET /v1/syncs/:id read it.
   */
  async statusText(syncId: string): Promise<string | undefined> {
    const keys = syncRedisKeys(this.#prefix, syncId);
    const reply = (await this.#redis.eval(STATUS_SCRIPT, 3, keys.record, keys.accepted, keys.attemptSeq)) as
      | [string | null, string | null, string | null, string | null, number, number]
      | null;
    if (reply === null) return undefined;
    const [stored, version, summaryVersion, frozen, accepted, attempted] = reply;
    const text = stored !== null && version === summaryVersion ? stored : await this.#summaryText(syncId);
    if (text === undefined) return undefined;
    // Frozen totals count only when written with the record's current version (an older writer leaves them behind).
    const kept = frozen === null ? undefined : FrozenField.parse(JSON.parse(frozen));
    const totals = kept !== undefined && String(kept.version) === version ? kept.frozen : (await this.head(syncId)).frozen;
    return statusText(text, totals, { accepted, attempted });
  }

  /** The summary's text as its schema serialises it (a summary not stored so, or missing); undefined: no such sync. */
  async #summaryText(syncId: string): Promise<string | undefined> {
    const summary = await this.summary(syncId);
    return summary === undefined ? undefined : JSON.stringify(SyncSummarySchema.parse(summary));
  }

  /** The summary of one sync (undefined: no such sync). */
  async summary(syncId: string): Promise<SyncSummary | undefined> {
    return (await this.#summaries([syncId]))[0];
  }

  /**
   * Gives every record listed in `<prefix>:syncs` its summary and its place in the table and
   * database indexes (records written before those existed), then marks the index done. Safe to
   * run again and from several coordinators at once. Returns how many records it indexed.
   */
  async migrateIndex(): Promise<number> {
    let indexed = 0;
    for (let start = 0; ; start += LIST_PAGE) {
      const ids = await this.#redis.zrange(this.#keys.all, String(start), String(start + LIST_PAGE - 1));
      if (ids.length === 0) break;
      const pipeline = this.#redis.pipeline();
      for (const id of ids) pipeline.hexists(syncRedisKeys(this.#prefix, id).record, 'summary');
      const present = (await pipeline.exec()) ?? [];
      for (const [i, id] of ids.entries()) {
        if (present[i]?.[1] === 0 && (await this.#backfill(id)) !== undefined) indexed++;
      }
    }
    await this.#redis.set(this.#keys.indexVersion, INDEX_VERSION);
    this.#indexed = true;
    return indexed;
  }

  async #indexFor(filter: ListFilter): Promise<string> {
    if (filter.database === undefined) return this.#keys.all;
    if (!this.#indexed) {
      if ((await this.#redis.get(this.#keys.indexVersion)) === INDEX_VERSION) this.#indexed = true;
      else await this.migrateIndex();
    }
    return filter.table === undefined ? this.#keys.byDatabase(filter.database) : this.#keys.byTable(filter.database, filter.table);
  }

  /** The summaries of `ids`, in order (undefined where the record is gone); records without one are indexed on the way. */
  async #summaries(ids: readonly string[]): Promise<(SyncSummary | undefined)[]> {
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hget(syncRedisKeys(this.#prefix, id).record, 'summary');
    const replies = (await pipeline.exec()) ?? [];
    return Promise.all(
      ids.map(async (id, i) => {
        const [error, json] = replies[i] ?? [null, null];
        if (error !== null && error !== undefined) throw error;
        if (typeof json === 'string') return SyncSummarySchema.parse(JSON.parse(json));
        return this.#backfill(id);
      }),
    );
  }

  /** Summarises and indexes one record written without a summary; undefined when it is gone. */
  async #backfill(syncId: string): Promise<SyncSummary | undefined> {
    const record = await this.get(syncId);
    if (record === undefined) return undefined;
    const summary = syncSummary(record);
    const text = summaryText(summary);
    const { database, table } = record.plan.table;
    await this.#redis.eval(
      BACKFILL_SCRIPT,
      5,
      syncRedisKeys(this.#prefix, syncId).record,
      this.#keys.all,
      this.#keys.byTable(database, table),
      this.#keys.byDatabase(database),
      this.#keys.revision,
      String(record.version),
      text.text,
      syncId,
      text.canonical ? String(record.version) : '',
    );
    return summary;
  }

  /**
   * Claims an Idempotency-Key for a request: returns the sync id already bound to it (or undefined
   * if this call bound `syncId`). A key reused with another request body is refused.
   */
  claimIdempotencyKey(key: string, requestHash: string, syncId: string): Promise<string | undefined> {
    return claimIdempotencyKey(this.#redis, this.#prefix, key, requestHash, syncId);
  }


  async #write(record: SyncRecord, expectedVersion: number, createdAtMs: number): Promise<boolean> {
    return (await this.#eval(record, expectedVersion, createdAtMs, {})) === 1;
  }

  async #eval(record: SyncRecord, expectedVersion: number, createdAtMs: number, limits: ActiveLimits): Promise<number> {
    const keys = syncRedisKeys(this.#prefix, record.id);
    const { database, table } = record.plan.table;
    const summary = summaryText(syncSummary(record));
    const head = syncHead(record);
    const result = await this.#redis.eval(
      CAS_SCRIPT,
      8,
      keys.record,
      this.#keys.all,
      `${this.#prefix}:syncs:active`,
      keys.attempts,
      this.#keys.byTable(database, table),
      this.#keys.byDatabase(database),
      keys.bucketAttempts,
      this.#keys.revision,
      String(expectedVersion),
      String(record.version),
      recordJson(record),
      record.state.phase,
      String(createdAtMs),
      record.id,
      isTerminal(record.state.phase) ? '1' : '0',
      tableKey(record),
      String(limits.maxActive ?? -1),
      String(limits.maxActivePerTable ?? -1),
      syncRedisKeys(this.#prefix, '').record,
      stagedDiscardable(record.state) ? '1' : '0',
      summary.text,
      JSON.stringify(head),
      summary.canonical ? String(record.version) : '',
      JSON.stringify({ version: record.version, frozen: head.frozen }),
      historyKeyOf(record),
    );
    return Number(result);
  }
}

/** The sorted sets that index the syncs by creation time (see the header). */
function indexKeys(prefix: string) {
  return {
    all: `${prefix}:syncs`,
    byTable: (database: string, table: string) => `${prefix}:syncs:table:${encodeURIComponent(database)}/${encodeURIComponent(table)}`,
    byDatabase: (database: string) => `${prefix}:syncs:database:${encodeURIComponent(database)}`,
    indexVersion: `${prefix}:syncs:index-version`,
    /** Bumped by every write of a record or an index: a list read at one revision holds until the next. */
    revision: `${prefix}:syncs:revision`,
  };
}

/** Ids read from an index at a time by a list. */
const LIST_PAGE = 200;

/**
 * What two syncs share when each loads only what the table's snapshots say is new from one source
 * into one table (`newFilesOnly`, `incremental`): the table and the source's identity. Two such
 * syncs at once would both plan from the same history and load the same files or rows twice, so a
 * second one is refused while the first has not ended (SYNC_SOURCE_BUSY). '' for any other sync.
 */
export function historyKeyOf(record: SyncRecord): string {
  const source = record.plan.source as { readonly newFilesOnly?: unknown; readonly incremental?: unknown };
  if (source.newFilesOnly !== true && source.incremental == null) return '';
  return `${tableKey(record)}\u0000${record.plan.options.snapshotProperties['tributary.source-id'] ?? ''}`;
}

function tableKey(record: SyncRecord): string {
  return `${record.plan.table.database}.${record.plan.table.table}`;
}

const PLAN_FIELDS_PER_WRITE = 1000;

/** Records kept for shard pages (pageRecord): a few syncs watched at once. */
const PAGE_RECORDS = 4;

function parseJson<T>(json: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function parseVote(json: string): ShardVote[] {
  try {
    const parsed = ShardVote.safeParse(JSON.parse(json));
    return parsed.success ? [parsed.data] : [];
  } catch {
    return [];
  }
}

function matches(summary: SyncSummary, filter: ListFilter): boolean {
  if (filter.phase !== undefined && summary.phase !== filter.phase) return false;
  if (filter.database !== undefined && summary.table.database !== filter.database) return false;
  return filter.table === undefined || summary.table.table === filter.table;
}
