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
 * And what the workers read and write of a sync: `:plan` (the plan's head and each shard's spec,
 * written here before anything is enqueued) and `:votes` (each accepted attempt's vote, written by
 * the worker's accept script).
 */
import type { Redis } from 'ioredis';
import {
  ABANDON_RUNNING_LUA,
  PLAN_HEAD_FIELD,
  ShardAttempt,
  ShardVote,
  errorFrom,
  planShardField,
  syncRedisKeys,
  type PlannedShardEntry,
  type SyncPlanHead,
} from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { SyncPhaseSchema, SyncRecordSchema } from './record-schema.ts';
import { isTerminal, stagedDiscardable, transition, type SyncEvent, type SyncPhase, type SyncRecord } from './state.ts';

// KEYS: record, index, active, attempts. ARGV: expected version (-1: must not exist), new version,
// json, phase, created score, sync id, terminal (1/0), table (db.table), and for a create only: the
// most non-terminal syncs overall and per table (-1: no limit), the record key prefix of other
// syncs; then discard (1/0). Returns 1 written, 0 version mismatch (or exists), -1 overall limit
// reached, -2 table limit. The limits are checked in the same step as the write, so two
// concurrent starts cannot both pass. A terminal transition marks the attempts still shown
// running as abandoned in the same step.
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
elseif current ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'json', ARGV[3], 'phase', ARGV[4], 'table', ARGV[8], 'discard', ARGV[12])
if ARGV[1] == '-1' then redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6]) end
if ARGV[7] == '1' then
  redis.call('SREM', KEYS[3], ARGV[6])
  abandon_running(KEYS[4], {})
else
  redis.call('SADD', KEYS[3], ARGV[6])
end
return 1
`;

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
}

/** Told of every record this store wrote (a created sync: `previous` undefined), after the write. */
export type SyncObserver = (record: SyncRecord, previous: SyncRecord | undefined) => void;

export class SyncStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #observe: SyncObserver | undefined;

  constructor(redis: Redis, prefix: string, observe?: SyncObserver) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#observe = observe;
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

  async require(syncId: string): Promise<SyncRecord> {
    const record = await this.get(syncId);
    if (record === undefined) throw errorFrom(coordinatorErrors, 'SYNC_NOT_FOUND', `no sync ${syncId}`, { syncId });
    return record;
  }

  /**
   * Applies `event` to the stored record and persists the result; re-reads and re-applies when
   * another writer got there first. Throws the transition's refusal as a typed error.
   */
  async apply(syncId: string, event: SyncEvent, now: () => Date = () => new Date()): Promise<SyncRecord> {
    for (let round = 0; round < 20; round++) {
      const current = await this.require(syncId);
      const result = transition(current, event, now().toISOString());
      if (result.kind === 'unchanged') return current;
      if (result.kind === 'rejected') {
        throw errorFrom(coordinatorErrors, result.code, result.message, { syncId, phase: current.state.phase, event: event.type });
      }
      if (await this.#write(result.record, current.version, 0)) {
        this.#observe?.(result.record, current);
        return result.record;
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
   * Writes what the workers read of the plan: the head (with the plan's fingerprint) and each
   * shard's spec and sequence slot (its index in the plan). Derived from the persisted record alone, so writing it again (a resumed PLANNED
   * sync) writes the same values.
   */
  async writeWorkerPlan(record: SyncRecord, warehouse: string, fingerprint: string): Promise<void> {
    const { plan } = record;
    const head: SyncPlanHead = {
      warehouse,
      table: plan.table,
      schemaId: plan.schemaId,
      baseSnapshotId: plan.baseSnapshotId,
      commitUser: plan.commitUser,
      source: plan.source,
      fingerprint,
    };
    const key = syncRedisKeys(this.#prefix, record.id).plan;
    // In slices: one HSET of 100,000 fields would hold Redis for its whole length.
    for (let i = 0; i < plan.shards.length; i += PLAN_FIELDS_PER_WRITE) {
      const fields = plan.shards.slice(i, i + PLAN_FIELDS_PER_WRITE).flatMap((s, k) => {
        const entry: PlannedShardEntry = { slot: i + k, spec: s.spec };
        return [planShardField(s.id), JSON.stringify(entry)];
      });
      await this.#redis.hset(key, ...fields);
    }
    // The head last: a worker that finds it finds every shard too.
    await this.#redis.hset(key, PLAN_HEAD_FIELD, JSON.stringify(head));
  }

  /** The accepted attempts' votes (shardId → vote); a vote that does not parse is left out. */
  async votes(syncId: string): Promise<Map<string, ShardVote>> {
    const raw = await this.#redis.hgetall(syncRedisKeys(this.#prefix, syncId).votes);
    return new Map(Object.entries(raw).flatMap(([shard, json]) => parseVote(json).map((v): [string, ShardVote] => [shard, v])));
  }

  /** One shard's accepted vote (HGET: constant size, unlike `votes`). */
  async vote(syncId: string, shardId: string): Promise<ShardVote | undefined> {
    const json = await this.#redis.hget(syncRedisKeys(this.#prefix, syncId).votes, shardId);
    return json === null ? undefined : parseVote(json)[0];
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

  /** Newest first, filtered by phase and table. */
  async list(filter: ListFilter): Promise<SyncRecord[]> {
    const found: SyncRecord[] = [];
    const page = 200;
    for (let start = 0; found.length < filter.limit; start += page) {
      const ids = await this.#redis.zrevrange(`${this.#prefix}:syncs`, start, start + page - 1);
      if (ids.length === 0) break;
      for (const id of ids) {
        const record = await this.get(id);
        if (record !== undefined && matches(record, filter)) found.push(record);
        if (found.length === filter.limit) break;
      }
    }
    return found;
  }

  /**
   * Claims an Idempotency-Key for a request: returns the sync id already bound to it (or undefined
   * if this call bound `syncId`). A key reused with another request body is refused.
   */
  async claimIdempotencyKey(key: string, requestHash: string, syncId: string): Promise<string | undefined> {
    const redisKey = `${this.#prefix}:idempotency:${key}`;
    const value = JSON.stringify({ requestHash, syncId });
    const set = await this.#redis.set(redisKey, value, 'EX', 7 * 24 * 3600, 'NX');
    if (set === 'OK') return undefined;
    const existing = await this.#redis.get(redisKey);
    const bound = existing === null ? undefined : (JSON.parse(existing) as { requestHash: string; syncId: string });
    if (bound === undefined) return this.claimIdempotencyKey(key, requestHash, syncId);
    if (bound.requestHash !== requestHash) {
      throw errorFrom(coordinatorErrors, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request', {
        syncId: bound.syncId,
      });
    }
    return bound.syncId;
  }

  async #write(record: SyncRecord, expectedVersion: number, createdAtMs: number): Promise<boolean> {
    return (await this.#eval(record, expectedVersion, createdAtMs, {})) === 1;
  }

  async #eval(record: SyncRecord, expectedVersion: number, createdAtMs: number, limits: ActiveLimits): Promise<number> {
    const keys = syncRedisKeys(this.#prefix, record.id);
    const result = await this.#redis.eval(
      CAS_SCRIPT,
      4,
      keys.record,
      `${this.#prefix}:syncs`,
      `${this.#prefix}:syncs:active`,
      keys.attempts,
      String(expectedVersion),
      String(record.version),
      JSON.stringify(record),
      record.state.phase,
      String(createdAtMs),
      record.id,
      isTerminal(record.state.phase) ? '1' : '0',
      tableKey(record),
      String(limits.maxActive ?? -1),
      String(limits.maxActivePerTable ?? -1),
      syncRedisKeys(this.#prefix, '').record,
      stagedDiscardable(record.state) ? '1' : '0',
    );
    return Number(result);
  }
}

function tableKey(record: SyncRecord): string {
  return `${record.plan.table.database}.${record.plan.table.table}`;
}

const PLAN_FIELDS_PER_WRITE = 1000;

function parseVote(json: string): ShardVote[] {
  try {
    const parsed = ShardVote.safeParse(JSON.parse(json));
    return parsed.success ? [parsed.data] : [];
  } catch {
    return [];
  }
}

function matches(record: SyncRecord, filter: ListFilter): boolean {
  if (filter.phase !== undefined && record.state.phase !== filter.phase) return false;
  if (filter.database !== undefined && record.plan.table.database !== filter.database) return false;
  return filter.table === undefined || record.plan.table.table === filter.table;
}
