/**
 * One attempt each at the services a process needs at start: Redis answers PING, the S3 bucket
 * answers a HEAD of a key (found or not found: both prove the endpoint, the bucket and the keys).
 */
import { Redis } from 'ioredis';
import { openObjectStore, type S3ConnectionOptions } from '@tributary/table';

export async function pingRedis(redis: { readonly host: string; readonly port: number }): Promise<void> {
  const client = new Redis({ ...redis, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2000 });
  // Without a listener ioredis prints every connection error with its stack; the socket's error
  // (ECONNREFUSED, ENOTFOUND…) says more than the "Connection is closed" connect() rejects with.
  let socketError: unknown;
  client.on('error', (error: unknown) => {
    socketError ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw socketError ?? error;
  } finally {
    client.disconnect();
  }
}

/** For an s3:// URI only; a file:/// warehouse needs no service. */
export async function statStore(uri: string, s3: S3ConnectionOptions): Promise<void> {
  if (!uri.startsWith('s3')) return;
  // The SDK retries a refused connection itself; a silent network (no answer at all) is cut here.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${S3_ATTEMPT_MS} ms`)), S3_ATTEMPT_MS);
  });
  try {
    await Promise.race([openObjectStore(uri, s3).stat('.tributary-reachable'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const S3_ATTEMPT_MS = 5000;
