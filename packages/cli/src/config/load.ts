/**
 * Resolves the configuration from its sources, pure: flags > environment > file > defaults. Every
 * key is validated by its schema (keys.ts); all bad values are reported at once, each naming its key
 * and where the value came from, never the value itself (it may be a secret). An empty variable
 * counts as unset, as it always has.
 */
import { CONFIG_KEYS, ConfigSchema, type Config, type ConfigKey, type KeySpec } from './keys.ts';

export type ValueSource = 'flag' | 'environment' | 'file' | 'default';

export interface ConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Flag values by key, as given on the command line. */
  readonly flags?: Readonly<Partial<Record<ConfigKey, string>>>;
  /** A configuration file's path (for messages) and its parsed JSON. */
  readonly file?: { readonly path: string; readonly json: unknown };
}

export interface ResolvedConfig {
  readonly config: Config;
  readonly sources: Readonly<Partial<Record<ConfigKey, ValueSource>>>;
}

/** A configuration that cannot be used; `problems` are one line each, naming the key. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const keys = Object.keys(CONFIG_KEYS) as ConfigKey[];
const specOf = (key: ConfigKey): KeySpec => CONFIG_KEYS[key];

export function resolveConfig(input: ConfigInput): ResolvedConfig {
  const problems: string[] = [];
  const fromFile = input.file === undefined ? new Map<string, unknown>() : flattenFile(input.file.path, input.file.json, problems);
  const raw: Record<string, unknown> = {};
  const sources: Partial<Record<ConfigKey, ValueSource>> = {};
  const where: Partial<Record<ConfigKey, string>> = {};
  for (const key of keys) {
    const spec = specOf(key);
    const flag = input.flags?.[key];
    const env = input.env[spec.env];
    if (flag !== undefined) {
      raw[key] = flag;
      sources[key] = 'flag';
      where[key] = `flag --${spec.flag ?? key}`;
    } else if (env !== undefined && env !== '') {
      raw[key] = env;
      sources[key] = 'environment';
      where[key] = `environment variable ${spec.env}`;
    } else if (fromFile.has(key)) {
      raw[key] = fromFile.get(key);
      sources[key] = 'file';
      where[key] = `file ${input.file?.path ?? ''}`;
    } else if (spec.default !== undefined) {
      raw[key] = spec.default;
      sources[key] = 'default';
      where[key] = 'default';
    }
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0])));
    for (const key of keys.filter((k) => bad.has(k))) {
      problems.push(`${key} (${where[key] ?? 'unset'}) must be ${specOf(key).expect}`);
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const config = { ...parsed.data };
  if (config.warehouse === undefined) config.warehouse = `s3://${config['s3.bucket']}/warehouse`;
  return { config, sources };
}

/** `{"redis": {"port": 1}}` → `redis.port`; an unknown key (a typo) is a problem, not ignored. */
function flattenFile(path: string, json: unknown, problems: string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const known = new Set<string>(keys);
  const walk = (value: unknown, prefix: string): void => {
    if (prefix !== '' && known.has(prefix)) {
      out.set(prefix, value);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`file ${path}: ${prefix === '' ? 'must hold a JSON object' : `unknown key ${prefix}`}`);
      return;
    }
    for (const [name, inner] of Object.entries(value)) {
      const key = prefix === '' ? name : `${prefix}.${name}`;
      if (!known.has(key) && ![...known].some((k) => k.startsWith(`${key}.`))) {
        problems.push(`file ${path}: unknown key ${key}`);
        continue;
      }
      walk(inner, key);
    }
  };
  walk(json, '');
  return out;
}

/**
 * The configuration as the environment variables it replaces, over `base` (the process's own
 * environment, which connections' `passwordEnv` names are read from): for the parsers that read
 * variables (the cluster secret, the coordinator's security settings, source access).
 */
export function configAsEnv(config: Config, base: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const key of keys) {
    const value: unknown = config[key];
    env[specOf(key).env] =
      value === undefined ? undefined : Array.isArray(value) ? value.join(',') : typeof value === 'boolean' ? (value ? '1' : '') : String(value);
  }
  return env;
}
