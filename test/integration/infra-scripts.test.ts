// The infra/ scripts are idempotent: starting a service twice leaves one server running, and its
// stop script leaves no process behind. Each case runs on its own port and data directory so it
// never touches the services the other tests use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where postgres.sh puts a cluster that the `postgres` user cannot reach under the data directory. */
const privatePostgresDir = (data: string) =>
  `/var/tmp/tributary-postgres-${createHash('md5').update(data).digest('hex').slice(0, 12)}`;

const cases = [
  { name: 'redis', service: 'redis', env: { TRIBUTARY_REDIS_PORT: '6490' }, mode: 0o755, dirs: (d: string) => [d] },
  { name: 'minio', service: 'minio', env: { TRIBUTARY_MINIO_PORT: '9190' }, mode: 0o755, dirs: (d: string) => [d] },
  { name: 'mariadb', service: 'mariadb', env: { TRIBUTARY_MARIADB_PORT: '3490' }, mode: 0o755, dirs: (d: string) => [d] },
  { name: 'postgres', service: 'postgres', env: { TRIBUTARY_POSTGRES_PORT: '5540' }, mode: 0o755, dirs: (d: string) => [d] },
  { name: 'hive-metastore', service: 'hive-metastore', env: { TRIBUTARY_HIVE_METASTORE_PORT: '9383' }, mode: 0o755, dirs: (d: string) => [d] },
  // A repository under a private home: the server user cannot enter the data directory.
  {
    name: 'postgres, private data directory',
    service: 'postgres',
    env: { TRIBUTARY_POSTGRES_PORT: '5541' },
    mode: 0o700,
    dirs: (d: string) => [d, privatePostgresDir(d)],
  },
] as const;

interface Proc {
  readonly pid: string;
  readonly ppid: string;
  readonly args: string;
}

/**
 * The processes that belong to a data directory: their command line names it, or they run inside
 * it (redis-server rewrites its command line but works in its --dir).
 */
function processesUsing(dirs: readonly string[]): Proc[] {
  const found: Proc[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ')'.
      const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] ?? '';
      if (dirs.some((dir) => args.includes(dir) || cwd.startsWith(dir))) found.push({ pid, ppid, args });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** The servers themselves, without their worker children (PostgreSQL forks a backend per connection). */
function servers(procs: readonly Proc[]): string[] {
  const pids = new Set(procs.map((p) => p.pid));
  return procs.filter((p) => !pids.has(p.ppid)).map((p) => `${p.pid} ${p.args}`).sort();
}

for (const { name, service, env, mode, dirs } of cases) {
  test(`infra/${service}.sh (${name}): start twice, then stop, leaves no process`, async () => {
    const data = mkdtempSync(join(tmpdir(), `tributary-infra-${service}-`));
    chmodSync(data, mode);
    const processes = () => processesUsing(dirs(data));
    const run = (action: string) =>
      execFileSync('bash', [`infra/${service}.sh`, action], {
        env: { ...process.env, ...env, TRIBUTARY_DATA: data },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    try {
      run('start');
      const first = servers(processes());
      run('start');
      const second = servers(processes());
      assert.ok(first.length >= 1, `${service} runs after the first start`);
      assert.deepEqual(second, first, `the second start changes nothing`);
      assert.match(run('status'), /up on 127\.0\.0\.1/);
    } finally {
      run('stop');
    }
    // Servers may take a moment to unwind after their stop command returns.
    const deadline = Date.now() + 10_000;
    while (processes().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(processes().map((p) => `${p.pid} ${p.args}`), [], `no ${service} process is left`);
    for (const dir of dirs(data)) rmSync(dir, { recursive: true, force: true });
  });
}
