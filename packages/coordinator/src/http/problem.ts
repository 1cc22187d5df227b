/**
 * The one error handler: every error leaves as `application/problem+json` (RFC 9457) with the
 * stable `code` of the catalogue it came from. The status is chosen from the code here and only
 * here; routes never build error responses themselves.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isTributaryError, toErrorData, type TributaryError } from '@tributary/protocol';
import { z } from 'zod';

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

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  SYNC_NOT_FOUND: 404,
  TABLE_NOT_FOUND: 404,
  SYNC_ILLEGAL_TRANSITION: 409,
  SYNC_COMMIT_IN_PROGRESS: 409,
  SYNC_VERSION_CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  TABLE_ALREADY_EXISTS: 409,
  REQUEST_INVALID: 400,
  MYSQL_SOURCE_INVALID: 400,
  MYSQL_SCHEMA_MISMATCH: 400,
  STORAGE_UNAVAILABLE: 503,
  SCHEDULE_NOT_FOUND: 404,
  SCHEDULE_CRON_INVALID: 400,
  SCHEDULE_TIMEZONE_INVALID: 400,
  SCHEDULE_TABLE_NOT_FOUND: 400,
  AUTH_TOKEN_MISSING: 401,
  AUTH_TOKEN_INVALID: 401,
  AUTH_ROLE_INSUFFICIENT: 403,
  AUTH_LOGIN_CROSS_SITE: 403,
  RATE_LIMITED: 429,
  SYNC_TOO_MANY_SHARDS: 400,
  SYNC_CONCURRENCY_LIMIT: 429,
  SYNC_CURSOR_INVALID: 400,
  TEST_HOOKS_DISABLED: 400,
};

function statusOf(code: string, retryable: boolean): number {
  const known = STATUS_BY_CODE[code];
  if (known !== undefined) return known;
  if (code.startsWith('TABLE_') || code.startsWith('SCHEMA_') || code.startsWith('DATA_TYPE')) return 400;
  return retryable ? 503 : 500;
}

function send(reply: FastifyReply, problem: Problem): FastifyReply {
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
  return send(reply, { type: 'about:blank', title: data.code, status, code: data.code, detail: data.message, retryable: data.retryable, context: data.context });
}

export function registerProblemHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map((v) => `${v.instancePath || '/'} ${v.message ?? ''}`.trim());
      return send(reply, {
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
    return send(reply, {
      type: 'about:blank',
      title: status >= 500 ? 'Internal error' : 'Bad request',
      status,
      code: status >= 500 ? 'INTERNAL' : 'REQUEST_INVALID',
      detail: error.message,
      retryable: status >= 500,
    });
  });
  app.setNotFoundHandler((request, reply) =>
    send(reply, { type: 'about:blank', title: 'Not found', status: 404, code: 'ROUTE_NOT_FOUND', detail: `${request.method} ${request.url}`, retryable: false }),
  );
}
