/**
 * Opens the source a job names, by its `kind`. MySQL, PostgreSQL and files plug in here with the
 * same Source contract.
 */
import { errorFrom } from '@tributary/protocol';
import { workerErrors } from '../errors.ts';
import { FilesSource, type OpenStore } from './files.ts';
import { GeneratorSource } from './generator.ts';
import { MysqlSource } from './mysql.ts';
import type { Source } from './source.ts';

export interface SourceContext {
  /** Opens the store of a source file's directory (s3://… or file://…). */
  readonly openStore: OpenStore;
  /** The table's column names: sources without a fixed schema (files) project onto them. */
  readonly columns: readonly string[];
}

export function openSource(spec: Readonly<Record<string, unknown>>, context: SourceContext): Source {
  switch (spec.kind) {
    case 'generator':
      return new GeneratorSource(spec);
    case 'files':
      return new FilesSource(spec, context.openStore, context.columns);
    case 'mysql':
      return new MysqlSource(spec, context.columns);
    default:
      throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', `unknown source kind ${JSON.stringify(spec.kind)}`, {
        kind: String(spec.kind),
      });
  }
}
