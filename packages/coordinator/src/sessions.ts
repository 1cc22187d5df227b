/**
 * The dashboard's login sessions in Redis. `POST /admin/login` checks a token and opens a session:
 * the browser gets a random 256-bit id in its cookie, never the token. Redis holds neither the id nor
 * the token, only:
 *
 * - `<prefix>:session:<SHA-256 of the id, hex>` → `{"name":…,"role":…,"token":…,"createdAt":…}`,
 *   expiring with the cookie (SESSION_TTL_S). `token` is a digest of the token's configured hash
 *   (sessionBinding), so it names the token without being its configured entry either.
 *
 * A session authenticates only while the coordinator is configured with its token: each request
 * looks the session up and finds, among the tokens configured now, the one of the same name and
 * hash; the role is that token's current one. A token removed from the configuration, or replaced
 * under its name, no longer opens its sessions (tokens are read at start, so after a restart).
 * Logging out deletes the key; so does a new login from the same browser.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AuthToken, Role } from './auth-tokens.ts';

/** How long a session lasts, in Redis and in the browser's cookie (Max-Age): 12 hours, not renewed. */
export const SESSION_TTL_S = 12 * 3600;

/** A session id as issued: 32 random bytes, base64url without padding. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

interface SessionRecord {
  readonly name: string;
  readonly role: Role;
  readonly token: string;
  readonly createdAt: string;
}

/** What a session stores to name its token: SHA-256 of the token's configured SHA-256 (domain-separated), hex. */
export function sessionBinding(token: AuthToken): string {
  return createHash('sha256').update(`tributary-session\0${token.sha256}`, 'utf8').digest('hex');
}

function hashId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

export class SessionStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttlS: number;

  constructor(redis: Redis, prefix: string, ttlS = SESSION_TTL_S) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#ttlS = ttlS;
  }

  #key(id: string): string {
    return `${this.#prefix}:session:${hashId(id)}`;
  }

  /** Seconds a new session lasts (the cookie's Max-Age). */
  get ttlSeconds(): number {
    return this.#ttlS;
  }

  /** Opens a session of `token`; returns its id, for the cookie only (never log it). */
  async create(token: AuthToken): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const record: SessionRecord = { name: token.name, role: token.role, token: sessionBinding(token), createdAt: new Date().toISOString() };
    await this.#redis.set(this.#key(id), JSON.stringify(record), 'EX', this.#ttlS);
    return id;
  }

  /**
   * The configured token a session id stands for now: undefined when the id is malformed, unknown or
   * expired, or when no token of `tokens` has the session's name and hash.
   */
  async resolve(id: string, tokens: readonly AuthToken[]): Promise<AuthToken | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const stored = await this.#redis.get(this.#key(id));
    const record = stored === null ? undefined : parseRecord(stored);
    if (record === undefined) return undefined;
    const binding = Buffer.from(record.token, 'hex');
    let found: AuthToken | undefined;
    for (const token of tokens) {
      const candidate = Buffer.from(sessionBinding(token), 'hex');
      if (token.name === record.name && candidate.length === binding.length && timingSafeEqual(candidate, binding) && found === undefined) found = token;
    }
    return found;
  }

  /** Ends a session (logout); an id that is malformed or names none is ignored. */
  async delete(id: string): Promise<void> {
    if (SESSION_ID.test(id)) await this.#redis.del(this.#key(id));
  }
}

/** The fields a lookup needs (the role stored is the role at login, for whoever reads Redis; the current one counts). */
function parseRecord(text: string): Pick<SessionRecord, 'name' | 'token'> | undefined {
  try {
    const value = JSON.parse(text) as Partial<SessionRecord> | null;
    if (typeof value?.name !== 'string' || typeof value.token !== 'string' || !/^[0-9a-f]{64}$/.test(value.token)) return undefined;
    return { name: value.name, token: value.token };
  } catch {
    return undefined;
  }
}
