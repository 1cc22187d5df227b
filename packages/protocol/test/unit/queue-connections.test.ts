import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { queueConnections, type QueueClient } from '../../src/index.ts';

/** An ioredis-like client: a status and the events it emits as the status changes. */
class FakeClient extends EventEmitter implements QueueClient {
  status = 'ready';
  become(status: string): void {
    this.status = status;
    this.emit(status);
  }
}

function owner(client: Promise<QueueClient>, blockingClient?: Promise<QueueClient>) {
  return { getBackend: () => ({ client, blockingClient }) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('ready only once every client of every owner has connected and is ready', async () => {
  const command = new FakeClient();
  const blocking = new FakeClient();
  let connectBlocking: (c: QueueClient) => void = () => undefined;
  const links = queueConnections([owner(Promise.resolve(command), new Promise((resolve) => (connectBlocking = resolve)))]);
  await turn();
  assert.equal(links.notReady(), '1 queue connection(s) not connected yet');
  connectBlocking(blocking);
  await turn();
  assert.equal(links.notReady(), undefined);
  blocking.become('reconnecting');
  assert.equal(links.notReady(), '1 queue connection(s) reconnecting');
  command.become('connecting');
  assert.equal(links.notReady(), '2 queue connection(s) connecting, reconnecting');
});

test('settled waits for a client parked between reconnection attempts to be ready or ended, and no longer', async () => {
  const a = new FakeClient();
  const b = new FakeClient();
  const c = new FakeClient();
  const links = queueConnections([owner(Promise.resolve(a), Promise.resolve(b)), owner(Promise.resolve(c))]);
  await turn();
  await links.settled(); // all ready: nothing to wait for
  a.become('reconnecting');
  b.become('close');
  let settled = false;
  const waiting = links.settled().then(() => (settled = true));
  await turn();
  assert.equal(settled, false);
  a.become('ready');
  await turn();
  assert.equal(settled, false, 'still one parked');
  b.become('end');
  await waiting;
  assert.equal(a.listenerCount('ready') + a.listenerCount('end') + b.listenerCount('ready') + b.listenerCount('end'), 0, 'no listener left behind');
});

test('a client that never connected is neither waited for nor counted once its owner gave up on it', async () => {
  const links = queueConnections([owner(Promise.reject(new Error('ECONNREFUSED')))]);
  await turn();
  assert.equal(links.notReady(), undefined);
  await links.settled();
});
