// Runs the test targets named on the command line with node's own test runner.
//   unit         packages/*/test/unit       pure, no services
//   integration  packages/*/test/integration, test/integration   real Redis, MinIO, MariaDB, PostgreSQL
//   compat       test/compat                 cross-reads with pypaimon and Paimon Java
//   api-fuzz     test/api-fuzz               schemathesis against a real coordinator's OpenAPI document
//   differential test/differential           seeded random tables through every write path, read by every reader
// Extra arguments after `--` go to node (for example `-- --test-name-pattern=bucket`).
import { spawnSync } from 'node:child_process';

const targets = {
  unit: ['packages/*/test/unit/**/*.test.ts', 'test/support/test/**/*.test.ts', 'test/unit/**/*.test.ts'],
  integration: ['packages/*/test/integration/**/*.test.ts', 'test/integration/**/*.test.ts'],
  compat: ['test/compat/**/*.test.ts'],
  'api-fuzz': ['test/api-fuzz/**/*.test.ts'],
  differential: ['test/differential/**/*.test.ts'],
};

const args = process.argv.slice(2);
const split = args.indexOf('--');
const names = split === -1 ? args : args.slice(0, split);
const passThrough = split === -1 ? [] : args.slice(split + 1);
const unknown = names.filter((n) => !(n in targets));
if (names.length === 0 || unknown.length > 0) {
  console.error(`usage: node scripts/test.mjs ${Object.keys(targets).join('|')}… [-- node options]`);
  process.exit(2);
}

const result = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-concurrency=4',
    '--test-timeout=600000',
    // A file whose process outlives its tests fails after a while instead of stalling the run.
    '--import=./test/support/exit-watchdog.mjs',
    '--test-reporter=./test/support/spec-reporter.mjs',
    '--test-reporter-destination=stdout',
    '--test-reporter=./test/support/summary-reporter.mjs',
    '--test-reporter-destination=stdout',
    ...passThrough,
    ...names.flatMap((n) => targets[n]),
  ],
  { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } },
);
process.exit(result.status ?? 1);
