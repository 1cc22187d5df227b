import { randomUUID } from 'node:crypto';

/** A name no other test uses, so tests run in parallel against shared services. */
export function uniqueName(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
