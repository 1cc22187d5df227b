/**
 * Makes a new bearer token: `node packages/coordinator/src/new-token.ts <role> [name]` prints one
 * JSON line `{"token": …, "entry": "role:name:sha256hex"}`. Give the token to the client and put
 * the entry (which holds only the hash) into TRIBUTARY_AUTH_TOKENS or TRIBUTARY_AUTH_TOKENS_FILE.
 */
import { ROLES, newToken, type Role } from './auth-tokens.ts';

const [role, name = `${process.argv[2] ?? ''}-${Date.now().toString(36)}`] = process.argv.slice(2);
if (!(ROLES as readonly string[]).includes(role ?? '')) {
  console.error(`usage: new-token.ts <${ROLES.join('|')}> [name]`);
  process.exit(2);
}
console.log(JSON.stringify(newToken(role as Role, name)));
