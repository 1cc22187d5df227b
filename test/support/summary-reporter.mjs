// A node:test reporter that ends the run with one plain line: "N passed, N failed, N skipped"
// (skipped counts skipped and todo tests).
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Count tests, not the suites or files that hold them.
    if (event.data.details?.type === 'suite' || event.data.file === undefined) continue;
    // A todo test may fail without failing the run (node counts it as todo, not fail).
    if (event.data.skip || event.data.todo) skipped++;
    else if (event.type === 'test:fail') failed++;
    else passed++;
  }
  yield `\n${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
