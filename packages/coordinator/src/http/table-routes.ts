/**
 * /v1/tables: create a Paimon table, describe one.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CreateTableRequest, errorFrom } from '@tributary/protocol';
import { formatDataType, parseDataTypeString, tableErrors } from '@tributary/table';
import type { CoordinatorTables, TableInfo } from '../table-port.ts';
import { problemResponses } from './problem.ts';
import { TableParams, TableResponse } from './schemas.ts';

export interface TableRouteDeps {
  readonly tables: CoordinatorTables;
  readonly warehouse: string;
}

export const tableRoutes: FastifyPluginAsyncZod<TableRouteDeps> = async (app, { tables, warehouse }) => {
  app.post(
    '/v1/tables',
    { config: { role: 'admin' }, schema: { summary: 'Create a Paimon table', body: CreateTableRequest, response: { 201: TableResponse, ...problemResponses(400, 409, 500, 503) } } },
    async (request, reply) => {
      const body = request.body;
      const ref = { database: body.database, table: body.name };
      const options = { ...body.options, bucket: String(body.bucket) };
      const columns = body.columns.map((c) => ({ name: c.name, type: parseDataTypeString(c.type), description: c.description }));
      const info = await tables.createTable(warehouse, ref, {
        columns,
        partitionKeys: body.partitionKeys,
        primaryKeys: body.primaryKeys,
        options,
      });
      return reply.status(201).send(tableView(info));
    },
  );

  app.get(
    '/v1/tables/:database/:table',
    { schema: { summary: 'A table: schema, latest snapshot, file and row counts', params: TableParams, response: { 200: TableResponse, ...problemResponses(400, 404, 500, 503) } } },
    async (request) => {
      const info = await tables.describeTable(warehouse, request.params);
      if (info === undefined) {
        throw errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${request.params.database}.${request.params.table} does not exist`, {
          ...request.params,
        });
      }
      return tableView(info);
    },
  );
};

function tableView(info: TableInfo) {
  return {
    ...info,
    columns: info.columns.map((c) => ({ name: c.name, type: formatDataType(c.type), description: c.description })),
    partitionKeys: [...info.partitionKeys],
    primaryKeys: [...info.primaryKeys],
    options: { ...info.options },
  };
}
