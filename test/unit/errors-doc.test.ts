import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { catalogues, errorsDocPath, renderErrorsDoc } from '../../scripts/errors-doc.ts';

test('docs/errors.md lists exactly the codes of the catalogues (regenerate: node scripts/errors-doc.ts)', () => {
  assert.equal(readFileSync(errorsDocPath, 'utf8'), renderErrorsDoc());
});

test('every code is SCREAMING_SNAKE_CASE, has a summary, and belongs to one package only', () => {
  const owner = new Map<string, string>();
  for (const [pkg, catalogue] of Object.entries(catalogues)) {
    for (const [code, spec] of Object.entries(catalogue)) {
      assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/, `${pkg}: ${code}`);
      assert.ok(spec.summary.trim().length > 10, `${pkg}: ${code} has a summary`);
      assert.equal(owner.get(code), undefined, `${code} is declared by ${owner.get(code)} and ${pkg}`);
      owner.set(code, pkg);
    }
  }
});
