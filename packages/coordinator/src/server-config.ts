/**
 * The coordinator's security and limit settings from the environment (the CLI's configuration, packages/cli, gives the rest).
 * Token files are read here, at the edge; their entries are parsed by auth-tokens.ts. Nothing read
 * here is ever printed: errors name the variable or file and the entry's position only.
 */
import { readFileSync } from 'node:fs';
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
  return {
    auth: { tokens, publicRoutes },
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

