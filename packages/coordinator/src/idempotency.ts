/**
 * Idempotency-Key of the POST routes that start something (a sync, a compaction): the first
 * request binds the key to the id it starts, for 7 days; a repeat with the same body gets that id
 * back, a repeat with another body is refused (IDEMPOTENCY_KEY_REUSED). One key space for all
 * routes: the hash covers what was asked, so a key sent to two routes is a reuse.
 *
 * Keys starting `schedule:` are the schedules' own (a fire's key, schedule/fire.ts): a client's
 * request may not name one (IDEMPOTENCY_KEY_RESERVED), so no token can claim a fire's key first
 * and suppress the fire.
 *
 * Key: `<prefix>:idempotency:<key>` → `{"requestHash":…,"syncId":…}` (the member keeps its first
 * name: keys written before compactions existed read the same).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from './errors.ts';

const KEY_TTL_S = 7 * 24 * 3600;

/** The prefix of the keys schedule fires claim; no client request may send one. */
export const SCHEDULE_KEY_PREFIX = 'schedule:';

/** A client's Idempotency-Key as given, unless it is in the schedules' key space. @throws IDEMPOTENCY_KEY_RESERVED */
export function clientIdempotencyKey(key: string | undefined): string | undefined {
  if (key !== undefined && key.toLowerCase().startsWith(SCHEDULE_KEY_PREFIX)) {
    throw errorFrom(coordinatorErrors, 'IDEMPOTENCY_KEY_RESERVED', `Idempotency-Key values starting '${SCHEDULE_KEY_PREFIX}' are reserved for schedule fires`, {});
  }
  return key;
}

/** The hash a key is bound with: what the request asked, as JSON. */
export function idempotencyHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/**
 * Binds `key` to `id` unless it is bound already: returns the id bound before (undefined when this
 * call bound `id`). @throws IDEMPOTENCY_KEY_REUSED when the key was bound with another request
 */
export async function claimIdempotencyKey(redis: Redis, prefix: string, key: string, requestHash: string, id: string): Promise<string | undefined> {
  const redisKey = `${prefix}:idempotency:${key}`;
  for (;;) {
    if ((await redis.set(redisKey, JSON.stringify({ requestHash, syncId: id }), 'EX', KEY_TTL_S, 'NX')) === 'OK') return undefined;
    const existing = await redis.get(redisKey);
    if (existing === null) continue; // expired between the two calls: claim again
    const bound = JSON.parse(existing) as { requestHash: string; syncId: string };
    if (bound.requestHash !== requestHash) {
      throw errorFrom(coordinatorErrors, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request', { syncId: bound.syncId });
    }
    return bound.syncId;
  }
}
