/**
 * What the coordinator and the worker share at start: refusing a bad configuration with a message
 * (never a stack trace, never a secret), the cluster secret and source access from the resolved
 * configuration, and waiting for Redis and S3.
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { pino, type Logger } from 'pino';
import { clusterSecretFromEnv, isTributaryError } from '@tributary/protocol';
import { loadSourceAccess, type SourceAccess } from '@tributary/sources';
import type { S3ConnectionOptions } from '@tributary/table';
import type { Config } from '../config/keys.ts';
import { configAsEnv } from '../config/load.ts';
import { pingRedis, statStore } from '../probes.ts';
import { UnreachableError, waitFor } from '../wait-for.ts';

/** At most this much log waits in memory for stderr; lines beyond it are dropped (and counted). */
export const LOG_BUFFER_MAX_BYTES = 4 * 1024 * 1024;
/** How long an exit waits for the log to reach stderr. */
export const LOG_FLUSH_MS = 2000;

type SonicBoom = ReturnType<typeof pino.destination>;

/** The process log's destination, once `processLogger` made it. */
let destination: SonicBoom | undefined;

/**
 * The process's JSON log (pino) on stderr. Lines carry ids, phases, codes and durations; the paths
 * below are never logged, and are removed should a future line carry them by mistake.
 *
 * Written asynchronously: a line goes into a buffer and out to stderr as soon as the write before it
 * is done (no batching: `minLength` 0), so a slow or stalled reader of stderr never holds the event
 * loop (a synchronous write to a full pipe does). Every exit of ours goes through `exitAfterLog`,
 * which waits (at most LOG_FLUSH_MS) for the buffer to reach stderr; pino also writes what is left
 * synchronously on `process.exit` and on an uncaught error. A SIGKILL loses what is in the buffer:
 * with stderr read, the lines of the last moment; with stderr not read, up to LOG_BUFFER_MAX_BYTES.
 */
export function processLogger(service: 'coordinator' | 'worker', config: Config): Logger {
  const stream = pino.destination({ dest: 2, sync: false, minLength: 0, maxLength: LOG_BUFFER_MAX_BYTES });
  destination = stream;
  const logger = pino(
    {
      base: { service, pid: process.pid },
      level: config.logLevel,
      redact: { paths: ['headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie', '*.secretAccessKey', '*.password'], censor: '[redacted]' },
    },
    stream,
  );
  // Lines dropped while stderr was not read are counted, and said once it is read again.
  let dropped = 0;
  stream.on('drop', () => dropped++);
  stream.on('drain', () => {
    if (dropped === 0) return;
    logger.warn({ dropped, bufferBytes: LOG_BUFFER_MAX_BYTES }, 'log lines dropped: stderr was not read');
    dropped = 0;
  });
  return logger;
}

/** True while log lines wait for stderr (sonic-boom's own state: a write in flight, or bytes buffered). */
function logPending(stream: SonicBoom): boolean {
  const state = stream as unknown as { _writing?: boolean; _len?: number; destroyed?: boolean };
  return state.destroyed !== true && (state._writing === true || (state._len ?? 0) > 0);
}

/** Resolves once the process log reached stderr, or after LOG_FLUSH_MS (stderr not read). */
export async function flushLog(): Promise<void> {
  const stream = destination;
  if (stream === undefined || !logPending(stream)) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, LOG_FLUSH_MS);
    function done() {
      clearTimeout(timer);
      stream?.off('drain', done);
      resolve();
    }
    stream.on('drain', done);
  });
}

/**
 * Exits with `code` once the log reached stderr. Never settles: callers return or await it, and
 * nothing after it runs. (process.exit would write what is buffered too, but not a write in flight.)
 */
export async function exitAfterLog(code: number): Promise<never> {
  await flushLog();
  process.exit(code);
}

/** Exit code of a start that gave up on Redis or S3. */
export const EXIT_UNREACHABLE = 3;

/** Refuses to start: the log so far, then one plain line on stderr, then exit `code`. */
export async function refuse(who: string, error: unknown, code: number): Promise<never> {
  await flushLog();
  console.error(`${who}: ${isTributaryError(error) ? `${error.code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
  process.exit(code);
}

/** Margin after the shutdown grace before a process that has not stopped gives up. */
export const SHUTDOWN_MARGIN_MS = 15_000;

/**
 * Bounds a graceful shutdown: a process still running `graceMs` + 15 s after the first signal (a
 * close waiting on an unreachable Redis, say) exits 1, and so does it at once on a second signal.
 */
export function stopBounded(logger: Logger, graceMs: number): void {
  const force = (why: string) => {
    logger.error({ graceMs }, why);
    void exitAfterLog(1);
  };
  setTimeout(() => force('shutdown did not finish in time; exiting'), graceMs + SHUTDOWN_MARGIN_MS).unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => force(`second ${signal}; exiting`));
}

export interface Common {
  readonly clusterSecret: Uint8Array;
  readonly sources: SourceAccess;
  readonly redis: { readonly host: string; readonly port: number };
  readonly s3: S3ConnectionOptions;
  /** The configuration as variables, for the parsers that read them. */
  readonly env: Record<string, string | undefined>;
}

/** The cluster secret and source access; throws their typed errors (which name variables, never values). */
export function commonSettings(config: Config): Common {
  const env = configAsEnv(config, process.env);
  return {
    env,
    clusterSecret: clusterSecretFromEnv(env, (path) => readFileSync(path, 'utf8')),
    sources: loadSourceAccess({ env, readText: (path) => readFileSync(path, 'utf8'), realpath }),
    redis: { host: config['redis.host'], port: config['redis.port'] },
    s3: {
      endpoint: config['s3.endpoint'],
      region: config['s3.region'],
      accessKeyId: config['s3.accessKey'],
      secretAccessKey: config['s3.secretKey'],
      unsignedWhenVerified: config['s3.unsignedRuns'],
    },
  };
}

/** Waits for Redis and the S3 store, both at once; exits with EXIT_UNREACHABLE when either stays unreachable. */
export async function awaitServices(who: string, logger: Logger, config: Config, common: Common, storeUri: string): Promise<void> {
  const log = (line: string) => logger.warn(line);
  const timeoutMs = config.startupTimeoutMs;
  const results = await Promise.allSettled([
    waitFor({ what: `Redis at ${common.redis.host}:${common.redis.port}`, attempt: () => pingRedis(common.redis), timeoutMs, log }),
    waitFor({ what: `S3 ${storeUri} at ${config['s3.endpoint']}`, attempt: () => statStore(storeUri, common.s3), timeoutMs, log }),
  ]);
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failed.length === 0) return;
  // The attempts' lines first, then the verdicts.
  await flushLog();
  for (const error of failed) {
    if (!(error instanceof UnreachableError)) throw error;
    console.error(`${who}: ${error.message}`);
  }
  return exitAfterLog(EXIT_UNREACHABLE);
}
