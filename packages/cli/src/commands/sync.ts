/** `tributary sync start|status|watch|abort|list`: the /v1/syncs routes. */
import type { Command } from 'commander';
import type { Api } from '../client.ts';
import { sampleSync, watchSync } from '../watch/run.ts';
import { progressOf, summaryLine } from '../watch/format.ts';
import { intArg, jsonArg, printColumns, printJson, tableName, UsageError } from './args.ts';

export type ApiFor = (command: Command) => Api;

interface SyncSummary {
  readonly id: string;
  readonly phase: string;
  readonly table: { readonly database: string; readonly table: string };
  readonly shards: number;
  readonly snapshotId: number | null;
  readonly timings: Record<string, string>;
}

/** GET /v1/syncs/{id}/status: the summary with shard counts (rows once the shards are frozen). */
interface SyncStatus extends SyncSummary {
  readonly reason: { readonly code: string; readonly message: string } | null;
  readonly shardCounts: { readonly total: number; readonly accepted: number; readonly attempted: number };
  readonly rowsRead: number | null;
}

/** One line of `sync status --brief`. */
function briefLine(s: SyncStatus): string {
  const rows = s.rowsRead === null ? '' : ` rows ${s.rowsRead.toLocaleString('en')}`;
  const outcome = s.snapshotId !== null ? ` snapshot ${s.snapshotId}` : s.reason !== null ? ` ${s.reason.code}: ${s.reason.message}` : '';
  return `${s.id} ${s.phase} ${s.table.database}.${s.table.table} shards ${s.shardCounts.accepted}/${s.shardCounts.total}${rows}${outcome}`;
}

/** Exit code of `watch` (and `start --watch`): 0 committed, 1 aborted. */
const exitFor = (phase: string) => (phase === 'COMMITTED' ? 0 : 1);

export function syncCommands(parent: Command, apiFor: ApiFor): void {
  const sync = parent.command('sync').description('start, inspect, watch, abort and list syncs');

  sync
    .command('start')
    .description('start a sync; prints its id (or, with --watch, its progress until it ends)')
    .option('--request <json>', 'the whole request body, inline, @file or @- (stdin)')
    .option('--table <database.table>', 'the target table')
    .option('--source <json>', 'the source, inline, @file or @-: e.g. {"kind":"generator","shards":4,"rowsPerShard":1000}')
    .option('--mode <mode>', 'append or overwrite')
    .option('--idempotency-key <key>', 'a retried start with the same key returns the same sync')
    .option('--watch', 'then watch it until it ends (exit 0 committed, 1 aborted)')
    .option('--interval <ms>', 'with --watch: poll interval', intArg('--interval', 100), 1000)
    .option('--json', 'print the answer as JSON')
    .action(async (o: { request?: string; table?: string; source?: string; mode?: string; idempotencyKey?: string; watch?: boolean; interval: number; json?: boolean }, command: Command) => {
      let body: Record<string, unknown>;
      if (o.request !== undefined) {
        if (o.table !== undefined || o.source !== undefined) throw new UsageError('give either --request or --table and --source');
        body = jsonArg('--request', o.request) as Record<string, unknown>;
      } else {
        if (o.table === undefined || o.source === undefined) throw new UsageError('--table and --source are required (or --request)');
        body = { table: tableName(o.table), source: jsonArg('--source', o.source) };
      }
      if (o.mode !== undefined) body = { ...body, mode: o.mode };
      const api = apiFor(command);
      const headers = o.idempotencyKey === undefined ? undefined : { 'idempotency-key': o.idempotencyKey };
      const started = await api.request<{ id: string; phase: string; created: boolean }>('POST', '/v1/syncs', body, headers);
      if (o.json === true) printJson(started);
      else if (o.watch === true) console.error(`started sync ${started.id}${started.created ? '' : ' (already started with this idempotency key)'}`);
      else console.log(started.id);
      if (o.watch === true) process.exitCode = exitFor((await watchSync(api, started.id, { out: process.stdout, intervalMs: o.interval })).phase);
    });

  sync
    .command('status <id>')
    .description('a sync: phase, shards done, rows, snapshot or the reason it aborted')
    .option('--brief', 'one line from the light status route (no shard list; rows once the shards are frozen)')
    .option('--json', 'print the API’s answer as JSON')
    .action(async (id: string, o: { brief?: boolean; json?: boolean }, command: Command) => {
      const api = apiFor(command);
      if (o.brief === true) {
        const status = await api.request<SyncStatus>('GET', `/v1/syncs/${encodeURIComponent(id)}/status`);
        if (o.json === true) printJson(status);
        else console.log(briefLine(status));
        return;
      }
      if (o.json === true) {
        printJson(await api.request('GET', `/v1/syncs/${encodeURIComponent(id)}`));
        return;
      }
      const sample = await sampleSync(api, id);
      const progress = progressOf(sample, new Map(), sample.at);
      console.log(`sync ${sample.id}`);
      console.log(summaryLine(sample, progress, 0).replace(/\s+\(0\.0 s\)/, ''));
      for (const s of progress.shards.filter((x) => x.status !== 'done')) console.log(`  ${s.id} ${s.status}${s.rows === null ? '' : ` ${s.rows} rows`}`);
    });

  sync
    .command('watch <id>')
    .description('draw per-shard progress with rows/s and ETA until the sync ends (exit 0 committed, 1 aborted)')
    .option('--interval <ms>', 'poll interval', intArg('--interval', 100), 1000)
    .action(async (id: string, o: { interval: number }, command: Command) => {
      process.exitCode = exitFor((await watchSync(apiFor(command), id, { out: process.stdout, intervalMs: o.interval })).phase);
    });

  sync
    .command('abort <id>')
    .description('abort a sync that has not started its commit')
    .option('--reason <text>', 'why, recorded in the sync')
    .action(async (id: string, o: { reason?: string }, command: Command) => {
      const answer = await apiFor(command).request<{ id: string; phase: string }>('POST', `/v1/syncs/${encodeURIComponent(id)}/abort`, o.reason === undefined ? {} : { reason: o.reason });
      console.log(`${answer.id} ${answer.phase}`);
    });

  sync
    .command('list')
    .description('syncs, newest first')
    .option('--state <phase>', 'only syncs in this phase (PLANNED, PREPARING, MERGING, COMMITTING, COMMITTED, ABORTING, ABORTED)')
    .option('--database <name>', 'only syncs into this database')
    .option('--table <name>', 'only syncs into tables of this name')
    .option('--limit <n>', 'at most this many (more than 500 are read a page at a time)', intArg('--limit', 1), 50)
    .option('--json', 'print the API’s answer as JSON')
    .action(async (o: { state?: string; database?: string; table?: string; limit: number; json?: boolean }, command: Command) => {
      const query = new URLSearchParams();
      if (o.state !== undefined) query.set('state', o.state);
      if (o.database !== undefined) query.set('database', o.database);
      if (o.table !== undefined) query.set('table', o.table);
      const api = apiFor(command);
      const syncs: SyncSummary[] = [];
      for (let cursor: string | null = null; syncs.length < o.limit; ) {
        query.set('limit', String(Math.min(SYNC_PAGE, o.limit - syncs.length)));
        if (cursor !== null) query.set('cursor', cursor);
        const page: { syncs: SyncSummary[]; nextCursor: string | null } = await api.request('GET', `/v1/syncs?${query.toString()}`);
        syncs.push(...page.syncs);
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      if (o.json === true) return printJson({ syncs });
      printColumns(
        ['ID', 'PHASE', 'TABLE', 'SHARDS', 'SNAPSHOT', 'STARTED'],
        syncs.map((s) => [s.id, s.phase, `${s.table.database}.${s.table.table}`, String(s.shards), s.snapshotId === null ? '-' : String(s.snapshotId), s.timings.PLANNED ?? '-']),
      );
    });
}

/** The most syncs GET /v1/syncs answers at once. */
const SYNC_PAGE = 500;
