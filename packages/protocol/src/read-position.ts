/**
 * Where a shard's read stood in its source: what a worker puts in its blob's header (envelope
 * version 3 on) and the coordinator folds into the snapshot's properties, so that a user knows
 * exactly what a snapshot holds. Generic over the source kinds (this package knows none of them):
 *
 * - `server`: a database server's log position at the moment of the read, one server per shard.
 *   `id` names the server without a secret (`host:port`); `log` is the position as the server
 *   states it (MySQL: binlog `file`, `offset` and the `gtid` set; PostgreSQL: the `lsn`); `order`
 *   is a text that sorts this server's positions in log order (so the coordinator can give the
 *   lowest and the highest position of each server without knowing the kind).
 * - `files`: every file the shard read, with its size and the store's ETag at the read.
 *
 * Canonical JSON (keys sorted at every level) is its wire form, so a blob's bytes are a function
 * of its content.
 */
import { z } from 'zod';
import { canonicalJson } from './canonical-json.ts';

/** At most this many files in one shard's position (a bigger shard is refused when planned). */
export const MAX_POSITION_FILES = 10_000;

export const ServerLogPosition = z.strictObject({
  id: z.string().min(1).max(512),
  log: z.record(z.string().min(1).max(64), z.union([z.string().max(65_536), z.number().int().nonnegative()])),
  order: z.string().max(512),
});
export type ServerLogPosition = z.infer<typeof ServerLogPosition>;

export const FileReadPosition = z.strictObject({
  uri: z.string().min(1).max(4096),
  size: z.number().int().nonnegative(),
  etag: z.string().max(1024),
});
export type FileReadPosition = z.infer<typeof FileReadPosition>;

export const ShardReadPosition = z
  .strictObject({
    server: ServerLogPosition.optional(),
    files: z.array(FileReadPosition).max(MAX_POSITION_FILES).optional(),
  })
  .refine((p) => p.server !== undefined || p.files !== undefined, 'a read position names a server or files');
export type ShardReadPosition = z.infer<typeof ShardReadPosition>;

/** The position as the blob header carries it. */
export function encodeReadPosition(position: ShardReadPosition): string {
  return canonicalJson(ShardReadPosition.parse(position));
}

/** The header's text back as a position; undefined with the reason when it is not one. */
export function decodeReadPosition(text: string): { position: ShardReadPosition } | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: 'not JSON' };
  }
  const parsed = ShardReadPosition.safeParse(value);
  if (!parsed.success) return { reason: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  if (canonicalJson(parsed.data) !== text) return { reason: 'not in canonical form' };
  return { position: parsed.data };
}
