/**
 * Opens the source a job names, by its `kind`. MySQL, PostgreSQL and files plug in here with the
 * same Source contract.
 */
import { errorFrom } from '@tributary/protocol';
import { workerErrors } from '../errors.ts';
import { GeneratorSource } from './generator.ts';
import type { Source } from './source.ts';

export function openSource(spec: Readonly<Record<string, unknown>>): Source {
  switch (spec.kind) {
    case 'generator':
      return new GeneratorSource(spec);
    default:
      throw errorFrom(workerErrors, 'SOURCE_SPEC_INVALID', `unknown source kind ${JSON.stringify(spec.kind)}`, {
        kind: String(spec.kind),
      });
  }
}
