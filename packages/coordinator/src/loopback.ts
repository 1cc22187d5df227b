/** Loopback hosts: where a coordinator may run without tokens, and whom an open one answers. */
import { isIP } from 'node:net';

/** `localhost`, 127.0.0.0/8 or ::1 (brackets allowed, as in a Host header). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.startsWith('::ffff:127.');
  return false;
}
