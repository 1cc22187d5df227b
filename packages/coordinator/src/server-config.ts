/**
 * The coordinator's security and limit settings from the environment (the CLI's configuration, packages/cli, gives the rest).
 * Token files are read here, at the edge; their entries are parsed by auth-tokens.ts. Nothing read
 * here is ever printed: errors name the variable or file and the entry's position only.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { errorFrom } from '@tributary/protocol';
import { DEFAULT_RATE_LIMIT } from './http/rate-limit.ts';
import { parseTokenEntries, type AuthToken } from './auth-tokens.ts';
import { coordinatorErrors } from './errors.ts';
import { isLoopback } from './loopback.ts';
import type { AuthOptions } from './http/auth.ts';
import { DEFAULT_LIMITS, type SyncLimits } from './sync/service.ts';
import { DEFAULT_SCHEDULE_LIMITS, type ScheduleLimits } from './schedule/service.ts';

export interface SecurityConfig {
  readonly auth: AuthOptions;
  readonly rateLimit: { readonly max: number; readonly timeWindowMs: number };
  readonly limits: Required<SyncLimits>;
  readonly scheduleLimits: Required<ScheduleLimits>;
  readonly testMode: boolean;
}

export function securityFromEnv(env: NodeJS.ProcessEnv): SecurityConfig {
  const tokens: AuthToken[] = [];
  const file = env.TRIBUTARY_AUTH_TOKENS_FILE;
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw errorFrom(coordinatorErrors, 'AUTH_CONFIG_INVALID', `TRIBUTARY_AUTH_TOKENS_FILE cannot be read (${reason})`, { source: 'TRIBUTARY_AUTH_TOKENS_FILE' });
    }
    tokens.push(...parseTokenEntries(text, 'TRIBUTARY_AUTH_TOKENS_FILE'));
  }
  tokens.push(...parseTokenEntries(env.TRIBUTARY_AUTH_TOKENS ?? '', 'TRIBUTARY_AUTH_TOKENS'));
  const publicRoutes = (env.TRIBUTARY_AUTH_PUBLIC ?? '/healthz')
    .split(/[\s,]+/)
    .filter((p) => p !== '');
  const trustProxy = proxies(env);
  if (trustProxy.length > 0 && tokens.length === 0) {
    // An open coordinator answers loopback callers only: a forwarded address must not stand in for one.
    throw errorFrom(coordinatorErrors, 'AUTH_CONFIG_INVALID', 'TRIBUTARY_TRUST_PROXY needs tokens (TRIBUTARY_AUTH_TOKENS or TRIBUTARY_AUTH_TOKENS_FILE): an open coordinator trusts no forwarded header', { source: 'TRIBUTARY_TRUST_PROXY' });
  }
  return {
    auth: { tokens, publicRoutes, ...(trustProxy.length === 0 ? {} : { trustProxy }) },
    rateLimit: {
      max: positiveInt(env, 'TRIBUTARY_RATE_LIMIT', DEFAULT_RATE_LIMIT.max),
      timeWindowMs: positiveInt(env, 'TRIBUTARY_RATE_WINDOW_MS', DEFAULT_RATE_LIMIT.timeWindowMs),
    },
    limits: {
      maxShards: positiveInt(env, 'TRIBUTARY_MAX_SHARDS', DEFAULT_LIMITS.maxShards),
      maxActive: positiveInt(env, 'TRIBUTARY_MAX_ACTIVE_SYNCS', DEFAULT_LIMITS.maxActive),
      maxActivePerTable: positiveInt(env, 'TRIBUTARY_MAX_ACTIVE_SYNCS_PER_TABLE', DEFAULT_LIMITS.maxActivePerTable),
    },
    scheduleLimits: {
      maxSchedules: positiveInt(env, 'TRIBUTARY_MAX_SCHEDULES', DEFAULT_SCHEDULE_LIMITS.maxSchedules),
      minIntervalMs: boundedInt(env, 'TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', DEFAULT_SCHEDULE_LIMITS.minIntervalMs, 0, MAX_SCHEDULE_MIN_INTERVAL_MS),
    },
    testMode: env.TRIBUTARY_TEST_MODE === '1',
  };
}

/** Names of address ranges a proxy entry may use (proxy-addr's, which Fastify's trustProxy reads). */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRIBUTARY_TRUST_PROXY: the reverse proxies whose forwarded headers are believed, separated by
 * commas or blanks; each an IPv4 or IPv6 address, a CIDR range of one, or a range name. Anything
 * else (`true`, `*`, a host name) is refused: trusting every peer would let any caller choose its
 * own address for the rate limit.
 */
function proxies(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.TRIBUTARY_TRUST_PROXY ?? '').split(/[\s,]+/).filter((p) => p !== '');
  entries.forEach((entry, index) => {
    if (!validProxy(entry)) {
      throw errorFrom(
        coordinatorErrors,
        'REQUEST_INVALID',
        `TRIBUTARY_TRUST_PROXY entry ${index + 1} is not an IP address, a CIDR range or one of ${[...PROXY_RANGES].join(', ')}`,
        { variable: 'TRIBUTARY_TRUST_PROXY' },
      );
    }
  });
  return entries;
}

function validProxy(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash === -1) return true;
  const bits = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** The highest minimum between two fires of a schedule: one day (a daily schedule always passes). */
export const MAX_SCHEDULE_MIN_INTERVAL_MS = 86_400_000;

function boundedInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw errorFrom(coordinatorErrors, 'REQUEST_INVALID', `${name} must be an integer from ${min} to ${max}`, { variable: name });
  }
  return value;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw errorFrom(coordinatorErrors, 'REQUEST_INVALID', `${name} must be a positive integer`, { variable: name });
  }
  return value;
}

