// A node:test reporter that ends the run with the todo tests (known gaps, not failures: name,
// place and reason, no stack trace) under their own header, then one plain line:
// "N passed, N failed, N skipped" (skipped counts skipped and todo tests).
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTodo } from './spec-reporter.mjs';

/** `file:line` relative to the working directory, as the spec reporter prints places. */
function placeOf(data) {
  const file = data.file.startsWith('file:') ? fileURLToPath(data.file) : data.file;
  return `${relative(process.cwd(), file)}:${data.line ?? '?'}`;
}

export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const todos = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Count tests, not the suites or files that hold them.
    if (event.data.details?.type === 'suite' || event.data.file === undefined) continue;
    // A todo test may fail without failing the run (node counts it as todo, not fail).
    if (isTodo(event.data)) {
      skipped++;
      const reason = typeof event.data.todo === 'string' ? `: ${event.data.todo}` : '';
      const outcome = event.type === 'test:fail' ? 'fails as expected' : 'passes now';
      todos.push(`  ${event.data.name} (${placeOf(event.data)}; ${outcome})${reason}`);
    } else if (event.data.skip) skipped++;
    else if (event.type === 'test:fail') failed++;
    else passed++;
  }
  if (todos.length > 0) yield `\ntodo tests (known gaps, not failures):\n${todos.join('\n')}\n`;
  yield `\n${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
