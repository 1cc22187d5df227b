/**
 * Authentication and roles for every route of the app, the dashboard and the docs included.
 *
 * Each route gets the role it needs when it is registered (an `onRoute` hook, so a route added
 * later is covered without anyone remembering to): `public` if its path is configured public, its
 * `config.role` if it names one, `admin` for the dashboard's Redis statistics (the server's INFO:
 * its version, memory, clients, configuration), `read` for any other GET/HEAD, `operate` for the
 * dashboard's retries, and `admin` for any other method, so a new writing route is closed by default. One `onRequest` hook
 * then checks the request's token against that role: 401 without a known token, 403 below the role.
 *
 * The token comes from `Authorization: Bearer …`, or from the HttpOnly, SameSite=Strict cookie that
 * `POST /admin/login` sets, for browsers on the dashboard, the docs and the syncs page (a form posts
 * the token, so it never appears in a URL, a proxy's access log or the browser history). A browser
 * that opens the syncs page without a valid token is redirected to the login form.
 *
 * With no token configured the app is open (`tributary coordinator` allows that on loopback only).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errorFrom } from '@tributary/protocol';
import { findToken, roleAllows, type AuthToken, type Role } from '../auth-tokens.ts';
import { coordinatorErrors } from '../errors.ts';
import { isLoopback } from '../loopback.ts';
import { ProblemSchema, sendError } from './problem.ts';

export type RouteRole = Role | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The role a route needs; derived by `registerAuth` when a route does not set it. */
    role?: RouteRole;
  }
  interface FastifyRequest {
    /** Who made the request: a configured token's name and role, or `open` when auth is off. */
    principal?: Principal;
  }
}

export interface Principal {
  readonly name: string;
  readonly role: Role;
  /** The rate-limit key: the token's name, or the client address when auth is off. */
  readonly key: string;
}

export interface AuthOptions {
  /** Empty: no authentication (every request may do everything). */
  readonly tokens: readonly AuthToken[];
  /** Route paths anyone may call (as registered, e.g. `/healthz`); default `['/healthz']`. */
  readonly publicRoutes?: readonly string[];
}

export const DASHBOARD_PREFIX = '/admin/queues';
export const LOGIN_PATH = '/admin/login';
export const TOKEN_COOKIE = 'tributary_token';
const COOKIE_MAX_AGE_S = 12 * 3600;

/** The dashboard's retry actions, which `operate` may use; every other dashboard write is `admin`. */
const DASHBOARD_RETRY = /\/retry(\/:queueStatus)?$/;

/** Dashboard reads only `admin` may make: Redis's INFO (server version, memory, clients, settings) is no queue's business. */
export const DASHBOARD_ADMIN_READS: readonly string[] = [`${DASHBOARD_PREFIX}/api/redis/stats`];

export function routeRole(method: string | readonly string[], url: string, configured: RouteRole | undefined, publicRoutes: readonly string[]): RouteRole {
  // The operator's public list wins over the route's own role.
  if (publicRoutes.includes(url)) return 'public';
  if (configured !== undefined) return configured;
  if (DASHBOARD_ADMIN_READS.includes(url)) return 'admin';
  const methods = (typeof method === 'string' ? [method] : method).map((m) => m.toUpperCase());
  if (methods.every((m) => m === 'GET' || m === 'HEAD')) return 'read';
  if (url.startsWith(`${DASHBOARD_PREFIX}/`) && DASHBOARD_RETRY.test(url)) return 'operate';
  return 'admin';
}

/**
 * Must be called before any route is registered (the onRoute hook only sees later routes); then
 * registerLogin for the browser's cookie.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const publicRoutes = options.publicRoutes ?? ['/healthz'];

  app.addHook('onRoute', (route: RouteOptions) => {
    const role = routeRole(route.method, route.url, route.config?.role, publicRoutes);
    route.config = { ...route.config, role };
    // Configured public routes are not rate limited (a load balancer's health checks).
    if (publicRoutes.includes(route.url)) route.config = { ...route.config, rateLimit: false } as typeof route.config;
    const schema = route.schema as (Record<string, unknown> & { hide?: boolean; response?: Record<string, unknown> }) | undefined;
    if (schema !== undefined && schema.hide !== true) {
      route.schema = {
        ...schema,
        security: role === 'public' ? [] : [{ bearerAuth: [] }],
        description: [schema.description, role === 'public' ? 'Public.' : `Needs a token with role \`${role}\` or above.`].filter(Boolean).join(' '),
        ...(role === 'public' ? {} : { response: { 401: ProblemSchema, 403: ProblemSchema, 429: ProblemSchema, ...schema.response } }),
      };
    }
  });

  app.addHook('onRequest', async (request, reply) =>
    // A URL no route matches needs `read`: without a token, nobody learns which routes exist.
    authorize(request, reply, options, request.routeOptions.config.role ?? 'read', request.routeOptions.url),
  );
}

/**
 * Checks the request against the role its route needs: answers 401, 403 or the open coordinator's
 * refusal itself (and returns the reply), or sets `request.principal` and returns undefined. Also
 * called for a URL the router refuses before any hook (http/framework-errors.ts), as `read`.
 */
export function authorize(request: FastifyRequest, reply: FastifyReply, options: AuthOptions, need: RouteRole, routeUrl: string | undefined): FastifyReply | undefined {
  if (need === 'public') return undefined;
  if (options.tokens.length === 0) {
    // Open serves this machine's own clients only. A web page the user visits cannot use it: by
    // DNS rebinding its requests name the page's host, and a cross-site form or fetch is marked
    // so by the browser (Sec-Fetch-Site, Origin).
    if (!isLoopback(request.hostname) || crossOrigin(request)) {
      return sendError(reply, errorFrom(coordinatorErrors, 'AUTH_OPEN_FOREIGN', 'an open coordinator answers only requests addressed to a loopback host from no other site', { need }));
    }
    request.principal = { name: 'open', role: 'admin', key: `ip:${request.ip}` };
    return undefined;
  }
  // The hook answers itself rather than throwing: a thrown error would reach the error handler
  // of the route's own plugin (the dashboard has its own), not the problem+json one.
  const bearer = bearerToken(request);
  const presented = bearer ?? cookieToken(request);
  // A browser opening the syncs page without a (valid) token is sent to the login form.
  const signIn = () => reply.header('cache-control', 'no-store').redirect(`${LOGIN_PATH}?next=${encodeURIComponent(UI_PAGE)}`, 303);
  const pageNavigation = request.method === 'GET' && (routeUrl === UI_PAGE || routeUrl === UI_PAGE.slice(0, -1)) && /\btext\/html\b/.test(request.headers.accept ?? '');
  if ((presented === undefined || findToken(options.tokens, presented) === undefined) && pageNavigation) return signIn();
  if (presented === undefined) {
    return sendError(reply, errorFrom(coordinatorErrors, 'AUTH_TOKEN_MISSING', 'this route needs a bearer token (Authorization: Bearer <token>)', { need }));
  }
  const token = findToken(options.tokens, presented);
  if (token === undefined) {
    void reply.header('www-authenticate', 'Bearer realm="tributary", error="invalid_token"');
    return sendError(reply, errorFrom(coordinatorErrors, 'AUTH_TOKEN_INVALID', 'the bearer token is not a configured token', { need }));
  }
  request.principal = { name: token.name, role: token.role, key: `token:${token.name}` };
  // The cookie is sent by the browser with any request from the same *site* (SameSite=Strict):
  // a page on another port of this host, or on a sibling subdomain, could make it write. A write
  // the cookie authenticates must come from this origin; a bearer header is never sent by itself.
  if (bearer === undefined && !SAFE_METHODS.has(request.method) && !sameOrigin(request)) {
    return sendError(
      reply,
      errorFrom(coordinatorErrors, 'AUTH_COOKIE_CROSS_ORIGIN', 'a write authenticated by the login cookie must come from this coordinator\'s own pages (Sec-Fetch-Site: same-origin, or an Origin naming this host); API clients send Authorization: Bearer', { need }),
    );
  }
  if (!roleAllows(token.role, need)) {
    const message = `this route needs role ${need}; the token ${token.name} has role ${token.role}`;
    return sendError(reply, errorFrom(coordinatorErrors, 'AUTH_ROLE_INSUFFICIENT', message, { need, role: token.role, token: token.name }));
  }
  return undefined;
}

/**
 * The token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive, RFC
 * 9110 §11.1). A header of another scheme, or a bare token, carries no bearer token: the cookie may
 * still authenticate (a proxy's own Basic header), else 401 AUTH_TOKEN_MISSING, as without a header.
 */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !/^Bearer(?:[ \t]|$)/i.test(header)) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  // A malformed Bearer header (`Bearer a b`, `Bearer` alone) counts as a presented (and thus unknown) token.
  return match?.[1] ?? header;
}

function cookieToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === TOKEN_COOKIE) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return part.slice(eq + 1).trim();
      }
    }
  }
  return undefined;
}

/** The syncs page (http/ui-routes.ts): a browser without a token is sent to the login form first. */
const UI_PAGE = '/ui/';

/** Where a login may send the browser afterwards (`next`): only these fixed paths, never a URL from the request. */
const LOGIN_TARGETS: readonly string[] = [`${DASHBOARD_PREFIX}/`, UI_PAGE];

function loginTarget(next: unknown): string {
  return typeof next === 'string' && LOGIN_TARGETS.includes(next) ? next : `${DASHBOARD_PREFIX}/`;
}

function loginForm(next: string): string {
  // `next` is one of LOGIN_TARGETS (plain paths), so it needs no escaping.
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Tributary: sign in</title></head>
<body><form method="post" action="${LOGIN_PATH}">
<input type="hidden" name="next" value="${next}">
<label>Token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">Sign in</button></form></body></html>`;
}

/**
 * GET /admin/login: a form (public: it holds nothing). POST /admin/login: checks the posted token
 * and stores it in an HttpOnly, SameSite=Strict cookie (Secure over https), then sends the browser
 * to the dashboard. A token that is not configured is refused with 401 like everywhere else.
 */
export function registerLogin(app: FastifyInstance, tokens: readonly AuthToken[]): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    scope.get(LOGIN_PATH, { config: { role: 'public' }, schema: { hide: true } }, (request, reply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(loginForm(loginTarget((request.query as { next?: unknown }).next))),
    );
    scope.post(LOGIN_PATH, { config: { role: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const body = request.body as { token?: unknown; next?: unknown } | undefined;
      const presented = typeof body?.token === 'string' ? body.token : '';
      const next = loginTarget(body?.next);
      if (tokens.length === 0) return reply.redirect(next, 303); // open: nothing to remember
      if (crossSite(request)) {
        throw errorFrom(coordinatorErrors, 'AUTH_LOGIN_CROSS_SITE', 'the login form was posted from another site', {});
      }
      if (presented === '' || findToken(tokens, presented) === undefined) {
        void reply.header('www-authenticate', 'Bearer realm="tributary"');
        throw errorFrom(coordinatorErrors, presented === '' ? 'AUTH_TOKEN_MISSING' : 'AUTH_TOKEN_INVALID', 'the posted token is not a configured token', {});
      }
      return setTokenCookie(request, reply, presented).redirect(next, 303);
    });
  });
}

/**
 * A login posted by another site's page (login CSRF: signing the victim's browser in with the
 * attacker's token). Browsers name the poster in Sec-Fetch-Site and Origin; clients that send
 * neither (curl) are not browsers and are let through.
 */
/** A browser's request from another origin: a site other than this one, or an Origin not on loopback. */
function crossOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return !isLoopback(new URL(origin).hostname);
  } catch {
    return true; // 'null' (a sandboxed or file: page) and anything malformed
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser's request from this coordinator's own origin: Sec-Fetch-Site, when sent, says
 * `same-origin`, and Origin, when sent, names this host (scheme aside: one port serves one scheme);
 * at least one of them is sent (browsers send both on every write, curl neither).
 */
function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  if (site === undefined && origin === undefined) return false;
  if (site !== undefined && site !== 'same-origin') return false;
  if (origin === undefined) return true;
  try {
    return origin !== 'null' && new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return origin === 'null';
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

function setTokenCookie(request: FastifyRequest, reply: FastifyReply, token: string): FastifyReply {
  const attributes = [`${TOKEN_COOKIE}=${encodeURIComponent(token)}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${COOKIE_MAX_AGE_S}`];
  if (request.protocol === 'https') attributes.push('Secure');
  return reply.header('set-cookie', attributes.join('; ')).header('cache-control', 'no-store');
}
