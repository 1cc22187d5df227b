/**
 * /v1/syncs: start (202 + id; Idempotency-Key), inspect (shards paged), status in brief, rejected rows, list, abort.
 */
import { clientIdempotencyKey } from '../idempotency.ts';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { StartSyncRequest } from '../requests.ts';
import type { SyncService } from '../sync/service.ts';
import type { ListPage, SyncStore } from '../sync/store.ts';
import { problemResponses } from './problem.ts';
import {
  AbortBody,
  ListSyncsQuery,
  RejectsResponse,
  ShardsPage,
  ShardsQuery,
  StartSyncHeaders,
  StartSyncResponse,
  SyncParams,
  SyncResponse,
  SyncStatus,
  SyncSummary,
} from './schemas.ts';
import { decodeShardsCursor, decodeSyncsCursor, encodeSyncsCursor, FIRST_SHARD_PAGE, progressTotals, rejectsView, shardPage, syncView } from './sync-view.ts';
import { z } from 'zod';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { RevisionCache } from '../revision-cache.ts';

export interface SyncRouteDeps {
  readonly syncs: SyncService;
  readonly store: SyncStore;
  /** How long a sync's view may answer again while its revision holds (0: every request reads); default 1 s. */
  readonly viewCacheMs?: number;
}

const VIEW_CACHE_MS = 1_000;
/** Syncs whose view is kept (a view of the first 100 shards is about 20 KB). */
const VIEW_CACHE_ENTRIES = 256;

/** The route's response serialiser (the type provider's, as for any route): a kept body is what it would send. */
const serialiseSync = serializerCompiler({ schema: SyncResponse, method: 'GET', url: '/v1/syncs/:id', httpStatus: '200' } as never) as (data: unknown) => string;

export const syncRoutes: FastifyPluginAsyncZod<SyncRouteDeps> = async (app, { syncs, store, viewCacheMs = VIEW_CACHE_MS }) => {
  /** The list's response bodies by the store's page (kept while the store keeps the page). */
  const listBodies = new WeakMap<ListPage, Buffer>();
  /**
   * GET /v1/syncs/:id's bodies by sync, kept with the view revision they were read at (the record's
   * version and the workers' activity counter): a view answers again while neither moved, for at most
   * `viewCacheMs` (what no write announces: a worker of an earlier version); requests at once share one read.
   */
  const views = new RevisionCache<Buffer>(viewCacheMs, VIEW_CACHE_ENTRIES);

  /** The view of a sync as read now. */
  async function readView(id: string): Promise<z.infer<typeof SyncResponse>> {
    // The head, not the record: a read of the first page whatever the shard count.
    const head = await store.head(id);
    const record = head.record;
    const ids = record.plan.shards.map((s) => s.id);
    const [attempts, accepted, counts] = await Promise.all([store.attemptsOf(record.id, ids), store.acceptedOf(record.id, ids), store.shardCounts(record.id)]);
    // Once the commit began the head has the totals; before, every shard's attempts do.
    const totals =
      head.frozen === null
        ? progressTotals(record, ...(await Promise.all([store.attemptFigures(record.id), store.acceptedAttempts(record.id)])))
        : { rows: head.frozen.rows, bytes: head.frozen.bytes, rejected: head.frozen.rejected ?? 0 };
    // The bucket stage (bucketed layout) while it runs: its jobs are few (partitions × buckets).
    const buckets = record.state.phase === 'MERGING' ? { attempts: await store.bucketAttempts(record.id), accepted: await store.bucketAcceptedAttempts(record.id) } : undefined;
    return syncView(record, attempts, accepted, counts, FIRST_SHARD_PAGE, totals, { shards: head.shards, frozenAccepted: head.frozen?.accepted ?? null, files: head.frozen?.files ?? null }, buckets);
  }
  app.post(
    '/v1/syncs',
    {
      config: { role: 'operate' },
      schema: {
        summary: 'Start a sync: plan it, persist the plan, enqueue one job per shard',
        body: StartSyncRequest,
        headers: StartSyncHeaders,
        response: { 202: StartSyncResponse, ...problemResponses(400, 403, 404, 422, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const { record, created } = await syncs.start(request.body, clientIdempotencyKey(request.headers['idempotency-key']));
      return reply.status(202).header('location', `/v1/syncs/${record.id}`).send({ id: record.id, phase: record.state.phase, created });
    },
  );

  app.get(
    '/v1/syncs/:id',
    {
      schema: {
        summary: 'A sync: state, plan, shard counts, the first page of shards with their attempts, snapshot, phase timings',
        params: SyncParams,
        response: { 200: SyncResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      // Read before the view: a write after it moves the revision past what is kept with it.
      const revision = await store.viewRevision(id);
      if (revision === undefined) throw errorFrom(coordinatorErrors, 'SYNC_NOT_FOUND', `no sync ${id}`, { syncId: id });
      const body = await views.get(id, revision, async () => Buffer.from(serialiseSync(await readView(id)), 'utf8'));
      return reply.type('application/json; charset=utf-8').send(body as unknown as z.infer<typeof SyncResponse>);
    },
  );

  app.get(
    '/v1/syncs/:id/status',
    {
      schema: {
        summary: 'A sync in brief: phase, table, shard counts, snapshot or abort reason, phase timings; rows and bytes once its shards are frozen. One constant-size read',
        params: SyncParams,
        response: { 200: SyncStatus, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      // Stored as the text this route's schema serialises it to: sent as is, like the list's summaries.
      const text = await store.statusText(request.params.id);
      if (text === undefined) throw errorFrom(coordinatorErrors, 'SYNC_NOT_FOUND', `no sync ${request.params.id}`, { syncId: request.params.id });
      return reply.type('application/json; charset=utf-8').send(text as unknown as z.infer<typeof SyncStatus>);
    },
  );

  app.get(
    '/v1/syncs/:id/shards',
    {
      schema: {
        summary: 'A page of a sync\u2019s shards with their attempts, in plan order; follow nextCursor',
        params: SyncParams,
        querystring: ShardsQuery,
        response: { 200: ShardsPage, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const record = await store.pageRecord(request.params.id);
      const offset = decodeShardsCursor(record.id, request.query.cursor, record.plan.shards.length);
      const ids = record.plan.shards.slice(offset, offset + request.query.limit).map((s) => s.id);
      const [attempts, accepted] = await Promise.all([store.attemptsOf(record.id, ids), store.acceptedOf(record.id, ids)]);
      return shardPage(record, attempts, accepted, offset, request.query.limit);
    },
  );

  app.get(
    '/v1/syncs/:id/rejects',
    {
      schema: {
        summary: 'The rows a sync left out under the `reject` bad-row policy: one file per shard (its accepted attempt), with counts',
        params: SyncParams,
        response: { 200: RejectsResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const record = await syncs.get(request.params.id);
      const [attempts, accepted] = await Promise.all([store.attempts(record.id), store.acceptedAttempts(record.id)]);
      return rejectsView(record, attempts, accepted);
    },
  );

  app.get(
    '/v1/syncs',
    {
      schema: {
        summary: 'List syncs, newest first; a page of `limit` syncs and, when it is full, the `cursor` of the next page',
        querystring: ListSyncsQuery,
        response: { 200: z.object({ syncs: z.array(SyncSummary), nextCursor: z.string().nullable() }), ...problemResponses(400, 500, 503) },
      },
    },
    async (request, reply) => {
      const { state, database, table, limit, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeSyncsCursor(cursor);
      // Each summary is stored as the text this route's schema serialises it to: the page's texts
      // are spliced, not parsed, validated and serialised again (a string is sent as is).
      const page = await store.listSummaryTexts({ phase: state, database, table, limit, ...(after === undefined ? {} : { after }) });
      // The store answers a list it kept with the same page: its body is encoded once.
      let body = listBodies.get(page);
      if (body === undefined) {
        const nextCursor = page.next === undefined ? null : encodeSyncsCursor(page.next);
        body = Buffer.from(`{"syncs":[${page.texts.join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`, 'utf8');
        listBodies.set(page, body);
      }
      return reply.type('application/json; charset=utf-8').send(body as unknown as { syncs: z.infer<typeof SyncSummary>[]; nextCursor: string | null });
    },
  );

  app.post(
    '/v1/syncs/:id/abort',
    {
      config: { role: 'operate' },
      schema: {
        summary: 'Abort a sync that has not started its commit',
        params: SyncParams,
        body: AbortBody,
        response: { 202: StartSyncResponse.omit({ created: true }), ...problemResponses(400, 404, 409, 500, 503) },
      },
    },
    async (request, reply) => {
      const record = await syncs.abort(request.params.id, request.body?.reason ?? 'aborted on request');
      return reply.status(202).send({ id: record.id, phase: record.state.phase });
    },
  );
};
