/**
 * The differential test (README.md): for each seed, a random table and adversarial rows, written
 * through a real sync from files, a real sync from MariaDB and Paimon Java's writer; each table read
 * by Paimon Java, pypaimon and Tributary's reader and compared exactly with the model. One test per
 * seed and path; a failure names the seed, the path, the readers that disagree (without cell
 * values) and the command that replays it.
 */
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { services, type OracleRow } from '@tributary/testkit';
import { inProcessCoordinator, spawnWorker, stop, syncEnv, withMariadb } from '../integration/sync/harness.ts';
import { compareRows } from './compare.ts';
import { caseFeatures, generateCase, type Case } from './generator.ts';
import { expectedRows } from './model.ts';
import { forReader, runCase, type ReaderName, type World } from './paths.ts';
import { replayCommand, seedsFromEnvironment } from './seeds.ts';

const { seeds, label } = seedsFromEnvironment(process.env);
console.log(`differential: ${label}`);
const failed = new Map<number, string[]>();

function describeCase(c: Case): string {
  const kind = c.primaryKeys.length > 0 ? `pk${c.options['sequence.field'] ? '+seq' : ''}` : 'append';
  const rows = c.shards.reduce((n, s) => n + s.length, 0);
  return `${kind}, ${c.partitionKeys.length} partition cols, bucket ${c.bucket}, ${c.columns.length} cols, ${rows} rows in ${c.shards.length} shards`;
}

/** An error's first line, and the last line of an oracle's stderr when the first says little. */
function brief(error: Error): string {
  const lines = error.message.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const first = (lines[0] ?? '').slice(0, 400);
  return lines.length > 1 && first.length < 80 ? `${first} … ${(lines.at(-1) ?? '').slice(0, 300)}` : first;
}

// Top-level hooks and one suite per seed, so each seed's results print as soon as it ends.
// The MariaDB shards are read through a named connection, as an operator configures one.
const e = syncEnv('diff', withMariadb());
let world: World;
const workers: ChildProcess[] = [];

before(async () => {
  const mysql = await createConnection({ ...services.mariadb, timezone: 'Z' });
  await mysql.query("SET time_zone = '+00:00'");
  const coordinator = await inProcessCoordinator(e);
  world = { e, coordinator, mysql };
  workers.push(...(await Promise.all([1, 2].map(() => spawnWorker(e)))));
});

after(async () => {
  await Promise.all(workers.map((w) => stop(w)));
  await world?.coordinator.close();
  await world?.mysql.end();
  if (failed.size > 0) {
    console.log(`\ndifferential: ${failed.size} failing seed(s):`);
    for (const [seed, paths] of failed) console.log(`  seed ${seed} (${paths.join(', ')}): ${replayCommand(seed)}`);
  }
});

for (const seed of seeds) {
  const c = generateCase(seed);
  const expected = expectedRows(c);
  const tables = { files: `s${seed}_files`, mysql: `s${seed}_mysql`, java: `s${seed}_java` };
  // The first test of the seed runs every path (side by side); each test then judges its own.
  let outcome: ReturnType<typeof runCase> | undefined;
  const run = () => (outcome ??= runCase(world, c, tables, `${e.prefix.replaceAll('-', '_')}_s${seed}`));
  describe(`seed ${seed}: ${describeCase(c)}`, () => {
    const paths = [
      { path: 'files' as const, name: `files (${c.format}) sync` },
      { path: 'mysql' as const, name: 'mysql sync' },
      { path: 'java' as const, name: 'paimon java write' },
    ];
    for (const { path, name } of paths) {
      const skip = c.paths.includes(path) ? false : `MySQL cannot hold this seed's values (NaN, ±Infinity, -0.0, nanoseconds, years before 1000: see README)`;
      test(name, { skip }, async () => {
        const result = (await run())[path];
        const problems: string[] = [];
        if (result === undefined || (result.writeError === undefined && result.reads === undefined)) problems.push('the path has no outcome'); // never pass vacuously
        if (result?.writeError) problems.push(`write: ${result.writeError.message.split('\n').slice(0, 40).join('\n  ')}`);
        for (const [reader, got] of Object.entries(result?.reads ?? {}) as [ReaderName, OracleRow[] | Error][]) {
          if (got instanceof Error) {
            problems.push(`${reader}: read failed: ${brief(got)}`);
            continue;
          }
          const mismatch = compareRows(c, `${path}-${reader}`, forReader(reader, c, got), forReader(reader, c, expected));
          if (mismatch) problems.push(`${reader}: ${mismatch.summary} (rows in ${mismatch.detailsFile})`);
        }
        if (problems.length > 0) {
          failed.set(seed, [...(failed.get(seed) ?? []), path]);
          const facts = `case: ${caseFeatures(c).join('; ')}`;
          throw new Error(`seed ${seed}, ${name}:\n  ${problems.join('\n  ')}\n${facts}\nreplay: ${replayCommand(seed)}`);
        }
      });
    }
  });
}
