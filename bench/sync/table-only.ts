/**
 * The table-only baseline: the same shards of the same generator into the same table definition
 * on the same store, written by N processes in parallel with the table API alone, then one commit
 * in this process. Timed from "go" (the writers have started and opened the table) to the commit's
 * return, which is what the end-to-end run times from POST to COMMITTED less the coordination.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createTable, openTable, parseDataTypeString, type ObjectStore } from '@tributary/table';
import { ORDERS_TABLE, type GeneratorSpec } from './orders.ts';
import type { TableMessages, WriterJob, WriterResult } from './table-writer.ts';

export interface BaselineMeasurement {
  readonly rows: number;
  /** go → the snapshot committed. */
  readonly totalMs: number;
  /** go → the last writer's messages received. */
  readonly writeMs: number;
  readonly commitMs: number;
  /** Each writer's own time for its shards. */
  readonly writerMs: readonly number[];
  /** Each writer's CPU time (user + system) for its shards. */
  readonly writerCpuMs: readonly number[];
  readonly snapshotId: number;
}

const writerScript = fileURLToPath(new URL('./table-writer.ts', import.meta.url));

function reply<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`table writer ${child.pid} exited with ${String(code)}`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m as T);
    });
  });
}

export async function createBaselineTable(store: ObjectStore, database: string, name: string): Promise<void> {
  await createTable(store, {
    database,
    name,
    schema: {
      fields: ORDERS_TABLE.columns.map((c) => ({ name: c.name, type: parseDataTypeString(c.type) })),
      partitionKeys: [],
      primaryKeys: [...ORDERS_TABLE.primaryKeys],
      options: { bucket: String(ORDERS_TABLE.bucket) },
    },
  });
}

export async function measureTableOnly(
  store: ObjectStore,
  warehouse: string,
  database: string,
  name: string,
  source: GeneratorSpec,
  processes: number,
  nodeArgs: (index: number) => readonly string[] = () => [],
): Promise<BaselineMeasurement> {
  await createBaselineTable(store, database, name);
  const children = Array.from({ length: processes }, (_, i) =>
    fork(writerScript, [], { serialization: 'advanced', stdio: 'inherit', execArgv: [...process.execArgv, ...nodeArgs(i)] }),
  );
  try {
    await Promise.all(
      children.map((child, p) => {
        const shards = Array.from({ length: source.shards }, (_, i) => i).filter((i) => i % processes === p);
        const job: WriterJob = { warehouse, database, name, source, shards };
        const ready = reply<{ ready: true }>(child);
        child.send(job);
        return ready;
      }),
    );
    const t0 = performance.now();
    const results = await Promise.all(
      children.map((child) => {
        const done = reply<WriterResult>(child);
        child.send({ go: true });
        return done;
      }),
    );
    const writeMs = performance.now() - t0;
    const messages: TableMessages = results.flatMap((r) => r.messages);
    const c0 = performance.now();
    const table = await openTable(store, database, name);
    const result = await table.newCommit('bench-baseline').commit(messages);
    const end = performance.now();
    return {
      rows: results.reduce((n, r) => n + r.rows, 0),
      totalMs: end - t0,
      writeMs,
      commitMs: end - c0,
      writerMs: results.map((r) => r.writeMs),
      writerCpuMs: results.map((r) => r.cpuMs),
      snapshotId: result.snapshotId,
    };
  } finally {
    await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => once(c, 'exit')));
  }
}
