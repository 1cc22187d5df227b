/**
 * /v1/schedules: create or replace (PUT), list, inspect (definition, next fire, recent fires with
 * their syncs' or compactions' phases), delete. The mechanism is in ../schedule/service.ts.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { COMPACTION_PHASES, ScheduleId, ScheduleRun, ScheduledCompaction, errorFrom } from '@tributary/protocol';
import { roleAllows } from '../auth-tokens.ts';
import { coordinatorErrors } from '../errors.ts';
import { encodeCursor, parseCursor } from './table-cursor.ts';
import { redactSource } from '@tributary/sources';
import { PutScheduleRequest, StartSyncRequest } from '../requests.ts';
import type { ScheduleCaller, ScheduleService } from '../schedule/service.ts';
import type { ScheduleDefinition } from '../schedule/store.ts';
import { SyncPhaseSchema } from '../sync/record-schema.ts';
import { problemResponses } from './problem.ts';
import type { FastifyRequest } from 'fastify';

/** The caller as the schedule service judges it (an open coordinator's caller is admin). */
function callerOf(request: FastifyRequest): ScheduleCaller {
  const principal = request.principal;
  return principal === undefined ? { name: 'open', role: 'admin', mayCompact: true } : { name: principal.name, role: principal.role, mayCompact: roleAllows(principal.role, 'admin') };
}

export interface ScheduleRouteDeps {
  readonly schedules: ScheduleService;
}

const ScheduleParams = z.object({ id: ScheduleId });

const ScheduleSummary = z.object({
  id: z.string(),
  cron: z.string(),
  tz: z.string(),
  enabled: z.boolean(),
  /** Exactly one of sync and compaction. */
  sync: StartSyncRequest.optional(),
  compaction: ScheduledCompaction.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  nextRunAt: z.string().nullable(),
});

const ScheduleResponse = ScheduleSummary.extend({
  runs: z.array(ScheduleRun.extend({ phase: z.union([SyncPhaseSchema, z.enum(COMPACTION_PHASES)]).nullable(), snapshotId: z.number().int().nullable() })),
});

const PutScheduleResponse = ScheduleSummary.extend({ created: z.boolean() });

const RunsQuery = z.object({ runs: z.coerce.number().int().min(0).max(100).default(20) });

/**
 * The listing's page: `limit` schedules by id (default and most 1,000: the default cap on
 * schedules, so a client that reads one page still gets them all unless the operator raised it),
 * from where `cursor` (a page's `nextCursor`) says.
 */
const ListQuery = z.object({
  cursor: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});

const ListCursor = z.object({ k: z.literal('schedules'), after: ScheduleId });

/** @throws SCHEDULE_CURSOR_INVALID */
function decodeCursor(cursor: string): string {
  const position = parseCursor(ListCursor, cursor);
  if (position === undefined) throw errorFrom(coordinatorErrors, 'SCHEDULE_CURSOR_INVALID', 'the cursor was not returned by the schedules listing', {});
  return position.after;
}

export const scheduleRoutes: FastifyPluginAsyncZod<ScheduleRouteDeps> = async (app, { schedules }) => {
  const summary = async (d: ScheduleDefinition) => ({
    id: d.id,
    cron: d.cron,
    tz: d.tz ?? 'UTC',
    enabled: d.enabled,
    // An inline password (only when the operator allows them) is shown as ***, as in a sync's plan.
    ...(d.sync === undefined ? {} : { sync: { ...d.sync, source: redactSource(d.sync.source) as StartSyncRequest['source'] } }),
    ...(d.compaction === undefined ? {} : { compaction: { ...d.compaction, table: { ...d.compaction.table }, ...(d.compaction.partitions === undefined ? {} : { partitions: [...d.compaction.partitions] }) } }),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    nextRunAt: await schedules.nextRunAt(d.id),
  });

  app.put(
    '/v1/schedules/:id',
    {
      config: { role: 'operate' },
      schema: {
        summary: 'Create or replace a schedule: a cron pattern (5 or 6 fields) that starts a sync or a compaction',
        params: ScheduleParams,
        body: PutScheduleRequest,
        response: { 200: PutScheduleResponse, 201: PutScheduleResponse, ...problemResponses(400, 403, 409, 500, 503) },
        description:
          'A schedule with `compaction` needs role admin (as POST …/compactions does), and so does replacing one; one with `sync` needs operate. A pattern whose fires come closer than the coordinator allows (TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS, default 60 s) is refused (400 SCHEDULE_CRON_TOO_FREQUENT), and so is a new schedule once TRIBUTARY_MAX_SCHEDULES (default 1,000) exist (409 SCHEDULE_LIMIT_REACHED).',
      },
    },
    async (request, reply) => {
      // A compaction needs role admin (as POST …/compactions does): so does a schedule that starts one, to create, replace or delete.
      const { definition, created } = await schedules.put(request.params.id, request.body, callerOf(request));
      return reply.status(created ? 201 : 200).send({ ...(await summary(definition)), created });
    },
  );

  app.get(
    '/v1/schedules',
    {
      schema: {
        summary: 'List schedules by id, a page at a time (limit, default 1,000); follow nextCursor',
        querystring: ListQuery,
        response: { 200: z.object({ schedules: z.array(ScheduleSummary), nextCursor: z.string().nullable() }), ...problemResponses(400, 500, 503) },
      },
    },
    async (request) => {
      const after = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
      const page = await schedules.page(request.query.limit, after);
      return { schedules: await Promise.all(page.definitions.map(summary)), nextCursor: page.next === undefined ? null : encodeCursor({ k: 'schedules', after: page.next }) };
    },
  );

  app.get(
    '/v1/schedules/:id',
    {
      schema: {
        summary: 'A schedule: definition, next fire time, and its newest fires (started, skipped or failed) with their syncs',
        params: ScheduleParams,
        querystring: RunsQuery,
        response: { 200: ScheduleResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const definition = await schedules.get(request.params.id);
      return { ...(await summary(definition)), runs: await schedules.runs(definition.id, request.query.runs) };
    },
  );

  app.delete(
    '/v1/schedules/:id',
    {
      config: { role: 'operate' },
      schema: {
        summary: 'Delete a schedule: it fires no more (syncs it started run on)',
        description: 'A compaction schedule needs role admin to delete, as to create.',
        params: ScheduleParams,
        response: { 204: z.null(), ...problemResponses(400, 403, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      await schedules.delete(request.params.id, callerOf(request));
      return reply.status(204).send(null);
    },
  );
};
