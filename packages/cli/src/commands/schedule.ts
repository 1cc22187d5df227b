/** `tributary schedule put|list|show|delete`: the /v1/schedules routes. */
import type { Command } from 'commander';
import { allPages } from '../client.ts';
import { intArg, jsonArg, printColumns, printJson, UsageError } from './args.ts';
import type { ApiFor } from './sync.ts';

interface ScheduleSummary {
  readonly id: string;
  readonly cron: string;
  readonly tz: string;
  readonly enabled: boolean;
  readonly sync?: { readonly table: { readonly database: string; readonly table: string } };
  readonly compaction?: { readonly table: { readonly database: string; readonly table: string }; readonly full: boolean };
  readonly nextRunAt: string | null;
}

export function scheduleCommands(parent: Command, apiFor: ApiFor): void {
  const schedule = parent.command('schedule').description('syncs or compactions started on a cron pattern');
  const path = (id: string) => `/v1/schedules/${encodeURIComponent(id)}`;

  schedule
    .command('put <id>')
    .description('create or replace a schedule (operate)')
    .option('--request <json>', 'the whole request body, inline, @file or @- (stdin)')
    .option('--cron <pattern>', '5 fields (minute first) or 6 (second first), e.g. "0 30 2 * * *"')
    .option('--tz <zone>', 'IANA time zone the pattern is read in (default UTC)')
    .option('--sync <json>', 'the sync to start, as for `sync start --request`: inline, @file or @-')
    .option('--compaction <json>', 'or the compaction to start: {"table":{"database":…,"table":…},"full":false,"partitions":[…]}, inline, @file or @-')
    .option('--disabled', 'keep it but do not fire')
    .option('--json', 'print the answer as JSON')
    .action(async (id: string, o: { request?: string; cron?: string; tz?: string; sync?: string; compaction?: string; disabled?: boolean; json?: boolean }, command: Command) => {
      let body: unknown;
      if (o.request !== undefined) {
        if (o.cron !== undefined || o.sync !== undefined || o.compaction !== undefined) throw new UsageError('give either --request or --cron with --sync or --compaction');
        body = jsonArg('--request', o.request);
      } else {
        if (o.cron === undefined || (o.sync === undefined) === (o.compaction === undefined)) throw new UsageError('--cron and one of --sync and --compaction are required (or --request)');
        const what = o.sync !== undefined ? { sync: jsonArg('--sync', o.sync) } : { compaction: jsonArg('--compaction', o.compaction ?? '') };
        body = { cron: o.cron, ...(o.tz === undefined ? {} : { tz: o.tz }), ...what, enabled: o.disabled !== true };
      }
      const answer = await apiFor(command).request<ScheduleSummary & { created: boolean }>('PUT', path(id), body);
      if (o.json === true) printJson(answer);
      else console.log(`${answer.created ? 'created' : 'replaced'} schedule ${answer.id}; next run ${answer.nextRunAt ?? 'never'}`);
    });

  schedule
    .command('list')
    .description('the schedules')
    .option('--json', 'print the API’s answer as JSON')
    .action(async (o: { json?: boolean }, command: Command) => {
      // Every page (the coordinator lists 1,000 at most per page).
      const { items } = await allPages<ScheduleSummary>(apiFor(command), '/v1/schedules', 'schedules');
      if (o.json === true) return printJson({ schedules: items });
      printColumns(
        ['ID', 'CRON', 'TZ', 'ENABLED', 'STARTS', 'TABLE', 'NEXT RUN'],
        items.map((s) => {
          const table = (s.sync ?? s.compaction)?.table;
          return [s.id, s.cron, s.tz, String(s.enabled), s.compaction === undefined ? 'sync' : s.compaction.full ? 'full compaction' : 'compaction', table === undefined ? '-' : `${table.database}.${table.table}`, s.nextRunAt ?? '-'];
        }),
      );
    });

  schedule
    .command('show <id>')
    .description('a schedule: definition, next run, its newest fires with their syncs or compactions')
    .option('--runs <n>', 'fires to show (0-100)', intArg('--runs', 0), 20)
    .action(async (id: string, o: { runs: number }, command: Command) => {
      printJson(await apiFor(command).request('GET', `${path(id)}?runs=${o.runs}`));
    });

  schedule
    .command('delete <id>')
    .description('delete a schedule: it fires no more (operate)')
    .action(async (id: string, _o: unknown, command: Command) => {
      await apiFor(command).request('DELETE', path(id));
      console.log(`deleted schedule ${id}`);
    });
}
