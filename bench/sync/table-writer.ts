/**
 * A child process of the table-only baseline: writes its shards of the generator straight with
 * the table API (newWrite → writeRows → prepareCommit, one writer per shard, one shard after the
 * other, as a worker with concurrency 1 does) and sends the CommitMessages to its parent over IPC.
 * No Redis, no queue, no blob. Protocol (IPC, structured clone):
 *   parent → { warehouse, database, name, source, shards }   child → { ready: true }
 *   parent → { go: true }                                      child → { messages, rows, writeMs }
 */
import { performance } from 'node:perf_hooks';
import { openObjectStore, openTable, type TableWrite } from '@tributary/table';
import { GeneratorSource, rowConverter } from '@tributary/sources';
import { s3Options } from './processes.ts';
import type { GeneratorSpec } from './orders.ts';

export interface WriterJob {
  readonly warehouse: string;
  readonly database: string;
  readonly name: string;
  readonly source: GeneratorSpec;
  /** Indexes of the generator's shards this process writes. */
  readonly shards: readonly number[];
}

export type TableMessages = Awaited<ReturnType<TableWrite['prepareCommit']>>;

export interface WriterResult {
  readonly messages: TableMessages;
  readonly rows: number;
  readonly writeMs: number;
  /** CPU time of this process from "go" to its messages, user + system. */
  readonly cpuMs: number;
}

function nextMessage<T>(): Promise<T> {
  return new Promise((resolve) => process.once('message', (m) => resolve(m as T)));
}

async function main(): Promise<void> {
  const job = await nextMessage<WriterJob>();
  const table = await openTable(openObjectStore(job.warehouse, s3Options()), job.database, job.name);
  const source = new GeneratorSource(job.source);
  const columns = await source.columns();
  const planned = await source.plan();
  process.send?.({ ready: true });
  await nextMessage<{ go: true }>();

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const messages: TableMessages[number][] = [];
  let rows = 0;
  for (const index of job.shards) {
    const shard = planned[index];
    if (shard === undefined) throw new Error(`no shard ${index}`);
    const write = await table.newWrite({ writerId: `baseline-${shard.id}`, baseSnapshotId: null });
    const convert = rowConverter(shard.id, columns, write.rowType);
    for await (const batch of source.open(shard)) {
      await write.writeRows(batch.rows.map((row, i) => convert(row, batch.firstRowPosition + i)));
      rows += batch.rows.length;
    }
    messages.push(...(await write.prepareCommit()));
  }
  const cpu = process.cpuUsage(cpu0);
  const result: WriterResult = { messages, rows, writeMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
  process.send?.(result);
  process.disconnect();
}

await main();
