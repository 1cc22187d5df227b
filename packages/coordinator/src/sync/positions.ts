/**
 * The shards' source positions folded into the snapshot's properties (pure), and read back.
 *
 * Each accepted blob carries its shard's read position (a server's log position, or the files read
 * with their sizes and ETags). A snapshot's properties must stay small whatever the shard count,
 * so the rule is:
 *
 *   tributary.positions = canonical JSON, at most INLINE_LIMIT bytes:
 *     { "shards": <shards with a position>,
 *       "servers": { "<host:port>": { "shards": n, "lowest": <log>, "highest": <log> } },
 *       "files": { "count": n, "bytes": <total>, "list": [[uri, size, etag], …] },
 *       "object": "<warehouse key>", "objectSha256": "<hex>" }
 *
 * - `servers`: per server, how many shards read from it and its lowest and highest log position
 *   (by the position's `order`): a CDC job that starts at a server's `lowest` misses nothing any
 *   shard of this load read. Left out (only in the object) past MAX_SERVERS servers.
 * - `files`: how many files and bytes were read; `list` gives every file when the whole property
 *   stays within INLINE_LIMIT.
 * - `object`: whenever anything was left out, every shard's full position is in a JSON object of
 *   the warehouse, `.tributary/syncs/<syncId>/positions.json` (`{"syncId", "shards": {id: position}}`),
 *   and `objectSha256` is the SHA-256 of its bytes. It lives as long as the sync's staging folder.
 *
 * The load's other properties: `tributary.source-kind`, `tributary.source-id` (the source's
 * identity hash, sources/registry.ts `sourceIdentity`) and, for an incremental load,
 * `tributary.watermark` = `{"column": <name>, "value": <the watermark committed, or null>}`.
 */
import { createHash } from 'node:crypto';
import { errorFrom, isTributaryError } from '@tributary/errors';
import { canonicalJson, ShardReadPosition, syncStagingPrefix } from '@tributary/protocol';
import { z } from 'zod';
import { coordinatorErrors } from '../errors.ts';

export const POSITIONS_PROPERTY = 'tributary.positions';
export const SOURCE_ID_PROPERTY = 'tributary.source-id';
export const SOURCE_KIND_PROPERTY = 'tributary.source-kind';
export const WATERMARK_PROPERTY = 'tributary.watermark';

/** Largest `tributary.positions` value, in bytes. */
export const INLINE_LIMIT = 16 * 1024;
/** Servers summarised inline; more are only in the object. */
export const MAX_SERVERS = 64;

type ServerLog = NonNullable<ShardReadPosition['server']>;

export interface FoldedPositions {
  readonly properties: Readonly<Record<string, string>>;
  /** The full positions, to write before the snapshot is published (when something was left out). */
  readonly object?: { readonly key: string; readonly bytes: Uint8Array };
}

export function positionsObjectKey(syncId: string): string {
  return `${syncStagingPrefix(syncId)}positions.json`;
}

/** Folds the shards' positions (plan order; undefined: the shard's source has none) into properties. */
export function foldPositions(syncId: string, shards: readonly { readonly id: string; readonly readPosition: ShardReadPosition | undefined }[]): FoldedPositions {
  const withPosition = shards.filter((s): s is { id: string; readPosition: ShardReadPosition } => s.readPosition !== undefined);
  if (withPosition.length === 0) return { properties: {} };
  const servers = new Map<string, { shards: number; lowest: ServerLog; highest: ServerLog }>();
  const files: [string, number, string][] = [];
  for (const { readPosition } of withPosition) {
    const server = readPosition.server;
    if (server !== undefined) {
      const seen = servers.get(server.id);
      if (seen === undefined) servers.set(server.id, { shards: 1, lowest: server, highest: server });
      else {
        seen.shards++;
        if (server.order < seen.lowest.order) seen.lowest = server;
        if (server.order > seen.highest.order) seen.highest = server;
      }
    }
    for (const f of readPosition.files ?? []) files.push([f.uri, f.size, f.etag]);
  }
  const summary: Record<string, unknown> = { shards: withPosition.length };
  if (servers.size > 0 && servers.size <= MAX_SERVERS) {
    summary.servers = Object.fromEntries([...servers].map(([id, s]) => [id, { shards: s.shards, lowest: s.lowest.log, highest: s.highest.log }]));
  }
  if (hasFiles(withPosition)) summary.files = { count: files.length, bytes: files.reduce((n, f) => n + f[1], 0) };
  const complete = servers.size <= MAX_SERVERS;
  if (files.length > 0) {
    const withList = canonicalJson({ ...summary, files: { ...(summary.files as object), list: files } });
    if (complete && Buffer.byteLength(withList) <= INLINE_LIMIT) return { properties: { [POSITIONS_PROPERTY]: withList } };
  } else if (complete) {
    const text = canonicalJson(summary);
    if (Buffer.byteLength(text) <= INLINE_LIMIT) return { properties: { [POSITIONS_PROPERTY]: text } };
  }
  const bytes = new TextEncoder().encode(`${canonicalJson({ syncId, shards: Object.fromEntries(withPosition.map((s) => [s.id, s.readPosition])) })}\n`);
  const key = positionsObjectKey(syncId);
  if (servers.size > MAX_SERVERS) summary.serverCount = servers.size;
  summary.object = key;
  summary.objectSha256 = createHash('sha256').update(bytes).digest('hex');
  return { properties: { [POSITIONS_PROPERTY]: canonicalJson(summary) }, object: { key, bytes } };
}

function hasFiles(shards: readonly { readPosition: ShardReadPosition }[]): boolean {
  return shards.some((s) => s.readPosition.files !== undefined);
}

/** What a snapshot's `tributary.positions` says, as far as a later plan needs it. */
const PositionsSummary = z.looseObject({
  files: z.looseObject({ list: z.array(z.tuple([z.string(), z.number(), z.string()])).optional() }).optional(),
  object: z.string().optional(),
  objectSha256: z.string().optional(),
});

const PositionsObject = z.object({ shards: z.record(z.string(), ShardReadPosition) });

/**
 * The files (`[uri, etag]`) a snapshot lists as loaded: from the inline list, or from its object
 * (`readObject`, checked against its SHA-256). A property or object that is not what Tributary
 * writes, or an object missing or changed, is SYNC_HISTORY_UNREADABLE, never "no files" (which
 * would load them all again). `snapshotId` names the snapshot in the error.
 */
export async function loadedFilesOf(properties: Readonly<Record<string, string>>, readObject: (key: string) => Promise<Uint8Array>, snapshotId?: number): Promise<[string, string][]> {
  const text = properties[POSITIONS_PROPERTY];
  if (text === undefined) return [];
  const summary = parsed(PositionsSummary, text, POSITIONS_PROPERTY, snapshotId);
  if (summary.files?.list !== undefined) return summary.files.list.map(([uri, , etag]) => [uri, etag]);
  if (summary.files === undefined || summary.object === undefined) return [];
  let bytes: Uint8Array;
  try {
    bytes = await readObject(summary.object);
  } catch (error) {
    if (isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND') throw unreadable(snapshotId, POSITIONS_PROPERTY, 'the positions object it names is missing');
    throw error;
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== summary.objectSha256) throw unreadable(snapshotId, POSITIONS_PROPERTY, 'the positions object it names does not have the SHA-256 it recorded');
  const full = parsed(PositionsObject, new TextDecoder().decode(bytes), POSITIONS_PROPERTY, snapshotId);
  return Object.values(full.shards).flatMap((p) => (p.files ?? []).map((f): [string, string] => [f.uri, f.etag]));
}

const Watermark = z.object({ column: z.string(), value: z.string().nullable() });

/**
 * The watermark a snapshot committed for `column`, when it is a load of `sourceId`; undefined: not
 * this snapshot. A load of this source whose watermark is not what Tributary writes is
 * SYNC_HISTORY_UNREADABLE (where the next load starts cannot be told).
 */
export function watermarkOf(properties: Readonly<Record<string, string>>, sourceId: string, column: string, snapshotId?: number): { value: string | null } | undefined {
  if (properties[SOURCE_ID_PROPERTY] !== sourceId) return undefined;
  const text = properties[WATERMARK_PROPERTY];
  if (text === undefined) return undefined;
  const watermark = parsed(Watermark, text, WATERMARK_PROPERTY, snapshotId);
  return watermark.column === column ? { value: watermark.value } : undefined;
}

function parsed<T>(schema: z.ZodType<T>, text: string, property: string, snapshotId: number | undefined): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw unreadable(snapshotId, property, 'it is not JSON');
  }
  const result = schema.safeParse(json);
  if (!result.success) throw unreadable(snapshotId, property, 'it is not what Tributary writes');
  return result.data;
}

function unreadable(snapshotId: number | undefined, property: string, why: string): Error {
  const which = snapshotId === undefined ? 'a snapshot' : `snapshot ${snapshotId}`;
  return errorFrom(coordinatorErrors, 'SYNC_HISTORY_UNREADABLE', `${which}'s ${property} cannot be read (${why}): what earlier loads loaded cannot be told, so nothing is planned`, {
    property,
    ...(snapshotId === undefined ? {} : { snapshotId }),
  });
}

export function watermarkProperty(column: string, value: string | null): string {
  return canonicalJson({ column, value });
}
