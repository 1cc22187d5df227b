/**
 * While the coordinator's Redis connection is not ready (Redis restarting, unreachable), every
 * request but the ops routes' (`/healthz`, `/readyz`, `/metrics`) is answered at once with 503
 * REDIS_UNAVAILABLE and Retry-After, before anything else runs: the session lookup, the rate limit
 * and every route read Redis, and the connection queues their commands until it is back, so without
 * this gate a request waited, unanswered, as long as Redis was away. Nothing is done for a refused
 * request; the caller retries. A request already running when the connection drops still waits for
 * it (its commands are queued, not lost).
 */
import type { FastifyInstance } from 'fastify';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { sendError } from './problem.ts';

/** Seconds a refused caller is told to wait (ioredis reconnects within a few seconds of Redis being back). */
const RETRY_AFTER_S = 2;

/** Call before every other onRequest hook. `ready` says whether the connection is ready now. */
export function registerRedisGate(app: FastifyInstance, ready: () => boolean): void {
  app.addHook('onRequest', async (request, reply) => {
    if (ready()) return undefined;
    // The ops routes (rateLimit: false) answer without Redis: /readyz says what is not ready.
    if ((request.routeOptions.config as { rateLimit?: unknown } | undefined)?.rateLimit === false) return undefined;
    return sendError(reply, errorFrom(coordinatorErrors, 'REDIS_UNAVAILABLE', 'the coordinator\'s Redis does not answer now; nothing was done', { retryAfterSeconds: RETRY_AFTER_S }));
  });
}
