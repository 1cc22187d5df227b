/**
 * The Redis connections of a process's BullMQ workers and queue-event listeners (each one's command
 * client and, for those that block, its blocking client), watched for two things BullMQ does not do
 * by itself after Redis went away and came back:
 *
 * - Readiness: a process whose blocking client is still waiting to reconnect takes no job, so it is
 *   not ready until every connection is.
 * - A close that returns: a graceful `Worker.close()` disconnects the blocking client and waits for
 *   its `end` event. ioredis never emits it for a client parked between two reconnection attempts
 *   (status `reconnecting`): the disconnect cancels the next attempt and there is no socket left to
 *   close, so the close waited for ever (BullMQ issue #4656). Waiting until no client is parked
 *   (connected again, or ended) before closing lets the close finish. While Redis stays away the
 *   close waits for it, as BullMQ's own close does; a CLI process still exits after its grace.
 *
 * Structural types only: no dependency on BullMQ or ioredis here.
 */
export interface QueueClient {
  readonly status: string;
  once(event: string, listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
}

/** A BullMQ Worker, QueueEvents or Queue: its backend's clients, each a promise settled once it first connected. */
export interface QueueConnectionOwner {
  getBackend(): { readonly client: Promise<QueueClient>; readonly blockingClient?: Promise<QueueClient> | undefined };
}

export interface QueueConnections {
  /** Why not every connection is ready (a status, never an address or a credential); undefined when all are. */
  notReady(): string | undefined;
  /** Resolves once no connection is between reconnection attempts: each is ready, ended, or never started. */
  settled(): Promise<void>;
}

/** ioredis statuses on the way from a lost connection to the next one (`close` comes just before `reconnecting`). */
const RECONNECTING = new Set(['close', 'reconnecting', 'connecting', 'connect']);

export function queueConnections(owners: readonly QueueConnectionOwner[]): QueueConnections {
  const connected: QueueClient[] = [];
  const pending = new Set<Promise<QueueClient>>();
  for (const owner of owners) {
    const backend = owner.getBackend();
    for (const client of [backend.client, backend.blockingClient]) {
      if (client === undefined) continue;
      pending.add(client);
      client.then(
        (c) => {
          pending.delete(client);
          connected.push(c);
        },
        // A client that never connected is ended by its owner's close; its error is the owner's to report.
        () => pending.delete(client),
      );
    }
  }
  return {
    notReady() {
      if (pending.size > 0) return `${pending.size} queue connection(s) not connected yet`;
      const parked = connected.filter((c) => c.status !== 'ready');
      return parked.length === 0 ? undefined : `${parked.length} queue connection(s) ${[...new Set(parked.map((c) => c.status))].join(', ')}`;
    },
    async settled() {
      await Promise.all(connected.filter((c) => RECONNECTING.has(c.status)).map(backAgain));
    },
  };
}

/**
 * The `redis` readiness probe of a coordinator or a worker: its own client connected and answering
 * a ping, and every queue connection back (`links`).
 */
export function redisProbe(redis: { readonly status: string; ping(): Promise<unknown> }, links: QueueConnections): () => Promise<void> {
  return async () => {
    if (redis.status !== 'ready') throw new Error(`not connected (${redis.status})`);
    await redis.ping();
    // A process whose blocking connection still waits to reconnect takes no job.
    const queuesDown = links.notReady();
    if (queuesDown !== undefined) throw new Error(queuesDown);
  };
}

function backAgain(client: QueueClient): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      client.removeListener('ready', done);
      client.removeListener('end', done);
      resolve();
    };
    client.once('ready', done);
    client.once('end', done);
  });
}
