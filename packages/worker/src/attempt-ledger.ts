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
 *   are never referenced.
 * - `report` keeps every attempt's progress for the API (`GET /v1/syncs/:id`).
 */
import type { Redis } from 'ioredis';
import { syncRedisKeys, type ShardAttempt } from '@tributary/protocol';

// KEYS: record, accepted. ARGV: shardId, attempt.
// Returns 1 accepted, 0 another attempt was accepted first, -1 the sync no longer accepts.
const ACCEPT_SCRIPT = `
local phase = redis.call('HGET', KEYS[1], 'phase')
if phase ~= 'PLANNED' and phase ~= 'PREPARING' then return -1 end
return redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
`;

export type AcceptOutcome = 'accepted' | 'another-attempt-won' | 'sync-closed';

export class AttemptLedger {
  readonly #redis: Redis;
  readonly #keys: ReturnType<typeof syncRedisKeys>;

  constructor(redis: Redis, keyPrefix: string, syncId: string) {
    this.#redis = redis;
    this.#keys = syncRedisKeys(keyPrefix, syncId);
  }

  async nextAttempt(shardId: string): Promise<number> {
    return this.#redis.hincrby(this.#keys.attemptSeq, shardId, 1);
  }

  /** The sync's phase as recorded; undefined if the sync does not exist. */
  async phase(): Promise<string | undefined> {
    return (await this.#redis.hget(this.#keys.record, 'phase')) ?? undefined;
  }

  async accept(shardId: string, attempt: number): Promise<AcceptOutcome> {
    const result = await this.#redis.eval(ACCEPT_SCRIPT, 2, this.#keys.record, this.#keys.accepted, shardId, String(attempt));
    return result === 1 ? 'accepted' : result === 0 ? 'another-attempt-won' : 'sync-closed';
  }

  async report(attempt: ShardAttempt): Promise<void> {
    await this.#redis.hset(this.#keys.attempts, `${attempt.shardId}/${attempt.attemptId}`, JSON.stringify(attempt));
  }
}
