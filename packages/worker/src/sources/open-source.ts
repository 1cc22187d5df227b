/**
 * Opens the source a job names, by its `kind`. MySQL, PostgreSQL and files plug in here with the
 * same Source contract.
 */
import { checkSourceUri, errorFrom, s3Credentials, type S3Credentials, type SourceAccess } from '@tributary/protocol';
import { workerErrors } from '../errors.ts';
import { FilesSource, type OpenStore } from './files.ts';
import { GeneratorSource } from './generator.ts';
import { MysqlSource } from './mysql.ts';
import type { PlannedSourceShard, Source, SourcePosition } from './source.ts';

export interface SourceContext {
  /** Opens the store of a source file's directory (s3://… or file://…). */
  readonly openStore: OpenStore;
  /** Opens it with a source's own S3 credentials (a files source that names an S3 connection). */
  readonly openCredentialedStore?: (root: string, s3: S3Credentials) => ReturnType<OpenStore>;
  /** The table's column names: sources without a fixed schema (files) project onto them. */
  readonly columns: readonly string[];
  /** This worker's connections and source roots: a job is checked against them, whatever it says. */
  readonly access: SourceAccess;
}

export function openSource(spec: Readonly<Record<string, unknown>>, context: SourceContext): Source {
  switch (spec.kind) {
    case 'generator':
      return new GeneratorSource(spec);
    case 'files':
      return withinRoots(new FilesSource(spec, filesStore(spec, context), context.columns), context.access);
    case 'mysql':
      return new MysqlSource(spec, context.columns, context.access);
    default:
      throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', `unknown source kind ${JSON.stringify(spec.kind)}`, {
        kind: String(spec.kind),
      });
  }
}

/** The stores a files source reads: with the S3 connection it names (looked up here), or the process's own. */
function filesStore(spec: Readonly<Record<string, unknown>>, context: SourceContext): OpenStore {
  if (spec.connection === undefined) return context.openStore;
  const credentials = s3Credentials(String(spec.connection), context.access);
  const open = context.openCredentialedStore;
  if (open === undefined) throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', 'this worker cannot open stores with a source connection');
  return (root) => open(root, credentials);
}

/** A files source whose every shard file is checked against the roots (and realpath) before it is opened. */
function withinRoots(source: Source, access: SourceAccess): Source {
  return {
    kind: source.kind,
    columns: () => source.columns(),
    plan: () => source.plan(),
    async *open(planned: PlannedSourceShard, from?: SourcePosition, signal?: AbortSignal) {
      const files = (planned.spec as { files?: unknown }).files;
      if (!Array.isArray(files)) throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', `files shard ${planned.id} lists no files`, { shard: planned.id });
      for (const [index, uri] of files.entries()) await checkSourceUri(String(uri), index, access);
      yield* source.open(planned, from, signal);
    },
  };
}
