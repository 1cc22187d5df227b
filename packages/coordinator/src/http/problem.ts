/**
 * The one error handler: every error leaves as `application/problem+json` (RFC 9457) with the
 * stable `code` of the catalogue it came from. The status is chosen from the code here and only
 * here; routes never build error responses themselves.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isTributaryError, toErrorData, type ProtocolErrorCode, type TributaryError } from '@tributary/protocol';
import type { SourceErrorCode } from '@tributary/sources';
import type { TableErrorCode } from '@tributary/table';
import { z } from 'zod';
import type { CoordinatorErrorCode } from '../errors.ts';

export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string(),
  detail: z.string(),
  retryable: z.boolean(),
  context: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;

/** Every code an HTTP answer can carry: the coordinator's own, and those of the packages it calls. */
type HttpErrorCode = CoordinatorErrorCode | TableErrorCode | ProtocolErrorCode | SourceErrorCode;

/**
 * The status of each code a caller can cause. A code not listed is the server's own fault: 503 when
 * retrying may help, else 500. Keyed by the catalogues' types, so a renamed code fails to compile.
 */
const STATUS_BY_CODE: Readonly<Partial<Record<HttpErrorCode, number>>> = {
  SYNC_NOT_FOUND: 404,
  COMPACTION_NOT_FOUND: 404,
  TABLE_NOT_FOUND: 404,
  SNAPSHOT_NOT_FOUND: 404,
  TABLE_SYNC_ACTIVE: 409,
  TABLE_CURSOR_INVALID: 400,
  SCHEDULE_NOT_FOUND: 404,
  SYNC_ILLEGAL_TRANSITION: 409,
  SYNC_COMMIT_IN_PROGRESS: 409,
  SYNC_VERSION_CONFLICT: 409,
  TABLE_ALREADY_EXISTS: 409,
  // A request with the same Idempotency-Key is still being planned: the caller's duplicate, retried later.
  COMPACTION_STARTING: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_RESERVED: 400,
  REQUEST_INVALID: 400,
  REQUEST_URL_INVALID: 400,
  SYNC_LOAD_UNSUPPORTED: 400,
  PAYLOAD_INVALID: 400,
  MYSQL_SOURCE_INVALID: 400,
  MYSQL_SCHEMA_MISMATCH: 400,
  POSTGRES_SOURCE_INVALID: 400,
  POSTGRES_SCHEMA_MISMATCH: 400,
  // A source column that does not fit the table, found when the sync is planned.
  SOURCE_SCHEMA_MISMATCH: 400,
  // A source the caller named that cannot be read as one (`fromSource` naming no file).
  SOURCE_SPEC_INVALID: 400,
  // A source file the plan reads (its header, first line or footer) that is not well-formed.
  SOURCE_FILE_MALFORMED: 400,
  SYNC_NOTHING_TO_LOAD: 422,
  // The table's own history (a snapshot's tributary.* properties) is not what Tributary wrote.
  SYNC_HISTORY_UNREADABLE: 409,
  // MYSQL_ and POSTGRES_SOURCE_UNAVAILABLE stay 503 (retryable): a source names an operator's connection, so a
  // server that cannot be reached is the deployment's trouble, not the caller's input.
  // What the operator allows a source to read (access.ts of @tributary/sources).
  SOURCE_NOT_ALLOWED: 403,
  SOURCE_CREDENTIALS_INLINE: 400,
  SOURCE_CONNECTION_UNKNOWN: 400,
  SCHEDULE_CRON_INVALID: 400,
  SCHEDULE_CRON_TOO_FREQUENT: 400,
  // A quota of the coordinator's, not the request's shape: freed by deleting a schedule.
  SCHEDULE_LIMIT_REACHED: 409,
  SCHEDULE_CURSOR_INVALID: 400,
  SCHEDULE_TIMEZONE_INVALID: 400,
  SCHEDULE_TABLE_NOT_FOUND: 400,
  // A URI, a type or a table definition given by the caller.
  STORAGE_URI_INVALID: 400,
  OBJECT_KEY_INVALID: 400,
  DATA_TYPE_INVALID: 400,
  UNSUPPORTED_TYPE: 400,
  SCHEMA_INVALID: 400,
  TABLE_OPTION_INVALID: 400,
  TABLE_UNSUPPORTED: 400,
  CHANGELOG_AUDIT_INVALID: 400,
  PARTITION_VALUE_UNSUPPORTED: 400,
  PARTITION_SPEC_INVALID: 400,
  STORAGE_UNAVAILABLE: 503,
  AUTH_TOKEN_MISSING: 401,
  AUTH_TOKEN_INVALID: 401,
  AUTH_ROLE_INSUFFICIENT: 403,
  DASHBOARD_JOB_DATA_READONLY: 403,
  AUTH_LOGIN_CROSS_SITE: 403,
  AUTH_COOKIE_CROSS_ORIGIN: 403,
  AUTH_OPEN_FOREIGN: 403,
  RATE_LIMITED: 429,
  SYNC_TOO_MANY_SHARDS: 400,
  SYNC_CONCURRENCY_LIMIT: 429,
  SYNC_SOURCE_BUSY: 409,
  SYNC_CURSOR_INVALID: 400,
  TEST_HOOKS_DISABLED: 400,
};

/** Statuses the app answers for any code; see STATUS_BY_CODE. */
export function statusOf(code: string, retryable: boolean): number {
  const known = (STATUS_BY_CODE as Readonly<Record<string, number>>)[code];
  if (known !== undefined) return known;
  return retryable ? 503 : 500;
}

/**
 * The error answers a route declares in its schema: each is a problem+json body (the OpenAPI
 * document's content type is set by http/openapi.ts). Every route that takes input declares 400.
 */
export function problemResponses<const S extends number>(...statuses: S[]): Record<S, typeof ProblemSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ProblemSchema])) as Record<S, typeof ProblemSchema>;
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.status(problem.status).type('application/problem+json').send(problem);
}

/**
 * A typed error as problem+json. Exported for hooks that must answer themselves (auth, rate limit):
 * a thrown error would reach the error handler of the route's own plugin (the dashboard has its
 * own), not this one.
 */
export function sendError(reply: FastifyReply, error: TributaryError): FastifyReply {
  const data = toErrorData(error);
  const status = statusOf(data.code, data.retryable);
  // RFC 9110: a 401 names the scheme; a refusal that passes with time says when to come back.
  if (status === 401 && !reply.hasHeader('www-authenticate')) void reply.header('www-authenticate', 'Bearer realm="tributary"');
  const retryAfter = data.context.retryAfterSeconds;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  return sendProblem(reply, { type: 'about:blank', title: data.code, status, code: data.code, detail: data.message, retryable: data.retryable, context: data.context });
}

export function registerProblemHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map((v) => `${v.instancePath || '/'} ${v.message ?? ''}`.trim());
      return sendProblem(reply, {
        type: 'about:blank',
        title: 'Invalid request',
        status: 400,
        code: 'REQUEST_INVALID',
        detail: issues.join('; '),
        retryable: false,
        context: { part: error.validationContext ?? 'body' },
      });
    }
    if (isTributaryError(error)) return sendError(reply, error);
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error(error);
    return sendProblem(reply, {
      type: 'about:blank',
      title: status >= 500 ? 'Internal error' : 'Bad request',
      status,
      code: status >= 500 ? 'INTERNAL' : 'REQUEST_INVALID',
      detail: error.message,
      retryable: status >= 500,
    });
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, { type: 'about:blank', title: 'Not found', status: 404, code: 'ROUTE_NOT_FOUND', detail: `${request.method} ${request.url}`, retryable: false }),
  );
}
