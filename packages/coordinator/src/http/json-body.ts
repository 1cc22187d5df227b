/**
 * The JSON body parser: Fastify's own (secure-json-parse, which refuses a `__proto__` key and a
 * `constructor` key holding `prototype`), with one message put right. Fastify answers every refusal
 * "Body is not valid JSON", also for a well-formed body refused only for such a key; that body is
 * told what is wrong with it instead. The refusal itself stays secure-json-parse's.
 */
import type { FastifyInstance } from 'fastify';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';

export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    void parse(request, text, (error, value) => {
      if (error === null || !isJson(text)) {
        done(error, value);
        return;
      }
      done(errorFrom(coordinatorErrors, 'REQUEST_INVALID', 'the body has a forbidden key: __proto__, or constructor holding prototype', { part: 'body' }), undefined);
    });
  });
}

/** Whether plain JSON.parse reads it: then the default parser refused a key, not the syntax. */
function isJson(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
