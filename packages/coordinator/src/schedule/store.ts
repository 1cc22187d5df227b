/**
 * ScheduleStore: schedule definitions and what each fire did, in Redis beside the sync records, so
 * a restarted coordinator keeps its schedules (and re-arms their BullMQ job schedulers).
 *
 * Keys (same prefix as the sync records and the queues):
 * - `<prefix>:schedules`: set of schedule ids.
 * - `<prefix>:schedule:<id>`: hash; `json` = the definition, `lastSyncId` = the last sync (or
 *   compaction) a fire started (read by the overlap check; kept when the definition is replaced).
 * - `<prefix>:schedule:<id>:runs`: sorted set of fire records (JSON), scored by fire time, the
 *   newest RUNS_KEPT kept. One record per fire time: the first writer wins.
 * - `<prefix>:schedule:<id>:firing`: a short lock so fires of one schedule are decided one at a
 *   time across coordinators (two fires processed at once could both see no running sync).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { ScheduleRun, ScheduledCompaction, errorFrom } from '@tributary/protocol';
import { StartSyncRequest } from '../requests.ts';
import { coordinatorErrors } from '../errors.ts';

const RUNS_KEPT = 100;

export const ScheduleDefinition = z.object({
  id: z.string(),
  cron: z.string(),
  tz: z.string().optional(),
  /** Exactly one of sync and compaction (a definition written before compactions had a sync). */
  sync: StartSyncRequest.optional(),
  compaction: ScheduledCompaction.optional(),
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type ScheduleDefinition = z.infer<typeof ScheduleDefinition>;

// KEYS: runs, definition. ARGV: fire ms, run json, started sync id ('' if none), runs kept.
// Returns the fire's record (an earlier one if it exists), or nil when the schedule is gone.
const RECORD_RUN_SCRIPT = `
local existing = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[1], 'BYSCORE')
if #existing > 0 then return existing[1] end
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], 'lastSyncId', ARGV[3]) end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
return ARGV[2]
`;

// KEYS: the id set, the definition. ARGV: id, definition json, the most schedules allowed.
// Returns 1 created, 0 replaced, -1 refused (a new schedule past the limit), in one step so that
// schedules created at once cannot pass the limit together.
const PUT_SCRIPT = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
local created = redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'json', ARGV[2])
return created
`;

const UNLOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// KEYS: the lock. ARGV: the holder's token, the expiry (ms). Extends the lock only while it is still ours.
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

export class ScheduleStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #key(id: string, part?: 'runs' | 'firing'): string {
    return part === undefined ? `${this.#prefix}:schedule:${id}` : `${this.#prefix}:schedule:${id}:${part}`;
  }

  /**
   * Writes the definition; true if the schedule did not exist before. A new schedule is refused
   * (SCHEDULE_LIMIT_REACHED) when `maxSchedules` exist already; replacing one always passes.
   */
  async put(definition: ScheduleDefinition, maxSchedules = Number.MAX_SAFE_INTEGER): Promise<boolean> {
    const result = await this.#redis.eval(PUT_SCRIPT, 2, `${this.#prefix}:schedules`, this.#key(definition.id), definition.id, JSON.stringify(definition), String(maxSchedules));
    if (result === -1) {
      throw errorFrom(coordinatorErrors, 'SCHEDULE_LIMIT_REACHED', `there are ${maxSchedules} schedules, as many as this coordinator allows (TRIBUTARY_MAX_SCHEDULES); delete one to create ${definition.id}`, {
        scheduleId: definition.id,
        limit: maxSchedules,
      });
    }
    return result === 1;
  }

  /** How many schedules exist. */
  count(): Promise<number> {
    return this.#redis.scard(`${this.#prefix}:schedules`);
  }

  async get(id: string): Promise<ScheduleDefinition | undefined> {
    const json = await this.#redis.hget(this.#key(id), 'json');
    return json === null ? undefined : ScheduleDefinition.parse(JSON.parse(json));
  }

  async require(id: string): Promise<ScheduleDefinition> {
    const definition = await this.get(id);
    if (definition === undefined) throw errorFrom(coordinatorErrors, 'SCHEDULE_NOT_FOUND', `no schedule ${id}`, { scheduleId: id });
    return definition;
  }

  async list(): Promise<ScheduleDefinition[]> {
    const ids = (await this.#redis.smembers(`${this.#prefix}:schedules`)).sort();
    const found = await Promise.all(ids.map((id) => this.get(id)));
    return found.filter((d) => d !== undefined);
  }

  /**
   * A page of the schedules by id: at most `limit` after the id `after` (from the first without), and
   * the id the next page starts after, or undefined on the last page.
   */
  async page(limit: number, after?: string): Promise<{ definitions: ScheduleDefinition[]; next: string | undefined }> {
    const ids = (await this.#redis.smembers(`${this.#prefix}:schedules`)).sort();
    const rest = after === undefined ? ids : ids.filter((id) => id > after);
    const pageIds = rest.slice(0, limit);
    const found = await Promise.all(pageIds.map((id) => this.get(id)));
    return { definitions: found.filter((d) => d !== undefined), next: rest.length > pageIds.length ? pageIds.at(-1) : undefined };
  }

  /** Removes the definition and its fire records; false if there was none. */
  async delete(id: string): Promise<boolean> {
    const results = await this.#redis.multi().srem(`${this.#prefix}:schedules`, id).del(this.#key(id), this.#key(id, 'runs')).exec();
    return results?.[0]?.[1] === 1;
  }

  async lastSyncId(id: string): Promise<string | undefined> {
    return (await this.#redis.hget(this.#key(id), 'lastSyncId')) ?? undefined;
  }

  async runAt(id: string, fireMs: number): Promise<ScheduleRun | undefined> {
    const [json] = await this.#redis.zrangebyscore(this.#key(id, 'runs'), fireMs, fireMs);
    return json === undefined ? undefined : ScheduleRun.parse(JSON.parse(json));
  }

  /** Newest first. */
  async runs(id: string, limit: number): Promise<ScheduleRun[]> {
    const jsons = await this.#redis.zrevrange(this.#key(id, 'runs'), 0, limit - 1);
    return jsons.map((j) => ScheduleRun.parse(JSON.parse(j)));
  }

  /**
   * Records what a fire did, unless that fire time has a record already (then returns that one:
   * a fire delivered twice reports what the first delivery did). A started sync also becomes the
   * schedule's `lastSyncId`, in the same step. undefined when the schedule was deleted meanwhile.
   */
  async recordRun(id: string, fireMs: number, run: ScheduleRun): Promise<ScheduleRun | undefined> {
    const startedSyncId = run.outcome === 'started' ? (run.syncId ?? run.compactionId ?? '') : '';
    const json = await this.#redis.eval(RECORD_RUN_SCRIPT, 2, this.#key(id, 'runs'), this.#key(id), String(fireMs), JSON.stringify(run), startedSyncId, String(RUNS_KEPT));
    return typeof json === 'string' ? ScheduleRun.parse(JSON.parse(json)) : undefined;
  }

  /**
   * Runs `fn` holding the schedule's fire lock (SET NX with an expiry, so a dead holder frees it).
   * Waits up to `waitMs`; then throws a retryable error so BullMQ retries the fire job.
   *
   * The lock is extended every third of `ttlMs` while `fn` runs: a fire decides from the last sync
   * it reads (the overlap check) and records the sync it starts only once the start returned, and a
   * start can outlast the expiry (planning reads the source: a listing, a database's ranges). Let
   * lapse, the lock let the next fire read the same last sync, find it ended and start a second
   * sync beside the first, both loading from the same watermark (an append table got the rows twice).
   */
  async withFireLock<T>(id: string, fn: () => Promise<T>, { ttlMs = 30_000, waitMs = 10_000 } = {}): Promise<T> {
    const key = this.#key(id, 'firing');
    const token = randomUUID();
    const deadline = Date.now() + waitMs;
    while ((await this.#redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw errorFrom(coordinatorErrors, 'SCHEDULE_FIRE_BUSY', `schedule ${id}: another fire holds the lock`, { scheduleId: id });
      await sleep(50);
    }
    // A failed renewal (Redis away) is tried again at the next tick; a dead holder stops renewing and the lock expires.
    const renewal = setInterval(() => void this.#redis.eval(RENEW_SCRIPT, 1, key, token, String(ttlMs)).catch(() => {}), Math.max(1, Math.floor(ttlMs / 3)));
    try {
      return await fn();
    } finally {
      clearInterval(renewal);
      await this.#redis.eval(UNLOCK_SCRIPT, 1, key, token);
    }
  }
}
