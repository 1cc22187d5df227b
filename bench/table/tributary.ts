/**
 * The Tributary peer of the table benchmark: creates one orders table in a local warehouse,
 * generates the rows chunk by chunk straight into ColumnBatches (never all rows at once), writes
 * them with TableWrite.write and commits one snapshot. Prints one JSON line (see run.ts).
 *
 *   node bench/table/tributary.ts --warehouse <dir> --table append|pk --rows N [--chunk N] [--max-buffered-rows N]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { allocateColumn, createTable, LocalObjectStore, type Column, type ColumnBatch, type RowType } from '@tributary/table';
import { amountCentsOf, createdAtMillisOf, dtOf, ORDER_FIELDS, STATUSES, storeIdOf, TABLE_KINDS, TABLE_SHAPES, type TableKind } from './orders.ts';

const started = performance.now();

/** Fills a batch with rows [from, from + length) of the shared formula, column by column. */
function ordersBatch(rowType: RowType, from: number, length: number): ColumnBatch {
  const columns = rowType.fields.map((field) => allocateColumn(field.type, length));
  const [id, storeId, amount, status, createdAt, dt] = columns as [Column, Column, Column, Column, Column, Column];
  if (id.kind !== 'int64' || storeId.kind !== 'int32' || amount.kind !== 'int64' || status.kind !== 'string') throw new Error('unexpected column kinds');
  if (createdAt.kind !== 'timestamp' || dt.kind !== 'int32') throw new Error('unexpected column kinds');
  for (let r = 0; r < length; r++) {
    const i = from + r;
    id.values[r] = BigInt(i);
    storeId.values[r] = storeIdOf(i);
    amount.values[r] = BigInt(amountCentsOf(i));
    status.values[r] = STATUSES[i % STATUSES.length] as string;
    createdAt.millis[r] = createdAtMillisOf(i);
    dt.values[r] = dtOf(i);
  }
  return { rowType, length, columns };
}

/** CPU time of this process (user + system, all threads), in microseconds. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      warehouse: { type: 'string' },
      table: { type: 'string' },
      rows: { type: 'string', default: '2000000' },
      chunk: { type: 'string', default: '100000' },
      // TableWriteOptions.maxBufferedRows; default: the library's.
      'max-buffered-rows': { type: 'string' },
      // Flush each file to disk before publishing it (LocalObjectStore's default); off: as Paimon Java's LocalFileIO.
      fsync: { type: 'string', default: 'on' },
      // Write the same rows into a warm-up table in this process first, timed as the cold write.
      warm: { type: 'boolean', default: false },
    },
  });
  const kind = values.table as TableKind;
  if (values.warehouse === undefined || !TABLE_KINDS.includes(kind)) throw new Error('usage: tributary.ts --warehouse <dir> --table append|pk --rows N');
  const rows = Number(values.rows);
  const chunk = Number(values.chunk);
  if (values.fsync !== 'on' && values.fsync !== 'off') throw new Error('--fsync on|off');
  const store = new LocalObjectStore(values.warehouse, { fsync: values.fsync === 'on' });
  const cold = values.warm ? await writeTable(store, `tributary_${kind}_warmup`, kind, rows, chunk, values['max-buffered-rows']) : undefined;
  const timed = await writeTable(store, `tributary_${kind}`, kind, rows, chunk, values['max-buffered-rows']);
  console.log(
    JSON.stringify({
      peer: 'tributary',
      table: kind,
      rows,
      ...timed,
      ...(cold === undefined ? {} : { coldWriteSeconds: cold.writeSeconds, coldWriteCpuSeconds: cold.writeCpuSeconds }),
      totalSeconds: (performance.now() - started) / 1000,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

interface TableWritten {
  readonly path: string;
  readonly snapshotId: number;
  readonly files: number;
  readonly writeSeconds: number;
  readonly writeCpuSeconds: number;
  readonly generateSeconds: number;
}

/** Creates table `name` and writes rows 0..rows-1 into it with one commit: write + commit timed, row generation excluded. */
async function writeTable(store: LocalObjectStore, name: string, kind: TableKind, rows: number, chunk: number, maxBuffered: string | undefined): Promise<TableWritten> {
  const shape = TABLE_SHAPES[kind];
  const table = await createTable(store, {
    database: 'bench',
    name,
    schema: { fields: [...ORDER_FIELDS], partitionKeys: [...shape.partitionKeys], primaryKeys: [...shape.primaryKeys], options: { ...shape.options } },
  });

  let generateMs = 0;
  let generateCpuMicros = 0;
  const writeStart = performance.now();
  const writeCpuStart = cpuMicros();
  const write = await table.newWrite({ writerId: 'bench', baseSnapshotId: null, ...(maxBuffered !== undefined ? { maxBufferedRows: Number(maxBuffered) } : {}) });
  const rowType = write.rowType;
  for (let from = 0; from < rows; from += chunk) {
    const t0 = performance.now();
    const c0 = cpuMicros();
    const batch = ordersBatch(rowType, from, Math.min(chunk, rows - from));
    generateMs += performance.now() - t0;
    generateCpuMicros += cpuMicros() - c0;
    await write.write(batch);
  }
  const messages = await write.prepareCommit();
  const result = await table.newCommit('bench').commit(messages);
  const writeSeconds = (performance.now() - writeStart - generateMs) / 1000;
  const writeCpuSeconds = (cpuMicros() - writeCpuStart - generateCpuMicros) / 1e6;

  const files = messages.reduce((n, m) => n + m.dataIncrement.newFiles.length, 0);
  return { path: table.path, snapshotId: result.snapshotId, files, writeSeconds, writeCpuSeconds, generateSeconds: generateMs / 1000 };
}

await main();
