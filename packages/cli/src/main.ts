/**
 * The `tributary` command (bin/tributary.js starts it on the pinned Node 24). Commander parses the
 * command line: subcommands with their own --help, --version, typed option errors — what
 * node:util parseArgs leaves to hand-written code.
 */
import { Command } from 'commander';
import { TRIBUTARY_VERSION } from '@tributary/table';
import { apiClient, ApiError } from './client.ts';
import { CONFIG_FILE_ENV, CONFIG_KEYS, type Config, type KeySpec, type Role } from './config/keys.ts';
import { ConfigError } from './config/load.ts';
import { loadConfig } from './config/read.ts';
import { UsageError } from './commands/args.ts';
import { scheduleCommands } from './commands/schedule.ts';
import { syncCommands } from './commands/sync.ts';
import { tableCommands } from './commands/table.ts';

const flagKeys = (role: Role) => Object.entries(CONFIG_KEYS).filter(([, s]: [string, KeySpec]) => s.flag !== undefined && s.usedBy.includes(role)) as [keyof Config, KeySpec][];
const camel = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The configuration keys that have a flag, as options of `command`. */
function withKeyFlags(command: Command, role: Role): Command {
  for (const [, spec] of flagKeys(role)) {
    const def = spec.defaultDoc ?? (spec.default === undefined ? 'unset' : spec.default);
    command.option(`--${spec.flag} <value>`, `${spec.doc} [${spec.env}; default ${def}]`);
  }
  return command;
}

/** The configuration of `command`'s process; a bad one exits (2, a worker 1) with a line per key. */
function configFor(command: Command, role: Role): Config {
  const options = command.optsWithGlobals<Record<string, string | undefined>>();
  const flags: Partial<Record<keyof Config, string>> = {};
  for (const [key, spec] of flagKeys(role)) {
    const value = options[camel(spec.flag ?? '')];
    if (value !== undefined) flags[key] = value;
  }
  try {
    return loadConfig(process.env, flags, options.config).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.error(`${role === 'client' ? 'tributary' : role}: configuration: ${problem}`);
    process.exit(role === 'worker' ? 1 : 2);
  }
}

const program = new Command('tributary')
  .description('Load a sharded source into one Apache Paimon table, one snapshot per load.')
  .version(TRIBUTARY_VERSION)
  .option('--config <file>', `a JSON configuration file [${CONFIG_FILE_ENV}] (docs/configuration.md)`)
  .showHelpAfterError('(add --help for usage)');

withKeyFlags(program.command('coordinator').description('start a coordinator: the REST API, the dashboard and the two-phase commit'), 'coordinator').action(
  // Loaded when run: --help and the REST commands need none of the coordinator's dependencies.
  async (_o: unknown, command: Command) => {
    const config = configFor(command, 'coordinator');
    await (await import('./commands/coordinator.ts')).runCoordinator(config);
  },
);

withKeyFlags(program.command('worker').description('start a shard worker; start as many as you like, on any machine that reaches Redis and S3'), 'worker').action(
  async (_o: unknown, command: Command) => {
    const config = configFor(command, 'worker');
    await (await import('./commands/worker.ts')).runWorker(config);
  },
);

const apiFor = (command: Command) => {
  const config = configFor(command, 'client');
  return apiClient(config['client.url'], config['client.token']);
};
syncCommands(program, apiFor);
tableCommands(program, apiFor);
scheduleCommands(program, apiFor);
for (const group of program.commands.filter((c) => ['sync', 'table', 'schedule'].includes(c.name()))) {
  for (const leaf of group.commands) withKeyFlags(leaf, 'client');
}

try {
  await program.parseAsync();
} catch (error) {
  if (!(error instanceof ApiError || error instanceof UsageError)) throw error;
  console.error(`tributary: ${error.message}`);
  process.exitCode = 1;
}
