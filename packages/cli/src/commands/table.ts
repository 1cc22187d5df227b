/** `tributary table create|list|show|snapshots|files|read|drop`: the /v1/tables routes. */
import type { Command } from 'commander';
import { intArg, jsonArg, listArg, printAnswer, printJson, tableName, tablePath, UsageError } from './args.ts';
import type { ApiFor } from './sync.ts';

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
    .option('--json', 'print the API’s answer as JSON')
    .action(async (o: { database?: string; json?: boolean }, command: Command) => {
      const query = o.database === undefined ? '' : `?${new URLSearchParams({ database: o.database }).toString()}`;
      const answer = await apiFor(command).request('GET', `/v1/tables${query}`);
      if (o.json === true) printJson(answer);
      else printAnswer(answer);
    });

  table
    .command('show <database.table>')
    .description('a table: schema, latest snapshot, file and row counts')
    .action(async (name: string, _o: unknown, command: Command) => {
      printJson(await apiFor(command).request('GET', tablePath(name)));
    });

  table
    .command('snapshots <database.table>')
    .description('the table’s snapshots')
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { json?: boolean }, command: Command) => {
      const answer = await apiFor(command).request('GET', `${tablePath(name)}/snapshots`);
      if (o.json === true) printJson(answer);
      else printAnswer(answer);
    });

  table
    .command('files <database.table>')
    .description('the data files of a snapshot (default: the latest)')
    .option('--snapshot <id>', 'this snapshot', intArg('--snapshot', 1))
    .option('--json', 'print the API’s answer as JSON')
    .action(async (name: string, o: { snapshot?: number; json?: boolean }, command: Command) => {
      const query = o.snapshot === undefined ? '' : `?snapshot=${o.snapshot}`;
      const answer = await apiFor(command).request('GET', `${tablePath(name)}/files${query}`);
      if (o.json === true) printJson(answer);
      else printAnswer(answer);
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
      const answer = await apiFor(command).request('GET', `${tablePath(name)}/rows?${query.toString()}`);
      if (o.json === true) printJson(answer);
      else printAnswer(answer);
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
