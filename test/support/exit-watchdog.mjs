// Loaded into every test file's process (scripts/test.mjs passes it with --import). A file whose tests
// have all ended but whose process stays alive (a client or server some test never closed) would make
// node's runner wait for it for ever and stall the whole run. Once the file's tests end, an unref'd
// timer (it keeps nothing alive; it only fires in a process that is still running) names what is
// still open and exits, so the file fails with its results reported and the run goes on.
import { after } from 'node:test';

// TRIBUTARY_TEST_LINGER_MS shortens it for the watchdog's own test.
const LINGER_MS = Number(process.env.TRIBUTARY_TEST_LINGER_MS ?? 120_000);

const testFile = process.argv[1] ?? '';
if (process.env.NODE_TEST_CONTEXT !== undefined && /\.test\.[cm]?[jt]s$/.test(testFile)) {
  after(() => {
    setTimeout(() => {
      const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
      process.stderr.write(`exit-watchdog: ${testFile} still running ${LINGER_MS / 1000} s after its tests ended; open: ${open.join(', ')}\n`);
      process.exit(1);
    }, LINGER_MS).unref();
  });
}
