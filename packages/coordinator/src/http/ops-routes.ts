/**
 * What operators and orchestrators call: `/healthz` (the process answers), `/readyz` (Redis,
 * storage and a jdbc/hive catalog answer and the coordinator is not shutting down; 503 naming what
 * is not ready) and
 * `/metrics` (Prometheus text). Their roles are auth.ts's: GET needs `read` unless the path is in
 * TRIBUTARY_AUTH_PUBLIC (default `/healthz` only); they are not rate limited. Not in the OpenAPI
 * document (not the API).
 *
 * And the request log: one JSON line per request with its id, method, route, path without the query
 * string, status, duration, the token's name and the sync id a /v1/syncs/{id} route names. Never a
 * header (Authorization, cookies), a query string or a body.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Readiness } from '@tributary/protocol';

export interface OpsDeps {
  readonly readiness?: () => Promise<Readiness>;
  readonly metrics?: Registry;
}

/** Not rate limited: the rate limit counts in Redis, and these must answer (503) while Redis is away. */
const OPS = { schema: { hide: true }, config: { rateLimit: false } } as const;

export function registerOpsRoutes(app: FastifyInstance, deps: OpsDeps): void {
  app.get('/healthz', OPS, () => ({ ok: true }));
  app.get('/readyz', OPS, async (_request, reply) => {
    const readiness = (await deps.readiness?.()) ?? { ready: true, checks: {} };
    return reply.status(readiness.ready ? 200 : 503).header('cache-control', 'no-store').send(readiness);
  });
  const registry = deps.metrics;
  if (registry !== undefined) {
    app.get('/metrics', OPS, async (_request, reply) => reply.type(registry.contentType).header('cache-control', 'no-store').send(await registry.metrics()));
  }
}

export function registerRequestLog(app: FastifyInstance): void {
  // The line is built here of the fields below only (never a header, a query string or a body), so
  // it is written without the process logger's redaction, whose wildcard paths walk every field of
  // every line: about a twentieth of a small request's CPU under load. Fastify's per-request
  // logger is not used for it either; the request id is one of the fields.
  const log = app.log.child({}, { redact: [] });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    const params = request.params as Record<string, unknown> | undefined;
    const syncId = route?.startsWith('/v1/syncs/:id') === true && typeof params?.id === 'string' ? params.id : undefined;
    const status = reply.statusCode;
    const line = {
      reqId: request.id,
      method: request.method,
      route,
      path: request.url.split('?')[0],
      status,
      durationMs: Math.round(reply.elapsedTime),
      ...(syncId === undefined ? {} : { syncId }),
      ...(request.principal === undefined ? {} : { token: request.principal.name }),
    };
    if (status >= 500) log.error(line, 'request failed');
    else log.info(line, 'request');
  });
}
