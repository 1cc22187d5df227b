/**
 * The syncs page at /ui: three static files (src/ui/) read once at start. The routes need the
 * `read` role like every GET; a browser signs in at /admin/login (cookie) and the page's script
 * reads the API with that cookie. The Content-Security-Policy allows only this origin's script and
 * style and no inline code, so even a value the page rendered as markup by mistake could not run.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

export const UI_PREFIX = '/ui';

const FILES = [
  { path: '/', file: 'index.html', type: 'text/html; charset=utf-8' },
  { path: '/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8' },
  { path: '/app.css', file: 'app.css', type: 'text/css; charset=utf-8' },
] as const;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function registerUi(app: FastifyInstance): void {
  const dir = new URL('../ui/', import.meta.url);
  for (const { path, file, type } of FILES) {
    const body = readFileSync(new URL(file, dir));
    app.get(`${UI_PREFIX}${path}`, { schema: { hide: true } }, (_request, reply) =>
      reply
        .type(type)
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-cache')
        .send(body),
    );
  }
  app.get(UI_PREFIX, { schema: { hide: true } }, (_request, reply) => reply.redirect(`${UI_PREFIX}/`, 302));
}
