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
 * The token comes from `Authorization: Bearer …`, or, for browsers on the dashboard, the docs and the
 * syncs page, from a login session: `POST /admin/login` checks a posted token (a form, so it never
 * appears in a URL, a proxy's access log or the browser history) and sets an HttpOnly,
 * SameSite=Strict cookie holding a random session id, not the token (sessions.ts keeps the session
 * in Redis, under a hash of its id). Each request the cookie authenticates resolves its session
 * against the tokens configured now; `POST /admin/logout` ends it. A browser that opens the syncs
 * page without a valid session is redirected to the login form.
 *
 * With no token configured the app is open (`tributary coordinator` allows that on loopback only).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errorFrom } from '@tributary/protocol';
import { findToken, roleAllows, type AuthToken, type Role } from '../auth-tokens.ts';
import { coordinatorErrors } from '../errors.ts';
import { isLoopback } from '../loopback.ts';
import type { SessionStore } from '../sessions.ts';
import { ProblemSchema, sendError, sendProblem } from './problem.ts';

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
  /**
   * The reverse proxies (addresses, CIDR ranges, or `loopback`/`linklocal`/`uniquelocal`) whose
   * X-Forwarded-For and X-Forwarded-Proto are believed: a request from one of them has the client's
   * address (the rate limit's key for a caller without a token, the log) and the client's scheme
   * (the login cookie is Secure when that is https). Default none: the peer's own address and scheme.
   */
  readonly trustProxy?: readonly string[];
}

/** What the hooks check requests with: the configuration, and the login sessions in Redis. */
export interface AuthContext extends AuthOptions {
  readonly sessions: SessionStore;
}

export const DASHBOARD_PREFIX = '/admin/queues';
export const LOGIN_PATH = '/admin/login';
export const LOGOUT_PATH = '/admin/logout';
/** The login cookie over http: a session id (sessions.ts), never a token. */
export const SESSION_COOKIE = 'tributary_session';
/**
 * The login cookie over https. The `__Host-` prefix makes a browser keep it only when set Secure,
 * with `Path=/` and no `Domain`, by this very host: a page on a sibling subdomain (or anyone on an
 * http connection to the parent domain) cannot plant its own session id in the browser under this
 * name ("cookie tossing"), as it can under a plain name scoped to the parent domain. Over https only
 * this name authenticates.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/**
 * The cookie of earlier versions, which held the token itself. It authenticates nothing any more (a
 * browser holding only it is sent to sign in again); login and logout expire it, so the token leaves
 * the browser's cookie store.
 */
const LEGACY_TOKEN_COOKIE = 'tributary_token';

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
export function registerAuth(app: FastifyInstance, options: AuthContext): void {
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
    authorize(request, reply, options, request.routeOptions.config.role ?? 'read', request.routeOptions.url).catch((error: unknown) => notAuthenticated(request, reply, error)),
  );
}

/**
 * The answer when authentication could not be decided (a login session's lookup failed: Redis
 * away): 503, retryable, the cause in the log only. Answered here, not thrown, for the reason
 * authorize answers itself.
 */
export function notAuthenticated(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  request.log.error({ error: error instanceof Error ? error.message : String(error) }, 'request not authenticated: the login session could not be read');
  return sendProblem(reply, { type: 'about:blank', title: 'Internal error', status: 503, code: 'INTERNAL', detail: 'the request could not be authenticated; retry', retryable: true });
}

/**
 * Checks the request against the role its route needs: answers 401, 403 or the open coordinator's
 * refusal itself (and returns the reply), or sets `request.principal` and returns undefined. Also
 * called for a URL the router refuses before any hook (http/framework-errors.ts), as `read`.
 */
export async function authorize(request: FastifyRequest, reply: FastifyReply, options: AuthContext, need: RouteRole, routeUrl: string | undefined): Promise<FastifyReply | undefined> {
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
  // The cookie counts only without a bearer header; its session names a token configured now, or none.
  const session = bearer === undefined ? sessionCookie(request) : undefined;
  const token = bearer !== undefined ? findToken(options.tokens, bearer) : session !== undefined ? await options.sessions.resolve(session, options.tokens) : undefined;
  // A browser opening the syncs page without a (valid) session is sent to the login form.
  const signIn = () => reply.header('cache-control', 'no-store').redirect(`${LOGIN_PATH}?next=${encodeURIComponent(UI_PAGE)}`, 303);
  const pageNavigation = request.method === 'GET' && (routeUrl === UI_PAGE || routeUrl === UI_PAGE.slice(0, -1)) && /\btext\/html\b/.test(request.headers.accept ?? '');
  if (token === undefined && pageNavigation) return signIn();
  if (bearer === undefined && session === undefined) {
    return sendError(reply, errorFrom(coordinatorErrors, 'AUTH_TOKEN_MISSING', 'this route needs a bearer token (Authorization: Bearer <token>)', { need }));
  }
  if (token === undefined) {
    void reply.header('www-authenticate', 'Bearer realm="tributary", error="invalid_token"');
    const message = bearer !== undefined ? 'the bearer token is not a configured token' : `the login session is unknown or expired, or its token is no longer configured; sign in again at ${LOGIN_PATH}`;
    return sendError(reply, errorFrom(coordinatorErrors, 'AUTH_TOKEN_INVALID', message, { need }));
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

/** The login cookie's name for this request's scheme (SECURE_SESSION_COOKIE over https). */
function sessionCookieName(request: FastifyRequest): string {
  return request.protocol === 'https' ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** The session id of the login cookie, as sent (sessions.ts refuses one it did not issue). */
function sessionCookie(request: FastifyRequest): string | undefined {
  return cookieValue(request, sessionCookieName(request));
}

/** The first cookie of this name the request carries. */
function cookieValue(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
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
 * GET /admin/login: a form (public: it holds nothing). POST /admin/login: checks the posted token,
 * opens a session for it (sessions.ts) and sets the session's id in an HttpOnly, SameSite=Strict
 * cookie (Secure over https) that lasts as long as the session, then sends the browser to the
 * dashboard. A token that is not configured is refused with 401 like everywhere else.
 *
 * POST /admin/logout: ends the cookie's session and expires the cookie, then sends the browser to
 * the login form. Public, so a browser whose session already ended can still clear its cookie; but
 * like every write the cookie authenticates it must come from this origin (403
 * AUTH_COOKIE_CROSS_ORIGIN), and another site's page may not sign the browser out either.
 */
export function registerLogin(app: FastifyInstance, tokens: readonly AuthToken[], sessions: SessionStore): void {
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
      const token = presented === '' ? undefined : findToken(tokens, presented);
      if (token === undefined) {
        void reply.header('www-authenticate', 'Bearer realm="tributary"');
        throw errorFrom(coordinatorErrors, presented === '' ? 'AUTH_TOKEN_MISSING' : 'AUTH_TOKEN_INVALID', 'the posted token is not a configured token', {});
      }
      // A new login replaces the browser's session: the one its cookie held (if any) ends.
      const previous = sessionCookie(request);
      if (previous !== undefined) await sessions.delete(previous);
      const id = await sessions.create(token);
      return setSessionCookie(request, reply, id, sessions.ttlSeconds).redirect(next, 303);
    });
    scope.post(LOGOUT_PATH, { config: { role: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const body = request.body as { next?: unknown } | undefined;
      const next = loginTarget(typeof body === 'object' && body !== null ? body.next : undefined);
      const session = sessionCookie(request);
      if (crossSite(request) || (session !== undefined && !sameOrigin(request))) {
        throw errorFrom(coordinatorErrors, 'AUTH_COOKIE_CROSS_ORIGIN', 'a logout must come from this coordinator\'s own pages (Sec-Fetch-Site: same-origin, or an Origin naming this host)', {});
      }
      if (session !== undefined) await sessions.delete(session);
      return setSessionCookie(request, reply, undefined, 0).redirect(`${LOGIN_PATH}?next=${encodeURIComponent(next)}`, 303);
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

/**
 * Sets the login cookie of the request's scheme to a session id (`id`, for `maxAgeS` seconds) or
 * expires it (`id` undefined), and expires the cookies the browser still sends that authenticate
 * nothing here: an earlier version's token cookie, and over https the plain-named session cookie
 * (an earlier version's, or one planted for this host).
 */
function setSessionCookie(request: FastifyRequest, reply: FastifyReply, id: string | undefined, maxAgeS: number): FastifyReply {
  const cookie = (name: string, value: string, seconds: number) => {
    const attributes = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${seconds}`];
    if (request.protocol === 'https') attributes.push('Secure');
    return attributes.join('; ');
  };
  const name = sessionCookieName(request);
  const cookies = [id === undefined ? cookie(name, '', 0) : cookie(name, id, maxAgeS)];
  for (const stale of [LEGACY_TOKEN_COOKIE, ...(name === SESSION_COOKIE ? [] : [SESSION_COOKIE])]) {
    if (cookieValue(request, stale) !== undefined) cookies.push(cookie(stale, '', 0));
  }
  return reply.header('set-cookie', cookies.length === 1 ? cookies[0] : cookies).header('cache-control', 'no-store');
}
