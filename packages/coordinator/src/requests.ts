/**
 * The REST bodies that carry a source: `POST /v1/syncs` and `PUT /v1/schedules/{id}`. Their shape
 * is the protocol's; their `source` is the union of every source kind's spec, which only the
 * sources package knows (the protocol does not depend on it), so the two meet here.
 */
import { CreateTableRequest, createTableFromSourceRequest, putScheduleRequest, startSyncRequest } from '@tributary/protocol';
import { SyncSourceSpec } from '@tributary/sources';
import { z } from 'zod';

export const StartSyncRequest = startSyncRequest(SyncSourceSpec);
export type StartSyncRequest = z.infer<typeof StartSyncRequest>;

export const PutScheduleRequest = putScheduleRequest(StartSyncRequest);
export type PutScheduleRequest = z.infer<typeof PutScheduleRequest>;

export const CreateTableFromSourceRequest = createTableFromSourceRequest(SyncSourceSpec);
export type CreateTableFromSourceRequest = z.infer<typeof CreateTableFromSourceRequest>;

/** `POST /v1/tables`: columns given, or made from a source's schema (`fromSource`). */
export const CreateTableBody = z.union([CreateTableRequest, CreateTableFromSourceRequest]);
export type CreateTableBody = z.infer<typeof CreateTableBody>;
