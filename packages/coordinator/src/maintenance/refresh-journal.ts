/**
 * The catalog's refresh marks in Redis (AfterCommitJournal): one hash `<prefix>:catalog:refreshed`,
 * field = the table (`<database>/<table>`, each part URI-encoded), value = the latest snapshot id
 * whose after-commit refresh finished. A mark is given before a table's publish (if it has none)
 * and only moves forward, so a coordinator that starts finds a table whose latest snapshot is newer
 * than its mark: a refresh cut short by a crash, run again (catalog-tables.ts resumeAfterCommits).
 */
import type { Redis } from 'ioredis';
import type { AfterCommitJournal } from '@tributary/catalog';
import type { TableRef } from '@tributary/table';

/** HSET only when the field is missing or holds a smaller number. */
const MOVE_FORWARD = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current == false or tonumber(current) < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0`;

const field = (ref: TableRef): string => `${encodeURIComponent(ref.database)}/${encodeURIComponent(ref.table)}`;

function refOf(key: string): TableRef | null {
  const parts = key.split('/');
  if (parts.length !== 2) return null;
  return { database: decodeURIComponent(parts[0]!), table: decodeURIComponent(parts[1]!) };
}

export function redisRefreshJournal(redis: Redis, prefix: string): AfterCommitJournal {
  const key = `${prefix}:catalog:refreshed`;
  return {
    async begin(ref, snapshotId) {
      await redis.hsetnx(key, field(ref), String(snapshotId));
    },
    async refreshed(ref, snapshotId) {
      await redis.eval(MOVE_FORWARD, 1, key, field(ref), String(snapshotId));
    },
    async marks() {
      const all = await redis.hgetall(key);
      return Object.entries(all).flatMap(([name, value]) => {
        const ref = refOf(name);
        const snapshotId = Number(value);
        return ref === null || !Number.isSafeInteger(snapshotId) ? [] : [{ ref, snapshotId }];
      });
    },
    async forget(ref) {
      await redis.hdel(key, field(ref));
    },
  };
}
