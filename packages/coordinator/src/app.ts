/**
 * The coordinator's HTTP app as a Fastify plugin: zod-validated routes, OpenAPI at /docs, the
 * BullMQ dashboard at /admin/queues, and one problem+json error handler. It listens nowhere;
 * server.ts does (so tests inject requests without a port).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SyncService } from './sync/service.ts';
import type { SyncStore } from './sync/store.ts';
import type { CoordinatorTables } from './table-port.ts';
import { registerProblemHandler } from './http/problem.ts';
import { syncRoutes } from './http/sync-routes.ts';
import { tableRoutes } from './http/table-routes.ts';
import { scheduleRoutes } from './http/schedule-routes.ts';
import type { ScheduleService } from './schedule/service.ts';

export interface AppDeps {
  readonly syncs: SyncService;
  readonly store: SyncStore;
  readonly tables: CoordinatorTables;
  readonly warehouse: string;
  /** Shown on the dashboard. */
  readonly queues: readonly Queue[];
  /** /v1/schedules is served when given. */
  readonly schedules?: ScheduleService;
}

export async function buildApp(deps: AppDeps, options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerProblemHandler(app);
  await app.register(fastifySwagger, {
    openapi: { info: { title: 'Tributary coordinator', version: '0.1.0' } },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  await app.register(tableRoutes, { tables: deps.tables, warehouse: deps.warehouse });
  await app.register(syncRoutes, { syncs: deps.syncs, store: deps.store });
  if (deps.schedules !== undefined) await app.register(scheduleRoutes, { schedules: deps.schedules });
  const board = new FastifyAdapter();
  board.setBasePath('/admin/queues');
  createBullBoard({ queues: deps.queues.map((q) => new BullMQAdapter(q)), serverAdapter: board });
  await app.register(board.registerPlugin(), { prefix: '/admin/queues' });
  app.get('/healthz', { schema: { hide: true } }, () => ({ ok: true }));
  return app;
}
