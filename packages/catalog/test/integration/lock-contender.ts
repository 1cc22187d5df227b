/**
 * One process contending for a table's JDBC catalog lock (jdbc-lock.test.ts starts two): each
 * round takes the lock, then does a read-modify-write of a shared counter file with a pause in the
 * middle (a lost update unless the lock excludes the other process) and notes its time in the
 * critical section. The processes start their rounds together (a barrier of files). Prints one JSON line: the sections' [start, end] in epoch milliseconds.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openCatalog } from '@tributary/catalog';
import { LocalObjectStore } from '@tributary/table';

const [uri, counterPath, rounds, warehouseDir, barrierDir, parties] = process.argv.slice(2) as [string, string, string, string, string, string];
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
for (let i = 0; i < Number(rounds); i++) {
  await catalog.withLock({ database: 'db', table: 't' }, async () => {
    const start = performance.timeOrigin + performance.now();
    const value = Number(await readFile(counterPath, 'utf8'));
    await sleep(5);
    await writeFile(counterPath, String(value + 1));
    sections.push([start, performance.timeOrigin + performance.now()]);
  });
}
await catalog.close();
process.stdout.write(`${JSON.stringify(sections)}\n`);
