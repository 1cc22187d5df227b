/**
 * The worker's small HTTP listener (off unless a port is given): `GET /metrics` (Prometheus text),
 * `GET /healthz` (the process is up), `GET /readyz` (Redis and storage answer; 503 naming the one
 * that does not). No authentication: bind it to loopback or a network only Prometheus and the
 * orchestrator reach. It serves nothing else and reads no request body.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ShardWorker } from './runtime.ts';

export interface WorkerHttp {
  /** `http://host:port` as bound (port 0 picks a free one). */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveWorkerHttp(worker: ShardWorker, options: { readonly host?: string; readonly port: number }): Promise<WorkerHttp> {
  const server: Server = createServer((request, response) => {
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : body);
    };
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    if (path === '/healthz') return send(200, 'application/json', JSON.stringify({ ok: true }));
    if (path === '/readyz') {
      void worker.readiness().then((r) => send(r.ready ? 200 : 503, 'application/json', JSON.stringify(r)));
      return;
    }
    if (path === '/metrics') {
      void worker.metrics.registry.metrics().then(
        (text) => send(200, worker.metrics.registry.contentType, text),
        () => send(500, 'text/plain', 'metrics unavailable\n'),
      );
      return;
    }
    send(404, 'text/plain', 'not found\n');
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
