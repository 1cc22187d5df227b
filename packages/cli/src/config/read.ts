/**
 * The edge of the configuration: reads the file named by `--config` or TRIBUTARY_CONFIG and
 * resolves it with the environment and the flags (load.ts).
 */
import { readFileSync } from 'node:fs';
import { CONFIG_FILE_ENV } from './keys.ts';
import { ConfigError, resolveConfig, type ConfigInput, type ResolvedConfig } from './load.ts';

export function loadConfig(env: NodeJS.ProcessEnv, flags: ConfigInput['flags'], configPath: string | undefined): ResolvedConfig {
  const path = configPath ?? (env[CONFIG_FILE_ENV] === '' ? undefined : env[CONFIG_FILE_ENV]);
  if (path === undefined) return resolveConfig({ env, flags });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`configuration file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the error, which may be a secret: not shown.
    throw new ConfigError([`configuration file ${path} is not valid JSON`]);
  }
  return resolveConfig({ env, flags, file: { path, json } });
}
