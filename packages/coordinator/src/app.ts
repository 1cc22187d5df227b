/**
 * The coordinator's HTTP app as a Fastify plugin: zod-validated routes, OpenAPI at /docs, the
 * BullMQ dashboard at /admin/queues, the syncs page at /ui, and one problem+json error handler; every
 * route behind a bearer token and a role (http/auth.ts) and a request rate limit per token; /healthz,
 * /readyz and /metrics (http/ops-routes.ts); one JSON log line per request. It listens nowhere;
 * `tributary coordinator` does (so tests inject requests without a port).
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Readiness } from '@tributary/protocol';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { createBullBoard } from '@bull-board/api';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { TRIBUTARY_VERSION } from '@tributary/table';
import type { SyncService } from './sync/service.ts';
import type { SyncStore } from './sync/store.ts';
import type { Tables } from '@tributary/table';
import { registerMethodNotAllowed } from './http/method-not-allowed.ts';
import { problemJsonResponses } from './http/openapi.ts';
import { frameworkErrorHandler } from './http/framework-errors.ts';
import { registerJsonBody } from './http/json-body.ts';
import { registerProblemHandler } from './http/problem.ts';
import { syncRoutes } from './http/sync-routes.ts';
import { tableRoutes } from './http/table-routes.ts';
import { compactionRoutes } from './http/compaction-routes.ts';
import type { CompactionService } from './compaction/compaction-service.ts';
import { scheduleRoutes } from './http/schedule-routes.ts';
import { registerUi } from './http/ui-routes.ts';
import type { ScheduleService } from './schedule/service.ts';
import { DASHBOARD_PREFIX, registerAuth, registerLogin, type AuthContext, type AuthOptions } from './http/auth.ts';
import type { SessionStore } from './sessions.ts';
import { registerRedisGate } from './http/redis-gate.ts';
import { DEFAULT_RATE_LIMIT, registerRateLimit, type RateLimitOptions } from './http/rate-limit.ts';
import { registerOpsRoutes, registerRequestLog } from './http/ops-routes.ts';
import { dashboardAdapter, refuseJobDataEdits } from './http/dashboard.ts';

export interface AppDeps {
  readonly syncs: SyncService;
  readonly store: SyncStore;
  readonly tables: Tables;
  readonly warehouse: string;
  /** Shown on the dashboard. */
  readonly queues: readonly Queue[];
  /** /v1/schedules is served when given. */
  readonly schedules?: ScheduleService;
  /** /v1/tables/{db}/{table}/compactions is served when given. */
  readonly compactions?: CompactionService;
  /** Tokens and public routes; without, the app is open (`tributary coordinator` allows that on loopback only). */
  readonly auth?: AuthOptions;
  /** The dashboard's login sessions (POST /admin/login, the cookie, POST /admin/logout). */
  readonly sessions: SessionStore;
  readonly rateLimit?: RateLimitOptions;
  /** How long a sync's view (GET /v1/syncs/:id) read at one revision may answer again; default 1 s, 0: never. */
  readonly viewCacheMs?: number;
  /** /readyz: whether Redis and storage answer (and the coordinator is not shutting down); default: always ready. */
  readonly readiness?: () => Promise<Readiness>;
  /** Whether the Redis connection is ready now; while not, every route but the ops ones answers 503 (http/redis-gate.ts). Default: always. */
  readonly redisReady?: () => boolean;
  /** /metrics serves this registry; without, no /metrics route. */
  readonly metrics?: Registry;
}

/** The longest path parameter the router takes; a route's schema sets its own, shorter limit. */
const MAX_PARAM_LENGTH = 2048;

export async function buildApp(deps: AppDeps, options: { logger?: FastifyBaseLogger } = {}): Promise<FastifyInstance> {
  // A path parameter longer than Fastify's default 100 characters would get a bare 414; with room for
  // it, the route's schema refuses it with a documented 400 problem, and one longer still or not
  // valid UTF-8 is refused by frameworkErrors, after auth, as a problem too. Fastify's own request
  // lines are off: registerRequestLog writes one line per request without query string or headers.
  const auth: AuthContext = { ...(deps.auth ?? { tokens: [] }), sessions: deps.sessions };
  const app = Fastify({
    ...(options.logger === undefined ? {} : { loggerInstance: options.logger }),
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler(auth, MAX_PARAM_LENGTH),
    // Forwarded headers only from the configured proxies (http/auth.ts AuthOptions.trustProxy).
    trustProxy: auth.trustProxy !== undefined && auth.trustProxy.length > 0 ? [...auth.trustProxy] : false,
  }).withTypeProvider<ZodTypeProvider>();
  registerRequestLog(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerProblemHandler(app);
  registerNoFraming(app); // before every plugin: their pages (dashboard, docs, login) inherit it
  registerJsonBody(app);
  // First of the onRequest hooks: without Redis, auth's session lookup and the rate limit would wait for it.
  if (deps.redisReady !== undefined) registerRedisGate(app, deps.redisReady);
  // Before any route and in this order (a plugin sees only the hooks added before it): auth's
  // onRoute hook gives every route its role, its onRequest hook names the rate limit's key.
  registerAuth(app, auth);
  registerMethodNotAllowed(app); // after auth: without a token, no path's existence shows
  await registerRateLimit(app, deps.rateLimit ?? DEFAULT_RATE_LIMIT);
  showDashboardReadOnly(app);
  refuseJobDataEdits(app);
  registerLogin(app, auth.tokens, deps.sessions);
  await app.register(fastifySwagger, {
    // 3.1: its schemas are JSON Schema 2020-12, so constraints such as non-empty map keys survive.
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Tributary coordinator', version: TRIBUTARY_VERSION },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A configured token; its role (read < operate < admin) decides what it may do.' } } },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (document) => ('openapiObject' in document ? problemJsonResponses(document.openapiObject) : document.swaggerObject),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  await app.register(tableRoutes, { tables: deps.tables, warehouse: deps.warehouse, store: deps.store, syncs: deps.syncs, ...(deps.compactions === undefined ? {} : { compactions: deps.compactions }) });
  await app.register(syncRoutes, { syncs: deps.syncs, store: deps.store, ...(deps.viewCacheMs === undefined ? {} : { viewCacheMs: deps.viewCacheMs }) });
  if (deps.schedules !== undefined) await app.register(scheduleRoutes, { schedules: deps.schedules });
  if (deps.compactions !== undefined) await app.register(compactionRoutes, { compactions: deps.compactions });
  const board = new FastifyAdapter();
  board.setBasePath('/admin/queues');
  // No role sees a job's secrets there (vote tokens): http/dashboard.ts; Redis's INFO needs admin (http/auth.ts).
  createBullBoard({ queues: deps.queues.map((q) => dashboardAdapter(q)), serverAdapter: board });
  await app.register(board.registerPlugin(), { prefix: DASHBOARD_PREFIX });
  registerUi(app);
  registerOpsRoutes(app, { readiness: deps.readiness, metrics: deps.metrics });
  return app as unknown as FastifyInstance;
}

/**
 * No page of the coordinator may be framed by another (clickjacking the dashboard's buttons, the
 * login form, the docs): every answer says so, X-Frame-Options for older browsers and CSP
 * `frame-ancestors 'none'` unless the route set a fuller policy of its own (the syncs page's has it).
 */
function registerNoFraming(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('x-frame-options')) void reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('content-security-policy')) void reply.header('content-security-policy', "frame-ancestors 'none'");
    return payload;
  });
}

/**
 * A `read` token's dashboard shows no action buttons: its queue listing reports every queue in
 * bull-board's `readOnlyMode`. The routes refuse what a role may not do anyway; this keeps the UI
 * from offering it.
 */
function showDashboardReadOnly(app: FastifyInstance): void {
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.routeOptions.url !== `${DASHBOARD_PREFIX}/api/queues` || request.principal?.role !== 'read' || typeof payload !== 'string') return payload;
    const body = JSON.parse(payload) as { queues?: Record<string, unknown>[] };
    for (const queue of body.queues ?? []) Object.assign(queue, { readOnlyMode: true, allowRetries: false });
    return JSON.stringify(body);
  });
}
