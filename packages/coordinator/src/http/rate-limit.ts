/**
 * A request rate limit per token (per client address when auth is off), with @fastify/rate-limit's
 * counters (in Redis when given, so every coordinator of a deployment counts together). It runs as
 * one onRequest hook after authentication, which names the key, and answers 429 problem+json itself
 * with Retry-After. Configured public routes (`config.rateLimit: false`) are not counted.
 */
import type { FastifyInstance } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { sendError } from './problem.ts';

export interface RateLimitOptions {
  /** Requests per window and key (a token's name, or the client address when auth is off). */
  readonly max: number;
  readonly timeWindowMs: number;
  /** Counts in Redis, shared by every coordinator of the deployment (in memory without). */
  readonly redis?: Redis;
  readonly keyPrefix?: string;
}

export const DEFAULT_RATE_LIMIT = { max: 6000, timeWindowMs: 60_000 } as const;

/** Where the counters are in Redis: `<nameSpace><key>`, the key a token's (`token:<name>`) or an address's (`ip:<address>`). */
function rateLimitNameSpace(keyPrefix: string | undefined): string {
  return `${keyPrefix ?? 'tributary'}:rate-limit:`;
}

/** Call after registerAuth (its hook sets `request.principal`) and before any route. */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  // The limit is the plugin's own (global: false, so no route gets its hook) and createRateLimit is
  // called without options: given options, it counts in a child store keyed by a route it is not
  // told (`<nameSpace>undefinedundefined-<key>`); so the key is `<prefix>:rate-limit:token:<name>`.
  await app.register(fastifyRateLimit, {
    global: false,
    max: options.max,
    timeWindow: options.timeWindowMs,
    keyGenerator: (request) => request.principal?.key ?? `ip:${request.ip}`,
    ...(options.redis === undefined ? {} : { redis: options.redis, nameSpace: rateLimitNameSpace(options.keyPrefix) }),
  });
  const limit = app.createRateLimit();
  app.addHook('onRequest', async (request, reply) => {
    if ((request.routeOptions.config as { rateLimit?: unknown }).rateLimit === false) return undefined;
    const result = await limit(request);
    if (result.isAllowed || !result.isExceeded) return undefined;
    const retryAfterSeconds = Math.max(1, result.ttlInSeconds);
    return sendError(
      reply,
      errorFrom(coordinatorErrors, 'RATE_LIMITED', `more than ${result.max} requests in ${Math.round(result.timeWindow / 1000)} s`, {
        limit: result.max,
        retryAfterSeconds,
      }),
    );
  });
}
