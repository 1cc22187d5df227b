/**
 * The load benchmark's dataset as Parquet input files in MinIO: shard s of the MariaDB dataset
 * (dataset.ts) written by pyarrow (python/orders_parquet.py: the same rows, so the same expected
 * sums) as `<root>/orders_<s>.parquet`, one file per shard, DECIMALs as FIXED_LEN_BYTE_ARRAY
 * (pyarrow's default). Built once and kept: a file already in the store is reused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openObjectStore } from '@tributary/table';
import { s3Options } from '../sync/processes.ts';
import type { Dataset } from './dataset.ts';

const writer = fileURLToPath(new URL('./python/orders_parquet.py', import.meta.url));

/** The files of the dataset's shards under `root` (s3://…), written unless present; their URIs. */
export async function ensureParquetDataset(dataset: Dataset, rowsPerShard: number, root: string, python: string, log: (line: string) => void): Promise<string[]> {
  const store = openObjectStore(root, s3Options());
  const dir = mkdtempSync(join(tmpdir(), 'bench-load-parquet-'));
  try {
    const uris: string[] = [];
    for (const [s] of dataset.tables.entries()) {
      const key = `orders_${s}.parquet`;
      if ((await store.stat(key)) === null) {
        log(`bench: writing ${root}/${key} (${rowsPerShard.toLocaleString('en-US')} rows, pyarrow)…`);
        const path = join(dir, key);
        execFileSync(python, [writer, String(rowsPerShard), String(s), path], { stdio: ['ignore', 'inherit', 'inherit'] });
        await store.put(key, readFileSync(path));
      }
      uris.push(`${root}/${key}`);
    }
    return uris;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
