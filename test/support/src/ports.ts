import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 nobody listens on now: the system hands out a free one, which is released
 * before it is returned (another process may still take it first; the caller's bind then fails).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
