/**
 * The errors Fastify's router answers before any hook runs (Fastify's `frameworkErrors` option): a
 * path parameter that is not valid percent-encoded UTF-8 (FST_ERR_BAD_URL, `/v1/syncs/%ff`) or
 * longer than the router's `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH). Left to Fastify they leave
 * as its own JSON bodies, echoing the path, and before authentication: a client without a token
 * could tell a route with a parameter (400, 414) from an unknown path (401).
 *
 * Here the request is first authenticated as a path no route matches is (role `read`, the same
 * 401 for a known route and an unknown path), then answered with a problem: 400
 * REQUEST_URL_INVALID for the encoding, 400 REQUEST_INVALID for the length (as the route's schema
 * answers a parameter longer than it allows, below the router's limit). The rate limit does not
 * count these requests: its hook does not run.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { authorize, notAuthenticated, type AuthContext } from './auth.ts';
import { sendError, sendProblem } from './problem.ts';

export function frameworkErrorHandler(auth: AuthContext, maxParamLength: number): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    void answer(error, request, reply, auth, maxParamLength)
      .catch((failure: unknown) => {
        if (!reply.sent) void notAuthenticated(request, reply, failure);
      })
      .finally(() => {
        // The request log's hook (http/ops-routes.ts) does not run either; its line, without the path.
        request.log.info({ reqId: request.id, method: request.method, status: reply.statusCode, error: error.code }, 'request');
      });
  };
}

async function answer(error: FastifyError, request: FastifyRequest, reply: FastifyReply, auth: AuthContext, maxParamLength: number): Promise<void> {
  // The login cookie's session is looked up in Redis, hence asynchronous.
  if ((await authorize(request, reply, auth, 'read', undefined)) !== undefined) return;
  if (error.code === 'FST_ERR_BAD_URL') {
    void sendError(reply, errorFrom(coordinatorErrors, 'REQUEST_URL_INVALID', 'a part of the URL path is not valid percent-encoded UTF-8', { part: 'path' }));
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendError(reply, errorFrom(coordinatorErrors, 'REQUEST_INVALID', `a path parameter is longer than ${maxParamLength} characters`, { part: 'params' }));
  } else {
    request.log.error({ code: error.code }, 'the router failed');
    void sendProblem(reply, { type: 'about:blank', title: 'Internal error', status: 500, code: 'INTERNAL', detail: 'the router failed', retryable: true });
  }
}
