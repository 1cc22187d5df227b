/**
 * The opaque cursors of the table listings (tables, a table's snapshots, a snapshot's files):
 * base64url JSON naming the listing and where the next page starts. A cursor from another listing,
 * another table or snapshot, or made up, is refused with TABLE_CURSOR_INVALID.
 */
import { errorFrom } from '@tributary/protocol';
import { z } from 'zod';
import { coordinatorErrors } from '../errors.ts';

const TablesCursor = z.object({ k: z.literal('tables'), d: z.string(), t: z.string() });
const SnapshotsCursor = z.object({ k: z.literal('snapshots'), of: z.string(), before: z.number().int().min(1) });
const FilesCursor = z.object({ k: z.literal('files'), of: z.string(), s: z.number().int().min(1), o: z.number().int().min(1) });

export type TablesCursor = z.infer<typeof TablesCursor>;
export type SnapshotsCursor = z.infer<typeof SnapshotsCursor>;
export type FilesCursor = z.infer<typeof FilesCursor>;

/** A listing's cursor: its position as base64url JSON (opaque to clients). */
export function encodeCursor(cursor: unknown): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function encodeTableCursor(cursor: TablesCursor | SnapshotsCursor | FilesCursor): string {
  return encodeCursor(cursor);
}

/** The position a cursor of `encodeCursor` holds, or undefined if it is not one of `schema`. */
export function parseCursor<T>(schema: z.ZodType<T>, cursor: string): T | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const result = schema.safeParse(parsed);
  return result.success ? result.data : undefined;
}

function decode<T>(schema: z.ZodType<T>, cursor: string, listing: string): T {
  const position = parseCursor(schema, cursor);
  if (position === undefined) throw invalid(listing);
  return position;
}

function invalid(listing: string) {
  return errorFrom(coordinatorErrors, 'TABLE_CURSOR_INVALID', `the cursor was not returned by this ${listing} listing`, { listing });
}

export function decodeTablesCursor(cursor: string): TablesCursor {
  return decode(TablesCursor, cursor, 'tables');
}

/** `of` is the table (`db.table`) the cursor must belong to. */
export function decodeSnapshotsCursor(cursor: string, of: string): SnapshotsCursor {
  const c = decode(SnapshotsCursor, cursor, 'snapshots');
  if (c.of !== of) throw invalid('snapshots');
  return c;
}

/** A files cursor pins its snapshot: `snapshot`, when asked for, must be the same one. */
export function decodeFilesCursor(cursor: string, of: string, snapshot: number | undefined): FilesCursor {
  const c = decode(FilesCursor, cursor, 'files');
  if (c.of !== of || (snapshot !== undefined && snapshot !== c.s)) throw invalid('files');
  return c;
}
