/**
 * A Hive Metastore of a test's own: infra/hive-metastore.sh run on a free port with its own data
 * directory (and so its own database in the local PostgreSQL, a copy of the schema template), for
 * tests that stop and start the metastore. The shared one (`services.hiveMetastore`) serves every
 * other test at the same time and is never stopped. It runs what infra/up.sh installed (the release
 * in the cache, the template database), so a start takes seconds once the machine is set up.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../../infra/hive-metastore.sh', import.meta.url));

export interface OwnMetastore {
  readonly host: string;
  readonly port: number;
  /** `thrift://127.0.0.1:<port>` */
  readonly uri: string;
  /** Starts it (or leaves it running); resolves once its Thrift port accepts connections. */
  start(): Promise<void>;
  /** Stops it (SIGTERM, then SIGKILL after 20 s); resolves once the process is gone. */
  stop(): Promise<void>;
  /**
   * SIGKILLs it at once, synchronously (a metastore that dies mid-work), for a caller that cannot
   * wait, such as a coordinator's synchronous fault point; `stop` then forgets it and `start` starts
   * it again on the same data. False when it was not running.
   */
  kill(): boolean;
  /** Whether its port accepts connections. */
  isUp(): Promise<boolean>;
  /** Stops it and deletes its data directory and its database. */
  close(): Promise<void>;
}

/** A metastore of the caller's own on a free port (not started yet). `name` goes into its data directory's name. */
export async function ownMetastore(name: string, port?: number): Promise<OwnMetastore> {
  const data = await mkdtemp(join(tmpdir(), `tributary-hms-${name}-`));
  const chosen = port ?? (await freePort());
  const env = { ...process.env, TRIBUTARY_DATA: data, TRIBUTARY_HIVE_METASTORE_PORT: String(chosen) };
  // A first start on a slow machine may create the schema template: the script itself waits up to 180 s for the port.
  const service = (action: 'start' | 'stop' | 'status' | 'purge') => run('bash', [script, action], { env, timeout: 300_000 });
  const isUp = () => service('status').then(() => true, () => false);
  const kill = (): boolean => {
    let pid: number;
    try {
      pid = Number(readFileSync(join(data, 'run', `hive-metastore-${chosen}.pid`), 'utf8').trim());
    } catch {
      return false;
    }
    try {
      process.kill(pid, 'SIGKILL');
      return true;
    } catch {
      return false;
    }
  };
  // The daemon outlives the test process unless `close` stops it: a process that ends first (the
  // exit watchdog, a runner's timeout, a failed `before`) kills it on its way out.
  process.on('exit', kill);
  return {
    host: '127.0.0.1',
    port: chosen,
    uri: `thrift://127.0.0.1:${chosen}`,
    start: async () => void (await service('start')),
    stop: async () => void (await service('stop')),
    kill,
    isUp,
    async close() {
      process.off('exit', kill);
      await service('purge').catch(() => {});
      await rm(data, { recursive: true, force: true });
    },
  };
}
