/**
 * /v1/tables: create, list and drop Paimon tables; describe one, list its snapshots and a
 * snapshot's data files, preview its rows, audit its changelog.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorFrom } from '@tributary/protocol';
import { DEFAULT_ORPHAN_AGE_MS, formatDataType, parseDataTypeString, tableErrors, type TableDescription, type TableRef, type TableSummary, type Tables } from '@tributary/table';
import { z } from 'zod';
import { coordinatorErrors } from '../errors.ts';
import { CreateTableBody, tableRequestFromSource } from '../requests.ts';
import type { SyncService } from '../sync/service.ts';
import type { SyncStore } from '../sync/store.ts';
import { problemResponses } from './problem.ts';
import { TableMaintenance } from '../maintenance/table-maintenance.ts';
import type { CompactionService } from '../compaction/compaction-service.ts';
import {
  ChangelogAuditResponse,
  ChangelogQuery,
  ExpireRequest,
  ExpireResponse,
  ORPHAN_FILES_SHOWN,
  OrphanCleanupRequest,
  OrphanCleanupResponse,
  FilesPage,
  FilesQuery,
  PageQuery,
  RowsQuery,
  RowsResponse,
  SnapshotsPage,
  TableParams,
  TableResponse,
  TablesPage,
} from './schemas.ts';
import { decodeFilesCursor, decodeSnapshotsCursor, decodeTablesCursor, encodeTableCursor } from './table-cursor.ts';

export interface TableRouteDeps {
  readonly tables: Tables;
  readonly warehouse: string;
  /** Who asks whether a table has a sync that is not finished (a drop is refused then). */
  readonly store: SyncStore;
  /** Makes a table definition from a source's schema (`fromSource`). */
  readonly syncs: SyncService;
  /** The table's live compactions, protected by expiration and cleanup like live syncs. */
  readonly compactions?: CompactionService;
}

/** Tables described at once while answering a page of the listing. */
const DESCRIBE_PARALLELISM = 8;

export const tableRoutes: FastifyPluginAsyncZod<TableRouteDeps> = async (app, { tables, warehouse, store, syncs, compactions }) => {
  const maintenance = new TableMaintenance({ tables, warehouse, store, ...(compactions === undefined ? {} : { compactions }) });
  const notFound = (ref: TableRef) => errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${ref.database}.${ref.table} does not exist`, { ...ref });

  app.post(
    '/v1/tables',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Create a Paimon table, from columns or from a source\'s schema (fromSource)',
        body: CreateTableBody,
        response: { 201: TableResponse, ...problemResponses(400, 403, 409, 500, 503) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const ref = { database: body.database, table: body.name };
      // A table made from a source passes the checks of one given by its columns (names, keys, bucket).
      const made =
        'fromSource' in body
          ? tableRequestFromSource(
              body,
              await syncs.tableFromSource(body.fromSource, { ...(body.primaryKeys === undefined ? {} : { primaryKeys: body.primaryKeys }), ...(body.bucket === undefined ? {} : { bucket: body.bucket }) }),
            )
          : body;
      const options = { ...body.options, bucket: String(made.bucket) };
      const columns = made.columns.map((c) => ({ name: c.name, type: parseDataTypeString(c.type), description: c.description }));
      const info = await tables.createTable(warehouse, ref, {
        fields: columns,
        partitionKeys: made.partitionKeys,
        primaryKeys: [...made.primaryKeys],
        options,
      });
      return reply.status(201).send({ ...tableView(info), filesPerLevel: {}, totalFileSize: 0, averageFileSize: 0, snapshotCount: 0, earliestSnapshotId: null, orphans: null });
    },
  );

  app.get(
    '/v1/tables',
    {
      schema: {
        summary: 'List the tables of the warehouse, by database then name; follow nextCursor',
        querystring: PageQuery,
        response: { 200: TablesPage, ...problemResponses(400, 500, 503) },
      },
    },
    async (request) => {
      const after = request.query.cursor === undefined ? undefined : decodeTablesCursor(request.query.cursor);
      const refs = await tables.listTableRefs(warehouse);
      const rest = after === undefined ? refs : refs.filter((r) => r.database > after.d || (r.database === after.d && r.table > after.t));
      const page = rest.slice(0, request.query.limit);
      const summaries: TableSummary[] = [];
      for (let i = 0; i < page.length; i += DESCRIBE_PARALLELISM) {
        // A table dropped since the listing is left out.
        const batch = await Promise.all(page.slice(i, i + DESCRIBE_PARALLELISM).map((ref) => tables.summarizeTable(warehouse, ref)));
        for (const s of batch) if (s !== undefined) summaries.push(s);
      }
      const last = page.at(-1);
      return {
        tables: summaries.map((s) => ({ ...s, primaryKeys: [...s.primaryKeys], partitionKeys: [...s.partitionKeys] })),
        nextCursor: last !== undefined && rest.length > page.length ? encodeTableCursor({ k: 'tables', d: last.database, t: last.table }) : null,
      };
    },
  );

  app.get(
    '/v1/tables/:database/:table',
    { schema: { summary: 'A table: schema, latest snapshot, file and row counts', params: TableParams, response: { 200: TableResponse, ...problemResponses(400, 404, 500, 503) } } },
    async (request) => {
      const info = await tables.describeTableWithStats(warehouse, request.params);
      if (info === undefined) throw notFound(request.params);
      return { ...tableView(info), filesPerLevel: { ...info.filesPerLevel }, orphans: await maintenance.lastOrphanScan(request.params) };
    },
  );

  app.post(
    '/v1/tables/:database/:table/expirations',
    {
      config: { role: 'admin' },
      schema: {
        summary: "Expire the snapshots the table's retention options (or the overrides given) no longer keep, and the files only they reach",
        params: TableParams,
        body: ExpireRequest,
        response: { 200: ExpireResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const overrides = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
      const result = await maintenance.expire(request.params, overrides);
      return { ...result, expired: [...result.expired] };
    },
  );

  app.post(
    '/v1/tables/:database/:table/orphan-cleanups',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Find (dryRun, the default) or delete the files of the table and of its syncs\' staging that no snapshot, tag or live sync reaches, older than the guard age',
        params: TableParams,
        body: OrphanCleanupRequest,
        response: { 200: OrphanCleanupResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const result = await maintenance.cleanOrphans(request.params, { olderThanMs: body.olderThanMs ?? DEFAULT_ORPHAN_AGE_MS, dryRun: body.dryRun ?? true });
      return { ...result, files: result.files.slice(0, ORPHAN_FILES_SHOWN), truncated: result.files.length > ORPHAN_FILES_SHOWN };
    },
  );

  app.delete(
    '/v1/tables/:database/:table',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Drop a table: delete every object under its directory (refused while a sync of it has not ended)',
        params: TableParams,
        response: { 204: z.null().describe('Dropped'), ...problemResponses(400, 404, 409, 500, 503) },
      },
    },
    async (request, reply) => {
      const ref = request.params;
      const active = await store.activeIdsOf(ref);
      if (active.length > 0) {
        throw errorFrom(coordinatorErrors, 'TABLE_SYNC_ACTIVE', `table ${ref.database}.${ref.table} has ${active.length} sync(s) not yet COMMITTED or ABORTED (${active.slice(0, 3).join(', ')})`, {
          ...ref,
          syncId: active[0] ?? null,
          activeSyncs: active.length,
        });
      }
      await tables.dropTable(warehouse, ref);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/v1/tables/:database/:table/rows',
    {
      schema: {
        summary: 'The first rows of a snapshot (the latest by default), values JSON-safe',
        params: TableParams,
        querystring: RowsQuery,
        response: { 200: RowsResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const preview = await tables.previewRows(warehouse, request.params, request.query.limit, request.query.snapshot);
      return { snapshotId: preview.snapshotId, columns: preview.columns.map((c) => ({ ...c })), rows: preview.rows.map((r) => [...r]) };
    },
  );

  app.get(
    '/v1/tables/:database/:table/changelog',
    {
      schema: {
        summary:
          'Audit the changelog of a window of snapshots (from..to, at most 100; default the last 20), per key: its RowKinds with snapshot, commit kind, file and sequence number, and the anomalies found (+U without -U, a before-image that is not the stored row, a duplicate +I, -D of an absent key, a data change without changelog); follow nextFrom',
        params: TableParams,
        querystring: ChangelogQuery,
        response: { 200: ChangelogAuditResponse, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const { from, to, key, limit } = request.query;
      const view = await tables.auditChangelog(warehouse, request.params, { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), ...(key !== undefined ? { key } : {}), limit });
      return {
        ...view,
        columns: view.columns.map((c) => ({ ...c })),
        keyColumns: [...view.keyColumns],
        keys: view.keys.map((k) => ({ ...k, key: [...k.key], events: k.events.map((e) => ({ ...e, row: [...e.row] })), findings: k.findings.map((f) => ({ ...f })) })),
        counts: { ...view.counts },
      };
    },
  );

  app.get(
    '/v1/tables/:database/:table/snapshots',
    {
      schema: {
        summary: 'The snapshots of a table, newest first: id, commit kind, time, record counts, commit user; follow nextCursor',
        params: TableParams,
        querystring: PageQuery,
        response: { 200: SnapshotsPage, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const of = `${request.params.database}.${request.params.table}`;
      const before = request.query.cursor === undefined ? undefined : decodeSnapshotsCursor(request.query.cursor, of).before;
      // One more than the page tells whether another page follows.
      const found = await tables.listSnapshots(warehouse, request.params, request.query.limit + 1, before);
      const page = found.slice(0, request.query.limit);
      const last = page.at(-1);
      return {
        snapshots: page.map((s) => ({ ...s, properties: { ...s.properties } })),
        nextCursor: last !== undefined && found.length > page.length ? encodeTableCursor({ k: 'snapshots', of, before: last.id }) : null,
      };
    },
  );

  app.get(
    '/v1/tables/:database/:table/files',
    {
      schema: {
        summary: 'The live data files of a snapshot (the latest by default), by path: partition, bucket, level, rows, size; follow nextCursor',
        params: TableParams,
        querystring: FilesQuery,
        response: { 200: FilesPage, ...problemResponses(400, 404, 500, 503) },
      },
    },
    async (request) => {
      const of = `${request.params.database}.${request.params.table}`;
      const { cursor, limit } = request.query;
      const position = cursor === undefined ? undefined : decodeFilesCursor(cursor, of, request.query.snapshot);
      const listed = await tables.listFiles(warehouse, request.params, position?.s ?? request.query.snapshot);
      const offset = position?.o ?? 0;
      if (offset > listed.files.length) throw errorFrom(coordinatorErrors, 'TABLE_CURSOR_INVALID', 'the cursor was not returned by this files listing', { listing: 'files' });
      const end = Math.min(listed.files.length, offset + limit);
      return {
        snapshotId: listed.snapshotId,
        files: listed.files.slice(offset, end),
        nextCursor: listed.snapshotId !== null && end < listed.files.length ? encodeTableCursor({ k: 'files', of, s: listed.snapshotId, o: end }) : null,
      };
    },
  );
};

function tableView<T extends TableDescription>(info: T) {
  return {
    ...info,
    columns: info.columns.map((c) => ({ name: c.name, type: formatDataType(c.type), description: c.description })),
    partitionKeys: [...info.partitionKeys],
    primaryKeys: [...info.primaryKeys],
    options: { ...info.options },
  };
}
