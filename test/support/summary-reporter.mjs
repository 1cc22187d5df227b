// A node:test reporter that ends the run with one plain line: "N passed, N failed, N skipped".
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Count tests, not the suites or files that hold them.
    if (event.data.details?.type === 'suite' || event.data.file === undefined) continue;
    if (event.type === 'test:fail') failed++;
    else if (event.data.skip || event.data.todo) skipped++;
    else passed++;
  }
  yield `\n${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
