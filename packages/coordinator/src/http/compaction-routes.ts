/**
 * /v1/tables/{db}/{table}/compactions: start a compaction of a table (planned now, run by the
 * workers, committed as one COMPACT snapshot or nothing) and follow it.
 */
import { clientIdempotencyKey } from '../idempotency.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompactionId, COMPACTION_PHASES, errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { z } from 'zod';
import type { CompactionService } from '../compaction/compaction-service.ts';
import { problemResponses } from './problem.ts';
import { StartSyncHeaders, TableParams } from './schemas.ts';

export const CompactionRequest = z
  .object({
    full: z.boolean().optional().describe('Full compaction: every bucket to one top-level run (append tables: every small file); default false, Paimon\'s universal (or append) rules'),
    // At most 100 directories of 256 characters: the largest body stays far below the 1 MiB limit
    // on request bodies (a longer list is a sign of a wrong request; compact the whole table).
    partitions: z
      .array(z.string().min(1).max(256))
      .min(1)
      .max(100)
      .optional()
      .describe('Only these partitions, as their directories in the table (`dt=2024-01-01/region=eu`, as the files listing shows them); default all'),
  })
  .strict()
  .nullish();

export const CompactionResponse = z.object({
  id: z.string(),
  table: TableParams,
  phase: z.enum(COMPACTION_PHASES),
  full: z.boolean(),
  partitions: z.array(z.string()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  baseSnapshotId: z.number().int().nullable(),
  snapshotId: z.number().int().nullable(),
  jobs: z.number().int(),
  acceptedJobs: z.number().int(),
  liveFiles: z.number().int(),
  filesBefore: z.number().int(),
  filesAfter: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }).passthrough().nullable(),
});

const CompactionParams = TableParams.extend({ id: CompactionId });

/** A repeated request with the same key (and the same table and body) answers the first one's compaction. */
const CompactionHeaders = StartSyncHeaders;

export const compactionRoutes: FastifyPluginAsyncZod<{ compactions: CompactionService }> = async (app, { compactions }) => {
  app.post(
    '/v1/tables/:database/:table/compactions',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Compact a table: one job per (partition, bucket) that needs it, run by the workers, committed as one COMPACT snapshot or nothing; follow it with GET …/compactions/{id}',
        params: TableParams,
        body: CompactionRequest,
        headers: CompactionHeaders,
        response: { 202: CompactionResponse, ...problemResponses(400, 403, 404, 409, 422, 500, 503) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const { view } = await compactions.start(request.params, { full: body.full ?? false, ...(body.partitions === undefined ? {} : { partitions: body.partitions }) }, clientIdempotencyKey(request.headers['idempotency-key']));
      return reply
        .status(202)
        .header('location', `/v1/tables/${encodeURIComponent(view.table.database)}/${encodeURIComponent(view.table.table)}/compactions/${view.id}`)
        .send({ ...view, partitions: view.partitions === null ? null : [...view.partitions], error: view.error === null ? null : { ...view.error } });
    },
  );

  app.get(
    '/v1/tables/:database/:table/compactions/:id',
    {
      schema: {
        summary: 'A compaction: its phase (RUNNING, COMMITTING, COMMITTED, FAILED, CONFLICT), jobs, files before and after, the COMPACT snapshot or the reason',
        params: CompactionParams,
        response: { 200: CompactionResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const view = await compactions.get(request.params.id);
      if (view.table.database !== request.params.database || view.table.table !== request.params.table) {
        // Another table's compaction is not found under this table.
        throw errorFrom(coordinatorErrors, 'COMPACTION_NOT_FOUND', `table ${request.params.database}.${request.params.table} has no compaction ${request.params.id}`, { compactionId: request.params.id });
      }
      return { ...view, partitions: view.partitions === null ? null : [...view.partitions], error: view.error === null ? null : { ...view.error } };
    },
  );
};
