/**
 * Opens the source a job names, by its `kind`. MySQL, PostgreSQL and files plug in here with the
 * same Source contract.
 */
import { checkSourceUri, errorFrom, type SourceAccess } from '@tributary/protocol';
import { workerErrors } from '../errors.ts';
import { FilesSource, type OpenStore } from './files.ts';
import { GeneratorSource } from './generator.ts';
import { MysqlSource } from './mysql.ts';
import type { PlannedSourceShard, Source, SourcePosition } from './source.ts';

export interface SourceContext {
  /** Opens the store of a source file's directory (s3://… or file://…). */
  readonly openStore: OpenStore;
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
      return withinRoots(new FilesSource(spec, context.openStore, context.columns), context.access);
    case 'mysql':
      return new MysqlSource(spec, context.columns, context.access);
    default:
      throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', `unknown source kind ${JSON.stringify(spec.kind)}`, {
        kind: String(spec.kind),
      });
  }
}

/** A files source whose every shard file is checked against the roots (and realpath) before it is opened. */
function withinRoots(source: Source, access: SourceAccess): Source {
  return {
    kind: source.kind,
    columns: () => source.columns(),
    plan: () => source.plan(),
    async *open(planned: PlannedSourceShard, from?: SourcePosition) {
      const files = (planned.spec as { files?: unknown }).files;
      if (!Array.isArray(files)) throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', `files shard ${planned.id} lists no files`, { shard: planned.id });
      for (const [index, uri] of files.entries()) await checkSourceUri(String(uri), index, access);
      yield* source.open(planned, from);
    },
  };
}
