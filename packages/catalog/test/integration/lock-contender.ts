/**
 * One process contending for a table's JDBC catalog lock (jdbc-catalog.test.ts starts two): each
 * round takes the lock, then does a read-modify-write of a shared counter file with a pause in the
 * middle (a lost update unless the lock excludes the other process), holds a marker file created
 * exclusively (finding it already there means the other process is inside too), and notes its time
 * in the critical section on the machine's monotonic clock (process.hrtime: one clock for every
 * process, unlike performance.timeOrigin, which each process reads from the wall clock at its
 * start). The processes start their rounds together (a barrier of files). Prints one JSON line:
 * `{ sections: [start, end][] in milliseconds, overlaps: number }`.
 */
import { open, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openCatalog } from '@tributary/catalog';
import { LocalObjectStore } from '@tributary/table';

const [uri, counterPath, rounds, warehouseDir, barrierDir, parties] = process.argv.slice(2) as [string, string, string, string, string, string];
const marker = `${counterPath}.held`;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const catalog = await openCatalog(`file://${warehouseDir}`, new LocalObjectStore(warehouseDir), {
  type: 'jdbc',
  uri,
  user: process.env['CATALOG_USER'] as string,
  password: process.env['CATALOG_PASSWORD'] as string,
  catalogKey: 'contend',
  lockEnabled: true,
  lockAcquireTimeoutMs: 60_000,
  lockCheckMaxSleepMs: 20,
});
// Start the rounds together: each process announces itself, then waits until all have.
await writeFile(join(barrierDir, String(process.pid)), '');
while ((await readdir(barrierDir)).length < Number(parties)) await sleep(10);
const sections: [number, number][] = [];
let overlaps = 0;
for (let i = 0; i < Number(rounds); i++) {
  await catalog.withLock({ database: 'db', table: 't' }, async () => {
    const start = now();
    const held = await open(marker, 'wx').catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
      overlaps++;
      return null;
    });
    const value = Number(await readFile(counterPath, 'utf8'));
    await sleep(5);
    await writeFile(counterPath, String(value + 1));
    if (held) {
      await held.close();
      await unlink(marker);
    }
    sections.push([start, now()]);
  });
}
await catalog.close();
process.stdout.write(`${JSON.stringify({ sections, overlaps })}\n`);
