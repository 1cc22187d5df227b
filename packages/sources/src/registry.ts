/**
 * Every source kind, looked up by its `kind`. The coordinator and the worker know sources only
 * through this registry and the contract in source.ts. A new kind is a folder exporting its
 * `SourceKind` and one line in SOURCE_KINDS; the request schema, planning and reading follow from it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, errorFrom } from '@tributary/protocol';
import { z } from 'zod';
import { sourceErrors } from './errors.ts';
import { filesSource } from './files/index.ts';
import { generatorSource } from './generator/index.ts';
import { mysqlSource } from './mysql/index.ts';
import { postgresSource } from './postgres/index.ts';
import type { Source, SourceContext, SourceKind, SpecSummary } from './source.ts';

const SOURCE_KINDS = [generatorSource, filesSource, mysqlSource, postgresSource] as const;

/** The kinds' spec schemas, as a tuple of their own types. */
type KindSpecs<Kinds> = { -readonly [I in keyof Kinds]: Kinds[I] extends { readonly spec: infer Spec } ? Spec : never };

/** The `source` of a sync request: one of the kinds' specs, told apart by `kind`. */
export const SyncSourceSpec = z.discriminatedUnion('kind', SOURCE_KINDS.map((k) => k.spec) as unknown as KindSpecs<typeof SOURCE_KINDS>);
export type SyncSourceSpec = z.infer<typeof SyncSourceSpec>;

/** The kinds' names, in registry order. */
export const SOURCE_KIND_NAMES: readonly string[] = SOURCE_KINDS.map((k) => k.kind);

function lookUp(kind: unknown): SourceKind {
  const found = SOURCE_KINDS.find((k) => k.kind === kind) as SourceKind | undefined;
  if (found === undefined) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `unknown source kind ${JSON.stringify(kind)}`, { kind: String(kind) });
  return found;
}

/** What a (valid) spec says by itself: a test hook it sets, the shards it names. */
export function summarizeSource(spec: SyncSourceSpec): SpecSummary {
  return lookUp(spec.kind).summary(spec);
}

/**
 * The source a spec describes, bound to this process's context: the coordinator's request source
 * (already valid), or the source a shard job carries (checked here, SOURCE_SPEC_INVALID if not).
 */
export function openSource(spec: Readonly<Record<string, unknown>>, context: SourceContext): Source {
  const kind = lookUp(spec.kind);
  const parsed = kind.spec.safeParse(spec);
  if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `${kind.kind} source: ${parsed.error.message}`);
  return kind.create(parsed.data, context);
}

/** Options that say how a source is read, not what: they never change a source's identity. */
const HOW_FIELDS = new Set(['password', 'batchRows', 'splitRows', 'filesPerShard', 'incremental', 'newFilesOnly', 'faults', 'allowUnterminatedLastLine', 'unknownColumns']);

/**
 * A source's identity: `sha256(canonical JSON of the kind's identity fields)` in hex. Two syncs
 * read "the same source" when their identities are equal; an incremental load continues from the
 * watermark the last snapshot of its table with this identity committed. The default fields are
 * the spec without a password and without the options of how it is read (HOW_FIELDS); a kind may
 * say otherwise (`identity`).
 */
export function sourceIdentity(spec: SyncSourceSpec): string {
  const kind = lookUp(spec.kind);
  const fields = kind.identity?.(spec) ?? Object.fromEntries(Object.entries(spec).filter(([key]) => !HOW_FIELDS.has(key)));
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}
