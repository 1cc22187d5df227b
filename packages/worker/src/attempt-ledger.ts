/**
 * The worker's side of a sync record in Redis (key layout: @tributary/protocol sync-schemas).
 *
 * - `nextAttempt` numbers every execution of a shard job (HINCRBY), so two live executions of one
 *   job (a stalled job re-run while the first still runs: BullMQ delivers at least once) never
 *   share an attempt number, a blob key or a data file name. `job.attemptsMade` would not do: both
 *   executions of a stalled job see the same value.
 * - `accept` is the vote: the first finished attempt of a shard is accepted (HSETNX), atomically
 *   with a check that the sync is still PLANNED or PREPARING. A later attempt of the same shard, or
 *   any attempt after an abort or after the commit froze its inputs, is not accepted and its files
 *   are never referenced. The accepted attempt's vote (its blob's checksums and totals) is recorded
 *   in the same script, so an accepted attempt always has one: the coordinator commits its blob only
 *   if the blob is still exactly what was voted.
 * - `report` keeps every attempt's status for the API (`GET /v1/syncs/:id`), `progress` its rows and
 *   bytes so far while it runs; `abandonEarlier`
 *   marks the shard's earlier attempts still shown `running` as `abandoned` when a new one starts
 *   (BullMQ re-runs a job only when its previous execution lost the job: a dead or frozen worker).
 * - `discardable` says whether the sync aborted before its commit started, so that a fenced attempt
 *   may delete what it staged itself (nothing of such a sync can ever be referenced).
 */
import type { Redis } from 'ioredis';
import { ABANDON_RUNNING_LUA, compactionRedisKeys, syncRedisKeys, type BucketVote, type CompactionVote, type ShardAttempt, type ShardVote } from '@tributary/protocol';

// KEYS: attempts, then the activity counter if the stage has one. ARGV: field, attempt JSON. Writes
// the progress only over an attempt still shown running, so a late progress report never undoes its
// own end or an `abandoned` mark.
const PROGRESS_SCRIPT = `
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json or not string.find(json, '"status":"running"', 1, true) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if KEYS[2] then redis.call('INCR', KEYS[2]) end
return 1
`;

// KEYS: record, accepted, votes, then the activity counter if the stage has one. ARGV: shardId,
// attempt, vote JSON, then the phases that accept. Returns 1 accepted, 0 another attempt was
// accepted first, -1 the sync no longer accepts.
const ACCEPT_SCRIPT = `
local phase = redis.call('HGET', KEYS[1], 'phase')
local open = false
for i = 4, #ARGV do if phase == ARGV[i] then open = true end end
if not open then return -1 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
if KEYS[4] then redis.call('INCR', KEYS[4]) end
return 1
`;

// KEYS: attempts, then the activity counter if the stage has one. ARGV: the fields to look at.
const ABANDON_SCRIPT = `${ABANDON_RUNNING_LUA}
local marked = abandon_running(KEYS[1], ARGV)
if marked > 0 and KEYS[2] then redis.call('INCR', KEYS[2]) end
return marked
`;

export type AcceptOutcome = 'accepted' | 'another-attempt-won' | 'sync-closed';

/**
 * The two stages of a sync that vote: shard jobs while the sync is PLANNED or PREPARING, and (in the
 * bucketed layout) bucket jobs while it is MERGING, each with its own four hashes, so a bucket id
 * and a shard id never share an attempt counter, an accept or a vote.
 */
export type LedgerStage = 'shards' | 'buckets' | 'compactions';

/** The phases in which each stage's attempts may run and be accepted. */
export const ACCEPTING_PHASES: Readonly<Record<LedgerStage, readonly string[]>> = {
  shards: ['PLANNED', 'PREPARING'],
  buckets: ['MERGING'],
  // A compaction's jobs (the id is the compaction's, the record its own): while it RUNS.
  compactions: ['RUNNING'],
};

interface StageKeys {
  readonly record: string;
  readonly accepted: string;
  readonly attempts: string;
  readonly attemptSeq: string;
  readonly votes: string;
  /** A sync's activity counter (protocol sync-schemas), bumped with every write here; compactions have none. */
  readonly activity?: string;
}

function stageKeys(keyPrefix: string, syncId: string, stage: LedgerStage): StageKeys {
  if (stage === 'compactions') return compactionRedisKeys(keyPrefix, syncId);
  const k = syncRedisKeys(keyPrefix, syncId);
  if (stage === 'shards') return k;
  return { record: k.record, accepted: k.bucketAccepted, attempts: k.bucketAttempts, attemptSeq: k.bucketAttemptSeq, votes: k.bucketVotes, activity: k.activity };
}

export class AttemptLedger {
  readonly #redis: Redis;
  readonly #keys: StageKeys;
  readonly #phases: readonly string[];

  constructor(redis: Redis, keyPrefix: string, syncId: string, stage: LedgerStage = 'shards') {
    this.#redis = redis;
    this.#keys = stageKeys(keyPrefix, syncId, stage);
    this.#phases = ACCEPTING_PHASES[stage];
  }

  /** Whether this stage's attempts may run in `phase`. */
  accepts(phase: string | undefined): boolean {
    return phase !== undefined && this.#phases.includes(phase);
  }

  /** The vote of the attempt accepted for `shardId` (the job's outcome); undefined while none is. */
  async acceptedVote(shardId: string): Promise<(ShardVote & Partial<BucketVote>) | undefined> {
    const json = await this.#redis.hget(this.#keys.votes, shardId);
    return json === null ? undefined : (JSON.parse(json) as ShardVote & Partial<BucketVote>);
  }

  async nextAttempt(shardId: string): Promise<number> {
    const activity = this.#keys.activity;
    if (activity === undefined) return this.#redis.hincrby(this.#keys.attemptSeq, shardId, 1);
    const replies = await this.#redis.multi().hincrby(this.#keys.attemptSeq, shardId, 1).incr(activity).exec();
    const [error, attempt] = replies?.[0] ?? [new Error('the attempt counter was not incremented (transaction discarded)'), null];
    if (error !== null) throw error;
    return Number(attempt);
  }

  /** The sync's phase as recorded; undefined if the sync does not exist. */
  async phase(): Promise<string | undefined> {
    return (await this.#redis.hget(this.#keys.record, 'phase')) ?? undefined;
  }

  async accept(shardId: string, attempt: number, vote: ShardVote | BucketVote | CompactionVote): Promise<AcceptOutcome> {
    const keys = this.#keys;
    const result = await this.#redis.eval(ACCEPT_SCRIPT, 3 + this.#counted.length, keys.record, keys.accepted, keys.votes, ...this.#counted, shardId, String(attempt), JSON.stringify(vote), ...this.#phases);
    return result === 1 ? 'accepted' : result === 0 ? 'another-attempt-won' : 'sync-closed';
  }

  /** Whether everything the sync staged may be deleted: it aborted before its commit started. */
  async discardable(): Promise<boolean> {
    return (await this.#redis.hget(this.#keys.record, 'discard')) === '1';
  }

  async report(attempt: ShardAttempt): Promise<void> {
    const field = `${attempt.shardId}/${attempt.attemptId}`;
    const activity = this.#keys.activity;
    if (activity === undefined) await this.#redis.hset(this.#keys.attempts, field, JSON.stringify(attempt));
    else await this.#redis.multi().hset(this.#keys.attempts, field, JSON.stringify(attempt)).incr(activity).exec();
  }

  /** A running attempt's progress (rows, bytes, updatedAt so far); ignored once the attempt ended or was abandoned. */
  async progress(attempt: ShardAttempt): Promise<void> {
    await this.#redis.eval(PROGRESS_SCRIPT, 1 + this.#counted.length, this.#keys.attempts, ...this.#counted, `${attempt.shardId}/${attempt.attemptId}`, JSON.stringify(attempt));
  }

  /** Attempts 1 … attempt-1 of the shard that still say `running` become `abandoned`. */
  async abandonEarlier(shardId: string, attempt: number): Promise<void> {
    if (attempt <= 1) return;
    const fields = Array.from({ length: attempt - 1 }, (_, i) => `${shardId}/${i + 1}`);
    await this.#redis.eval(ABANDON_SCRIPT, 1 + this.#counted.length, this.#keys.attempts, ...this.#counted, ...fields);
  }

  /** The activity counter as a script's trailing key, where the stage has one. */
  get #counted(): string[] {
    return this.#keys.activity === undefined ? [] : [this.#keys.activity];
  }
}
