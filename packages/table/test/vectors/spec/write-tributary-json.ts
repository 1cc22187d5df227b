/**
 * Writes tributary/schema-0 and tributary/snapshot-7 with Tributary's encoders (see README.md):
 * Paimon Java then re-reads them (MakeSpecVectors.java reread) and must print the same bytes.
 *   node packages/table/test/vectors/spec/write-tributary-json.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRIBUTARY_SCHEMA, TRIBUTARY_SNAPSHOT } from './tributary-json-values.ts';
import { encodeTableSchema } from '../../../src/spec/table-schema.ts';
import { encodeSnapshot } from '../../../src/spec/snapshot.ts';

const out = join(dirname(fileURLToPath(import.meta.url)), 'tributary');
writeFileSync(join(out, 'schema-0'), encodeTableSchema(TRIBUTARY_SCHEMA));
writeFileSync(join(out, 'snapshot-7'), encodeSnapshot(TRIBUTARY_SNAPSHOT));
