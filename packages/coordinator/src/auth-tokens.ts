/**
 * Bearer tokens and roles, pure: parsing the configured entries, hashing a presented token and
 * finding it among the configured ones. The coordinator never holds a token in clear: it keeps the
 * SHA-256 of each (enough for random tokens of 128 bits or more, which no dictionary reaches) and
 * compares hashes in constant time.
 *
 * An entry is `role:sha256hex` or `role:name:sha256hex`; entries are separated by newlines, commas
 * or blanks, and `#` starts a comment. Several entries may be valid at once (rotation: add the new
 * token, move clients, remove the old one).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from './errors.ts';

/** Ordered: each role may do everything the roles before it may. */
export const ROLES = ['read', 'operate', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface AuthToken {
  readonly role: Role;
  /** Shown in logs and used as the rate-limit key; never the token itself. */
  readonly name: string;
  /** SHA-256 of the token, lowercase hex. */
  readonly sha256: string;
}

export function roleAllows(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new random token (256 bits, base64url: safe in a header and a cookie) and its entry line. */
export function newToken(role: Role, name: string): { token: string; entry: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, entry: `${role}:${name}:${hashToken(token)}` };
}

const HEX64 = /^[0-9a-f]{64}$/;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Parses configured entries; `source` names where they came from in the error (never their text). */
export function parseTokenEntries(text: string, source: string): AuthToken[] {
  const tokens: AuthToken[] = [];
  const entries = text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(/[\s,]+/))
    .filter((e) => e !== '');
  entries.forEach((entry, index) => {
    const parts = entry.split(':');
    const role = parts[0];
    const hash = parts.at(-1)?.toLowerCase() ?? '';
    const name = parts.length === 3 ? parts[1] : `${role ?? ''}-${hash.slice(0, 8)}`;
    if ((parts.length !== 2 && parts.length !== 3) || !isRole(role) || !HEX64.test(hash) || name === undefined || !NAME.test(name)) {
      // The entry itself is not echoed: a token pasted in clear by mistake must not reach a log.
      throw errorFrom(coordinatorErrors, 'AUTH_CONFIG_INVALID', `token entry ${index + 1} of ${source} is not role:sha256hex or role:name:sha256hex`, {
        source,
        entry: index + 1,
      });
    }
    tokens.push({ role, name, sha256: hash });
  });
  return tokens;
}

function isRole(value: string | undefined): value is Role {
  return (ROLES as readonly string[]).includes(value ?? '');
}

/**
 * The configured token a presented one hashes to. Every configured hash is compared, in constant
 * time, whichever matches, so the time taken says nothing about which entry (or how much of one)
 * matched.
 */
export function findToken(tokens: readonly AuthToken[], presented: string): AuthToken | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: AuthToken | undefined;
  for (const token of tokens) {
    if (timingSafeEqual(digest, Buffer.from(token.sha256, 'hex')) && found === undefined) found = token;
  }
  return found;
}
