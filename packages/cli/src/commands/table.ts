/** `tributary table create|list|show|snapshots|files|read|changelog|expire|clean-orphans|compact|compaction|drop`: the /v1/tables routes. */
import type { Command } from 'commander';
import { allPages } from '../client.ts';
import { intArg, jsonArg, listArg, printAnswer, printColumns, printJson, tableName, tablePath, UsageError } from './args.ts';
import type { ApiFor } from './sync.ts';

interface TableSummary {
  readonly database: string;
  readonly table: string;
  readonly primaryKeys: readonly string[];
  readonly partitionKeys: readonly string[];
  readonly bucket: number;
  readonly latestSnapshotId: number | null;
}

interface ChangelogAnswer {
  readonly from: number | null;
  readonly to: number | null;
  readonly nextFrom: number | null;
  readonly keyColumns: readonly string[];
  readonly keys: readonly {
    readonly partition: string;
    readonly bucket: number;
    readonly key: readonly (string | number | boolean | null)[];
    readonly events: readonly { snapshotId: number; commitKind: string; file: string; sequenceNumber: string; rowKind: string; row: readonly unknown[] }[];
    readonly findings: readonly { snapshotId: number; flag: string; event: number | null }[];
  }[];
  readonly counts: Readonly<Record<string, number>>;
  readonly truncated: boolean;
}

interface RowsAnswer {
  readonly snapshotId: number | null;
  readonly columns: readonly { readonly name: string }[];
  readonly rows: readonly (readonly (string | number | boolean | null)[])[];
}

interface CompactionAnswer {
  readonly id: string;
  readonly phase: string;
  readonly jobs: number;
  readonly acceptedJobs: number;
  readonly filesBefore: number;
  readonly filesAfter: number | null;
  readonly snapshotId: number | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

function printCompaction(a: CompactionAnswer): void {
  const files = `${a.filesBefore} files${a.filesAfter === null ? '' : ` -> ${a.filesAfter}`}`;
  const snapshot = a.snapshotId === null ? '' : `, snapshot ${a.snapshotId}`;
  const error = a.error === null ? '' : `: ${a.error.code} ${a.error.message}`;
  console.log(`${a.id} ${a.phase}: ${a.acceptedJobs}/${a.jobs} jobs, ${files}${snapshot}${error}`);
}

export function tableCommands(parent: Command, apiFor: ApiFor): void {
  const table = parent.command('table').description('create, list, inspect, read and drop Paimon tables');

  table
    .command('create [database.table]')
    .description('create a table (admin)')
    .option('--request <json>', 'the whole request body, inline, @file or @- (stdin)')
    .option('--columns <json>', 'columns, inline, @file or @-: [{"name":"id","type":"BIGINT NOT NULL"},…]')
    .option('--primary-keys <names>', 'comma-separated primary key columns (a primary-key table needs --bucket)', listArg)
    .option('--partition-keys <names>', 'comma-separated partition columns', listArg)
    .option('--bucket <n>', 'buckets (-1: unaware, for append tables)', intArg('--bucket', -1))
    .option('--option <key=value...>', 'table options, repeatable')
    .option('--json', 'print the answer as JSON')
    .action(
      async (
        name: string | undefined,
        o: { request?: string; columns?: string; primaryKeys?: string[]; partitionKeys?: string[]; bucket?: number; option?: string[]; json?: boolean },
        command: Command,
      ) => {
        let body: Record<string, unknown>;
        if (o.request !== undefined) {
          if (name !== undefined || o.columns !== undefined) throw new UsageError('give either --request or a name and --columns');
          body = jsonArg('--request', o.request) as Record<string, unknown>;
        } else {
          if (name === undefined || o.columns === undefined) throw new UsageError('a database.table name and --columns are required (or --request)');
          const { database, table: tableName_ } = tableName(name);
          const options = Object.fromEntries(
            (o.option ?? []).map((kv) => {
              const at = kv.indexOf('=');
              if (at < 1) throw new UsageError(`--option takes key=value, not ${JSON.stringify(kv)}`);
              return [kv.slice(0, at), kv.slice(at + 1)];
            }),
          );
          body = {
            database,
            name: tableName_,
            columns: jsonArg('--columns', o.columns),
            ...(o.primaryKeys === undefined ? {} : { primaryKeys: o.primaryKeys }),
            ...(o.partitionKeys === undefined ? {} : { partitionKeys: o.partitionKeys }),
            ...(o.bucket === undefined ? {} : { bucket: o.bucket }),
            ...(Object.keys(options).length === 0 ? {} : { options }),
          };
        }
        const created = await apiFor(command).request<{ database: string; table: string }>('POST', '/v1/tables', body);
        if (o.json === true) printJson(created);
        else console.log(`created ${created.database}.${created.table}`);
      },
    );

  table
    .command('list')
    .description('the tables of the warehouse')
    .option('--database <name>', 'only this database')
    .option('--json', 'print the tables as JSON')
    .action(async (o: { database?: string; json?: boolean }, command: Command) => {
      const all = await allPages<TableSummary>(apiFor(command), '/v1/tables', 'tables');
      const tables = all.items.filter((t) => o.database === undefined || t.database === o.database);
      if (o.json === true) return printJson({ tables });
      printColumns(
        ['TABLE', 'PRIMARY KEYS', 'PARTITION KEYS', 'BUCKETS', 'SNAPSHOT'],
        tables.map((t) => [`${t.database}.${t.table}`, t.primaryKeys.join(',') || '-', t.partitionKeys.join(',') || '-', String(t.bucket), t.latestSnapshotId === null ? '-' : String(t.latestSnapshotId)]),
      );
    });

  table
    .command('show <database.table>')
    .description('a table: schema, latest snapshot, file and row counts')
    .action(async (name: string, _o: unknown, command: Command) => {
      printJson(await apiFor(command).request('GET', tablePath(name)));
    });

  table
    .command('snapshots <database.table>')
    .description('the table’s snapshots, newest first')
    .option('--json', 'print the snapshots as JSON')
    .action(async (name: string, o: { json?: boolean }, command: Command) => {
      const { items } = await allPages(apiFor(command), `${tablePath(name)}/snapshots`, 'snapshots');
      if (o.json === true) printJson({ snapshots: items });
      else printAnswer(items);
    });

  table
    .command('files <database.table>')
    .description('the live data files of a snapshot (default: the latest)')
    .option('--snapshot <id>', 'this snapshot', intArg('--snapshot', 1))
    .option('--json', 'print the files as JSON')
    .action(async (name: string, o: { snapshot?: number; json?: boolean }, command: Command) => {
      const query = o.snapshot === undefined ? '' : `?snapshot=${o.snapshot}`;
      const { items, first } = await allPages(apiFor(command), `${tablePath(name)}/files${query}`, 'files');
      if (o.json === true) return printJson({ snapshotId: first.snapshotId ?? null, files: items });
      console.log(`snapshot ${String(first.snapshotId ?? 'none')}: ${items.length} files`);
      if (items.length > 0) printAnswer(items);
    });

  table
    .command('read <database.table>')
    .description('preview rows of a snapshot (default: the latest)')
    .option('--limit <n>', 'at most this many rows', intArg('--limit', 1), 20)
    .option('--snapshot <id>', 'this snapshot', intArg('--snapshot', 1))
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { limit: number; snapshot?: number; json?: boolean }, command: Command) => {
      const query = new URLSearchParams({ limit: String(o.limit) });
      if (o.snapshot !== undefined) query.set('snapshot', String(o.snapshot));
      const answer = await apiFor(command).request<RowsAnswer>('GET', `${tablePath(name)}/rows?${query.toString()}`);
      if (o.json === true) return printJson(answer);
      printColumns(
        answer.columns.map((c) => c.name),
        answer.rows.map((row) => row.map((cell) => (cell === null ? 'NULL' : String(cell)))),
      );
    });

  table
    .command('changelog <database.table>')
    .description('audit the changelog per key: RowKinds with snapshot, commit kind, file and sequence number, and the anomalies found')
    .option('--from <id>', 'first snapshot (default: the last 20 up to --to)', intArg('--from', 1))
    .option('--to <id>', 'last snapshot (default: the latest)', intArg('--to', 1))
    .option('--key <value...>', 'only this key: one value per primary-key column (without partition keys), in order')
    .option('--limit <n>', 'at most this many keys', intArg('--limit', 1), 100)
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { from?: number; to?: number; key?: string[]; limit: number; json?: boolean }, command: Command) => {
      const query = new URLSearchParams({ limit: String(o.limit) });
      if (o.from !== undefined) query.set('from', String(o.from));
      if (o.to !== undefined) query.set('to', String(o.to));
      for (const value of o.key ?? []) query.append('key', value);
      const answer = await apiFor(command).request<ChangelogAnswer>('GET', `${tablePath(name)}/changelog?${query.toString()}`);
      if (o.json === true) return printJson(answer);
      if (answer.from === null) return console.log('no snapshot');
      const rows: string[][] = [];
      for (const k of answer.keys) {
        k.events.forEach((e, i) => {
          const flags = k.findings.filter((f) => f.event === i).map((f) => f.flag);
          rows.push([k.key.map(String).join(','), String(k.bucket), String(e.snapshotId), e.commitKind, e.rowKind, e.sequenceNumber, e.file, JSON.stringify(e.row), flags.join(' ') || '-']);
        });
        for (const f of k.findings.filter((x) => x.event === null)) rows.push([k.key.map(String).join(','), String(k.bucket), String(f.snapshotId), '-', '-', '-', '-', '-', f.flag]);
      }
      printColumns([answer.keyColumns.join(',').toUpperCase() || 'KEY', 'BUCKET', 'SNAPSHOT', 'COMMIT', 'KIND', 'SEQ', 'FILE', 'ROW', 'FLAGS'], rows);
      const findings = Object.entries(answer.counts).filter(([, n]) => n > 0).map(([flag, n]) => `${flag} ${n}`);
      console.log(`snapshots ${answer.from}..${answer.to}: ${answer.keys.length} keys, ${findings.length === 0 ? 'no anomaly' : findings.join(', ')}` +
        `${answer.truncated ? ' (truncated: raise --limit)' : ''}${answer.nextFrom === null ? '' : `; next: --from ${answer.nextFrom}`}`);
    });

  table
    .command('expire <database.table>')
    .description('expire the snapshots the table’s retention options no longer keep, and the files only they reach (admin)')
    .option('--retain-min <n>', 'override snapshot.num-retained.min', intArg('--retain-min', 1))
    .option('--retain-max <n>', 'override snapshot.num-retained.max', intArg('--retain-max', 1))
    .option('--older-than-ms <ms>', 'override snapshot.time-retained (ms)', intArg('--older-than-ms', 0))
    .option('--limit <n>', 'override snapshot.expire.limit', intArg('--limit', 1))
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { retainMin?: number; retainMax?: number; olderThanMs?: number; limit?: number; json?: boolean }, command: Command) => {
      const given = { retainMin: o.retainMin, retainMax: o.retainMax, timeRetainedMs: o.olderThanMs, maxDeletes: o.limit };
      const body = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
      const answer = await apiFor(command).request<{ expired: number[]; earliestSnapshotId: number | null; deletedDataFiles: number; deletedManifests: number }>(
        'POST',
        `${tablePath(name)}/expirations`,
        body,
      );
      if (o.json === true) return printJson(answer);
      const range = answer.expired.length === 0 ? 'no snapshot expired' : `expired snapshots ${answer.expired[0]}..${answer.expired.at(-1)}`;
      console.log(`${range}; earliest now ${String(answer.earliestSnapshotId ?? 'none')}; deleted ${answer.deletedDataFiles} data files, ${answer.deletedManifests} manifests`);
    });

  table
    .command('clean-orphans <database.table>')
    .description('list the files no snapshot, tag or live sync reaches (table and staging); --delete deletes them (admin)')
    .option('--older-than-ms <ms>', 'guard age: only files at least this old (default one day)', intArg('--older-than-ms', 0))
    .option('--delete', 'delete them (default: a dry run that only lists)')
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { olderThanMs?: number; delete?: boolean; json?: boolean }, command: Command) => {
      const body = { dryRun: o.delete !== true, ...(o.olderThanMs === undefined ? {} : { olderThanMs: o.olderThanMs }) };
      const answer = await apiFor(command).request<{ dryRun: boolean; fileCount: number; bytes: number; files: { key: string; size: number }[]; truncated: boolean }>(
        'POST',
        `${tablePath(name)}/orphan-cleanups`,
        body,
      );
      if (o.json === true) return printJson(answer);
      console.log(`${answer.dryRun ? 'found' : 'deleted'} ${answer.fileCount} orphan files, ${answer.bytes} bytes${answer.dryRun ? ' (dry run: repeat with --delete)' : ''}`);
      if (answer.files.length > 0) printColumns(['SIZE', 'KEY'], answer.files.map((f) => [String(f.size), f.key]));
      if (answer.truncated) console.log(`(the first ${answer.files.length} shown)`);
    });

  table
    .command('compact <database.table>')
    .description('compact the table: one job per (partition, bucket) that needs it, run by the workers, committed as one COMPACT snapshot (admin)')
    .option('--full', 'full compaction: every bucket to one top-level run (append tables: every small file)')
    .option('--partition <dir...>', 'only these partitions, as their directories (dt=2024-01-01/region=eu)')
    .option('--idempotency-key <key>', 'a retried request with the same key returns the same compaction')
    .option('--wait', 'wait until it ends; exit 1 unless COMMITTED')
    .option('--interval <ms>', 'how often --wait asks (default 1000)', intArg('--interval', 100))
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { full?: boolean; partition?: string[]; idempotencyKey?: string; wait?: boolean; interval?: number; json?: boolean }, command: Command) => {
      const api = apiFor(command);
      const body = { full: o.full === true, ...(o.partition === undefined ? {} : { partitions: o.partition }) };
      const headers = o.idempotencyKey === undefined ? undefined : { 'idempotency-key': o.idempotencyKey };
      let answer = await api.request<CompactionAnswer>('POST', `${tablePath(name)}/compactions`, body, headers);
      while (o.wait === true && (answer.phase === 'RUNNING' || answer.phase === 'COMMITTING')) {
        await new Promise((resolve) => setTimeout(resolve, o.interval ?? 1000));
        answer = await api.request<CompactionAnswer>('GET', `${tablePath(name)}/compactions/${encodeURIComponent(answer.id)}`);
      }
      if (o.wait === true && answer.phase !== 'COMMITTED') process.exitCode = 1;
      if (o.json === true) return printJson(answer);
      printCompaction(answer);
    });

  table
    .command('compaction <database.table> <id>')
    .description('a compaction: its phase, jobs, files before and after, its COMPACT snapshot or why it ended without one')
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, id: string, o: { json?: boolean }, command: Command) => {
      const answer = await apiFor(command).request<CompactionAnswer>('GET', `${tablePath(name)}/compactions/${encodeURIComponent(id)}`);
      if (o.json === true) return printJson(answer);
      printCompaction(answer);
    });

  table
    .command('drop <database.table>')
    .description('drop a table and its files (admin; refused while a sync of it runs)')
    .option('--yes', 'really drop it (required: there is no undo)')
    .action(async (name: string, o: { yes?: boolean }, command: Command) => {
      if (o.yes !== true) throw new UsageError(`dropping ${name} deletes its data; repeat with --yes`);
      await apiFor(command).request('DELETE', tablePath(name));
      console.log(`dropped ${name}`);
    });
}
