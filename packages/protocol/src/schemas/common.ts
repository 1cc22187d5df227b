/**
 * Building blocks of the REST schemas (rest.ts), and the one way to validate a REST body or job
 * payload with a typed error. The job payloads themselves live in ../sync-schemas.ts. Schemas and their types share a name (`const X = z.object(…)`,
 * `type X = z.infer<typeof X>`), so `X.parse` and `x: X` read alike at the call site.
 */
import { z } from 'zod';
import { protocolError } from '../errors.ts';

/** A database, table or column name: what Paimon accepts in a path segment, without surprises. */
export const Identifier = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit');
export type Identifier = z.infer<typeof Identifier>;

/** Paimon table options and similar free-form settings: string to string, as in schema JSON. */
export const StringMap = z.record(z.string().min(1), z.string());
export type StringMap = z.infer<typeof StringMap>;

/** How a sync writes: plain inserts, primary-key upserts, or overwriting the partitions it touches. */
export const SyncMode = z.enum(['append', 'upsert', 'overwrite']);
export type SyncMode = z.infer<typeof SyncMode>;

/**
 * Validates a REST body or job payload; on failure throws PAYLOAD_INVALID naming the first
 * problem (`what` says which payload, e.g. "write-shard job").
 */
export function parsePayload<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const path = first === undefined ? '' : first.path.map(String).join('.');
  throw protocolError('PAYLOAD_INVALID', `${what}: ${path === '' ? '' : `${path}: `}${first?.message ?? 'invalid'}`, {
    what,
    path,
    issues: result.error.issues.length,
  });
}

/** What a sync does with a source row that does not fit the table (SyncOptions.badRows). */
export const BadRowPolicy = z.enum(['fail', 'reject']);
export type BadRowPolicy = z.infer<typeof BadRowPolicy>;
