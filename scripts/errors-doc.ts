/**
 * Renders docs/errors.md from the error catalogues of every package, so the docs list exactly the
 * codes the code can throw. `node scripts/errors-doc.ts` rewrites the file; a unit test
 * (test/unit/errors-doc.test.ts) fails when the two drift apart.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErrorCatalogue } from '@tributary/protocol';
import { protocolErrors } from '@tributary/protocol';
import { tableErrors } from '@tributary/table';
import { catalogErrors } from '@tributary/catalog';
import { sourceErrors } from '@tributary/sources';
import { workerErrors } from '@tributary/worker';
import { coordinatorErrors } from '@tributary/coordinator';

export const catalogues: Readonly<Record<string, ErrorCatalogue<string>>> = {
  '@tributary/protocol': protocolErrors,
  '@tributary/table': tableErrors,
  '@tributary/catalog': catalogErrors,
  '@tributary/sources': sourceErrors,
  '@tributary/worker': workerErrors,
  '@tributary/coordinator': coordinatorErrors,
};

export const errorsDocPath = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

const escapeCell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderErrorsDoc(): string {
  const lines = [
    '# Error codes',
    '',
    'Every error that crosses a package or process boundary carries one of these stable codes, a',
    '`retryable` flag (may the same operation succeed if tried again unchanged?) and a plain-data',
    '`context`. Code branches on the code, never on the message. REST answers carry the code in an',
    '`application/problem+json` body.',
    '',
    'This file is generated from the catalogues in `packages/*/src/errors.ts` by',
    '`node scripts/errors-doc.ts`; a unit test fails when it is out of date.',
  ];
  for (const [pkg, catalogue] of Object.entries(catalogues)) {
    lines.push('', `## ${pkg}`, '', '| code | retryable | meaning |', '|---|---|---|');
    for (const [code, spec] of Object.entries(catalogue).sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`| \`${code}\` | ${spec.retryable ? 'yes' : 'no'} | ${escapeCell(spec.summary)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.main) {
  writeFileSync(errorsDocPath, renderErrorsDoc());
  console.log(`wrote ${errorsDocPath}`);
}
