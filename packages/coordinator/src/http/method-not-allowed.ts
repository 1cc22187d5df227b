/**
 * 405 Method Not Allowed, with an `Allow` header, for a path the API serves under other methods
 * (RFC 9110 §15.5.6); Fastify alone answers 404, or 400 when the unknown method must carry a body.
 * Runs as the first hook, before any body is parsed.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { sendProblem } from './problem.ts';

const KNOWN: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

export function registerMethodNotAllowed(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url !== undefined) return; // a route matched
    const path = request.url.split('?', 1)[0] ?? '/';
    const allowed = KNOWN.filter((m) => m !== request.method && app.findRoute({ method: m, url: path }) !== null);
    if (allowed.length === 0) return; // a plain 404
    reply.header('allow', allowed.join(', '));
    return sendProblem(reply, {
      type: 'about:blank',
      title: 'Method not allowed',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      detail: `${request.method} is not served here; allowed: ${allowed.join(', ')}`,
      retryable: false,
    });
  });
}
