/**
 * The REST bodies that carry a source: `POST /v1/syncs` and `PUT /v1/schedules/{id}`. Their shape
 * is the protocol's; their `source` is the union of every source kind's spec, which only the
 * sources package knows (the protocol does not depend on it), so the two meet here.
 */
import { CreateTableRequest, createTableFromSourceRequest, errorFrom, putScheduleRequest, startSyncRequest } from '@tributary/protocol';
import { SyncSourceSpec } from '@tributary/sources';
import { z } from 'zod';
import { coordinatorErrors } from './errors.ts';

export const StartSyncRequest = startSyncRequest(SyncSourceSpec);
export type StartSyncRequest = z.infer<typeof StartSyncRequest>;

export const PutScheduleRequest = putScheduleRequest(StartSyncRequest);
export type PutScheduleRequest = z.infer<typeof PutScheduleRequest>;

export const CreateTableFromSourceRequest = createTableFromSourceRequest(SyncSourceSpec);
export type CreateTableFromSourceRequest = z.infer<typeof CreateTableFromSourceRequest>;

/** `POST /v1/tables`: columns given, or made from a source's schema (`fromSource`). */
export const CreateTableBody = z.union([CreateTableRequest, CreateTableFromSourceRequest]);
export type CreateTableBody = z.infer<typeof CreateTableBody>;

/** What a source's schema makes of a table (`SyncService.tableFromSource`). */
export interface TableFromSource {
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly primaryKeys: readonly string[];
  readonly bucket: number;
}

/**
 * The table a `fromSource` body makes, judged by the schema of a body that gives `columns`
 * (CreateTableRequest): a source's column names, types, keys and bucket count pass the rules a
 * caller's own would, or are refused with the same 400 REQUEST_INVALID. A column is named by its
 * position in the source's schema (1 first), never by its name: a file's header is its content.
 */
export function tableRequestFromSource(body: CreateTableFromSourceRequest, made: TableFromSource): CreateTableRequest {
  const request = {
    database: body.database,
    name: body.name,
    columns: made.columns.map((c) => ({ name: c.name, type: c.type })),
    partitionKeys: body.partitionKeys,
    primaryKeys: [...made.primaryKeys],
    bucket: made.bucket,
    options: body.options,
    ...(body.comment === undefined ? {} : { comment: body.comment }),
  };
  const parsed = CreateTableRequest.safeParse(request);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const [part, index] = issue.path;
    return part === 'columns' && typeof index === 'number' ? `/fromSource column ${index + 1} of the source ${issue.message}` : `/${issue.path.map(String).join('/')} ${issue.message}`;
  });
  const first = parsed.error.issues[0]?.path ?? [];
  const column = first[0] === 'columns' && typeof first[1] === 'number' ? first[1] + 1 : null;
  throw errorFrom(coordinatorErrors, 'REQUEST_INVALID', issues.join('; '), { part: 'fromSource', column });
}
