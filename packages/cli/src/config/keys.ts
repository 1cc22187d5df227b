/**
 * Every configuration key of Tributary's processes and of the CLI: its name in a configuration file
 * (dotted: `redis.port` is `{"redis": {"port": …}}`), its environment variable, its flag (if it has
 * one), what it accepts, its default and who reads it. docs/configuration.md is generated from this
 * table (`node packages/cli/src/config/doc.ts --write`) and a test keeps the two equal.
 *
 * Secrets (`secret: true`) have no flag (a command line is visible to every user of the machine) and
 * their values never appear in a message: errors name the key and where it came from, never what it held.
 */
import { z } from 'zod';

export type Role = 'coordinator' | 'worker' | 'client';

export interface KeySpec<S extends z.ZodType = z.ZodType> {
  /** Its environment variable (kept from before the configuration file existed). */
  readonly env: string;
  /** Its flag on the commands of `usedBy`, without the dashes. */
  readonly flag?: string;
  /** Accepts the file's JSON value or the text of a variable or flag; gives the typed value. */
  readonly schema: S;
  /** What the schema accepts, in words, for the error message (never the value received). */
  readonly expect: string;
  /** The value when no source sets it (as a variable would hold it); absent: unset. */
  readonly default?: string;
  /** The default as the docs show it, when it is not a fixed value. */
  readonly defaultDoc?: string;
  readonly doc: string;
  readonly usedBy: readonly Role[];
  readonly secret?: boolean;
}

const numeric = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v);
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.preprocess(numeric, z.number().int().min(min).max(max));
const text = z.string().min(1);
const bool = z.preprocess((v) => (v === '1' || v === 'true' ? true : v === '0' || v === 'false' ? false : v), z.boolean());
/** A comma-separated list in a variable or flag, a list of strings in a file. */
const list = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(/[\s,]+/).filter((s) => s !== '') : v),
  z.array(z.string().min(1)),
);
const httpUrl = z.url({ protocol: /^https?$/ });
const warehouseUri = z.string().regex(/^(s3a?:\/\/[^/]+(\/.*)?|file:\/\/\/.+)$/);

/** Keeps each key's own literal type, so `Config` knows which keys have a default. */
const spec = <const T extends KeySpec>(s: T): T => s;

const BOTH: readonly Role[] = ['coordinator', 'worker'];

export const CONFIG_KEYS = {
  'redis.host': spec({ env: 'TRIBUTARY_REDIS_HOST', flag: 'redis-host', schema: text, expect: 'a host name or address', default: '127.0.0.1', doc: 'Redis host (sync records and the BullMQ queues).', usedBy: BOTH }),
  'redis.port': spec({ env: 'TRIBUTARY_REDIS_PORT', flag: 'redis-port', schema: int(1, 65535), expect: 'an integer from 1 to 65535', default: '6390', doc: 'Redis port.', usedBy: BOTH }),
  prefix: spec({ env: 'TRIBUTARY_PREFIX', flag: 'prefix', schema: z.string().regex(/^[A-Za-z0-9._-]+$/), expect: 'letters, digits, `.`, `_` or `-`', default: 'tributary', doc: 'Key prefix of sync records and queues; the coordinator and its workers must use the same.', usedBy: BOTH }),
  warehouse: spec({ env: 'TRIBUTARY_WAREHOUSE', flag: 'warehouse', schema: warehouseUri, expect: 'an s3://bucket/prefix or file:///path URI', defaultDoc: '`s3://<s3.bucket>/warehouse`', doc: 'Where the tables live. Workers take each sync’s from its plan and use this one only to check storage (start, /readyz).', usedBy: BOTH }),
  's3.endpoint': spec({ env: 'TRIBUTARY_S3_ENDPOINT', flag: 's3-endpoint', schema: httpUrl, expect: 'an http(s) URL', default: 'http://127.0.0.1:9100', doc: 'S3 endpoint (the local MinIO by default).', usedBy: BOTH }),
  's3.region': spec({ env: 'TRIBUTARY_S3_REGION', flag: 's3-region', schema: text, expect: 'a region name', default: 'us-east-1', doc: 'S3 region.', usedBy: BOTH }),
  's3.bucket': spec({ env: 'TRIBUTARY_S3_BUCKET', flag: 's3-bucket', schema: text, expect: 'a bucket name', default: 'tributary', doc: 'Bucket of the default warehouse; the worker checks it is reachable at start.', usedBy: BOTH }),
  's3.accessKey': spec({ env: 'TRIBUTARY_S3_ACCESS_KEY', schema: text, expect: 'an access key id', default: 'tributary', doc: 'S3 access key id.', usedBy: BOTH, secret: true }),
  's3.unsignedRuns': spec({ env: 'TRIBUTARY_S3_UNSIGNED_RUNS', schema: bool, expect: 'true, false, 1 or 0', default: 'true', doc: 'Bucketed layout: upload the sorted runs with an unsigned payload and no checksum (each run is checked against the SHA-256 its shard’s blob gives when the bucket job reads it, so the transfer is not checked twice). `false` for a store or bucket policy that refuses `UNSIGNED-PAYLOAD`.', usedBy: ['worker'] }),
  's3.secretKey': spec({ env: 'TRIBUTARY_S3_SECRET_KEY', schema: text, expect: 'a secret key', default: 'tributary-secret', doc: 'S3 secret key.', usedBy: BOTH, secret: true }),
  clusterSecret: spec({ env: 'TRIBUTARY_CLUSTER_SECRET', schema: text, expect: 'text of at least 32 bytes', doc: 'The cluster secret, the same on the coordinator and every worker (at least 32 bytes; signs shard jobs, checks blobs). This or `clusterSecretFile` is required.', usedBy: BOTH, secret: true }),
  clusterSecretFile: spec({ env: 'TRIBUTARY_CLUSTER_SECRET_FILE', schema: text, expect: 'a file path', doc: 'A file holding the cluster secret (one trailing newline is dropped).', usedBy: BOTH }),
  'sources.connectionsFile': spec({ env: 'TRIBUTARY_CONNECTIONS_FILE', schema: text, expect: 'a file path', doc: 'The named database connections syncs may use (JSON; see packages/coordinator/README.md).', usedBy: BOTH }),
  'sources.roots': spec({ env: 'TRIBUTARY_SOURCE_ROOTS', schema: list, expect: 'a comma-separated list (a list in a file) of file:///dir and s3://bucket/prefix roots', doc: 'Roots that file sources must lie under; none: no file source.', usedBy: BOTH }),
  'sources.allowInlineCredentials': spec({ env: 'TRIBUTARY_ALLOW_INLINE_CREDENTIALS', schema: bool, expect: 'true, false, 1 or 0', default: 'false', doc: 'Accept host, port, user and password in a sync request (MySQL). Then any caller who may start a sync (role `operate`) can make the coordinator and workers connect to any host and port they reach and learn from the answer whether something listens there (a port scanner of their network): enable it only where that is acceptable.', usedBy: BOTH }),
  lockMs: spec({ env: 'TRIBUTARY_LOCK_MS', schema: int(1), expect: 'a positive integer (milliseconds)', default: '30000', doc: 'BullMQ job lock; a crashed process’s job is re-run after about `lockMs` + `stalledMs`.', usedBy: BOTH }),
  stalledMs: spec({ env: 'TRIBUTARY_STALLED_MS', schema: int(1), expect: 'a positive integer (milliseconds)', default: '30000', doc: 'BullMQ stalled-job check interval.', usedBy: BOTH }),
  startupTimeoutMs: spec({ env: 'TRIBUTARY_STARTUP_TIMEOUT_MS', flag: 'startup-timeout-ms', schema: int(0), expect: 'a non-negative integer (milliseconds)', default: '30000', doc: 'How long a starting process waits for Redis and S3 (one line per attempt, back-off from 250 ms to 5 s) before it exits with code 3.', usedBy: BOTH }),
  logLevel: spec({ env: 'TRIBUTARY_LOG_LEVEL', flag: 'log-level', schema: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']), expect: 'trace, debug, info, warn, error, fatal or silent', default: 'info', doc: 'Level of the JSON log lines (pino) on stderr, written asynchronously (a SIGKILL loses the lines still buffered; see the coordinator README, "Logs").', usedBy: BOTH }),
  'coordinator.host': spec({ env: 'TRIBUTARY_HOST', flag: 'host', schema: text, expect: 'a host name or address', default: '127.0.0.1', doc: 'Address the HTTP API listens on; a non-loopback one needs auth tokens.', usedBy: ['coordinator'] }),
  'coordinator.port': spec({ env: 'TRIBUTARY_PORT', flag: 'port', schema: int(0, 65535), expect: 'an integer from 0 to 65535', default: '8080', doc: 'HTTP port (`0`: any free port; the ready line says which).', usedBy: ['coordinator'] }),
  'coordinator.authTokens': spec({ env: 'TRIBUTARY_AUTH_TOKENS', schema: z.string(), expect: 'entries `role:sha256hex` or `role:name:sha256hex`', doc: 'Bearer tokens, hashed (see packages/coordinator/README.md#authentication); none: open, on loopback only.', usedBy: ['coordinator'], secret: true }),
  'coordinator.authTokensFile': spec({ env: 'TRIBUTARY_AUTH_TOKENS_FILE', schema: text, expect: 'a file path', doc: 'A file of token entries, one per line.', usedBy: ['coordinator'] }),
  'coordinator.authPublic': spec({ env: 'TRIBUTARY_AUTH_PUBLIC', schema: list, expect: 'a comma-separated list of route paths', default: '/healthz', doc: 'Routes anyone may call.', usedBy: ['coordinator'] }),
  'coordinator.trustProxy': spec({ env: 'TRIBUTARY_TRUST_PROXY', schema: list, expect: 'a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal', doc: 'The reverse proxies (an Ingress) whose X-Forwarded-For and X-Forwarded-Proto are believed: behind one, a caller without a token is rate-limited by its own address and the login cookie is Secure (and `__Host-` prefixed) when the client used https. Needs tokens. None: the peer’s own address and scheme.', usedBy: ['coordinator'] }),
  'coordinator.rateLimit': spec({ env: 'TRIBUTARY_RATE_LIMIT', schema: int(1), expect: 'a positive integer', default: '6000', doc: 'Requests per window per token (per client address when open).', usedBy: ['coordinator'] }),
  'coordinator.rateWindowMs': spec({ env: 'TRIBUTARY_RATE_WINDOW_MS', schema: int(1), expect: 'a positive integer (milliseconds)', default: '60000', doc: 'The rate limit’s window.', usedBy: ['coordinator'] }),
  'coordinator.maxShards': spec({ env: 'TRIBUTARY_MAX_SHARDS', schema: int(1), expect: 'a positive integer', default: '10000', doc: 'Shards one sync may plan.', usedBy: ['coordinator'] }),
  'coordinator.maxActiveSyncs': spec({ env: 'TRIBUTARY_MAX_ACTIVE_SYNCS', schema: int(1), expect: 'a positive integer', default: '64', doc: 'Syncs not yet COMMITTED or ABORTED at once.', usedBy: ['coordinator'] }),
  'coordinator.maxActiveSyncsPerTable': spec({ env: 'TRIBUTARY_MAX_ACTIVE_SYNCS_PER_TABLE', schema: int(1), expect: 'a positive integer', default: '8', doc: 'The same, per table.', usedBy: ['coordinator'] }),
  'coordinator.maxSchedules': spec({ env: 'TRIBUTARY_MAX_SCHEDULES', schema: int(1), expect: 'a positive integer', default: '1000', doc: 'Schedules that may exist at once; a new one past it is refused (409 `SCHEDULE_LIMIT_REACHED`), replacing one is not.', usedBy: ['coordinator'] }),
  'coordinator.scheduleMinIntervalMs': spec({ env: 'TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', schema: int(0, 86_400_000), expect: 'an integer from 0 to 86400000 (milliseconds)', default: '60000', doc: 'The least time between two fires of a schedule’s cron pattern; a pattern firing more often (`* * * * * *`, every second) is refused (400 `SCHEDULE_CRON_TOO_FREQUENT`). `0`: any pattern.', usedBy: ['coordinator'] }),
  'coordinator.abortGraceMs': spec({ env: 'TRIBUTARY_ABORT_GRACE_MS', schema: int(0), expect: 'a non-negative integer (milliseconds)', default: '10000', doc: 'How long an abort waits for running shards before it cleans up without them.', usedBy: ['coordinator'] }),
  'coordinator.testMode': spec({ env: 'TRIBUTARY_TEST_MODE', schema: bool, expect: 'true, false, 1 or 0', default: 'false', doc: 'Tests only: accept test hooks (the generator’s `faults`) and `coordinator.faultKillAt`.', usedBy: ['coordinator'] }),
  'coordinator.faultKillAt': spec({ env: 'TRIBUTARY_FAULT_KILL_AT', schema: z.enum(['before-publish', 'after-publish']), expect: 'before-publish or after-publish', doc: 'Crash tests only (with test mode): SIGKILL the coordinator at that point of a commit (a sync\'s or a compaction\'s).', usedBy: ['coordinator'] }),
  'catalog.type': spec({ env: 'TRIBUTARY_CATALOG_TYPE', flag: 'catalog-type', schema: z.enum(['filesystem', 'jdbc', 'hive']), expect: 'filesystem, jdbc or hive', default: 'filesystem', doc: 'The warehouse’s catalog (docs/catalogs.md): `filesystem`, its own directory layout; `jdbc`, Paimon’s JDBC catalog in PostgreSQL or MySQL/MariaDB; `hive`, a Hive Metastore.', usedBy: ['coordinator'] }),
  'catalog.uri': spec({ env: 'TRIBUTARY_CATALOG_URI', flag: 'catalog-uri', schema: text, expect: 'a JDBC URL (jdbc:postgresql://host:port/db, jdbc:mysql://host:port/db) or thrift://host:port', doc: 'Where the catalog lives, as Paimon’s `uri` option spells it; no credentials in it.', usedBy: ['coordinator'] }),
  'catalog.user': spec({ env: 'TRIBUTARY_CATALOG_USER', schema: text, expect: 'a user name', doc: 'The JDBC catalog’s database user (Paimon’s `jdbc.user`).', usedBy: ['coordinator'] }),
  'catalog.password': spec({ env: 'TRIBUTARY_CATALOG_PASSWORD', schema: text, expect: 'a password', doc: 'Its password (Paimon’s `jdbc.password`).', usedBy: ['coordinator'], secret: true }),
  'catalog.key': spec({ env: 'TRIBUTARY_CATALOG_KEY', schema: text, expect: 'a catalog key', default: 'jdbc', doc: 'Paimon’s `catalog-key`: the catalog’s name in the JDBC tables and in its lock ids; the same as the Java engines’ to share their catalog.', usedBy: ['coordinator'] }),
  'catalog.lockEnabled': spec({ env: 'TRIBUTARY_CATALOG_LOCK_ENABLED', schema: bool, expect: 'true, false, 1 or 0', defaultDoc: 'on for an `s3://` warehouse, off for `file://` (Paimon’s default)', doc: 'Paimon’s `lock.enabled`: take the catalog’s lock of a table around each snapshot commit (and table creation), the lock Paimon Java writers take.', usedBy: ['coordinator'] }),
  'catalog.lockAcquireTimeoutMs': spec({ env: 'TRIBUTARY_CATALOG_LOCK_ACQUIRE_TIMEOUT_MS', schema: int(1000), expect: 'an integer of at least 1000 (milliseconds)', default: '480000', doc: 'Paimon’s `lock-acquire-timeout`: how long a commit waits for the lock (then the commit job retries); a JDBC lock row also expires after it.', usedBy: ['coordinator'] }),
  'catalog.lockCheckMaxSleepMs': spec({ env: 'TRIBUTARY_CATALOG_LOCK_CHECK_MAX_SLEEP_MS', schema: int(1), expect: 'a positive integer (milliseconds)', default: '8000', doc: 'Paimon’s `lock-check-max-sleep`: the longest wait between two tries of a held lock.', usedBy: ['coordinator'] }),
  'catalog.refreshAttempts': spec({ env: 'TRIBUTARY_CATALOG_REFRESH_ATTEMPTS', schema: int(1), expect: 'a positive integer', default: '8', doc: 'Hive: tries of the metastore refresh after a commit (partitions, statistics) before it waits for the table’s next commit or the next start of a coordinator; the sync stays committed.', usedBy: ['coordinator'] }),
  'catalog.refreshMaxDelayMs': spec({ env: 'TRIBUTARY_CATALOG_REFRESH_MAX_DELAY_MS', schema: int(1), expect: 'a positive integer (milliseconds)', default: '60000', doc: 'Hive: the longest wait between two tries of a failed metastore refresh (the first wait is 1 s, doubled each try).', usedBy: ['coordinator'] }),
  'worker.concurrency': spec({ env: 'TRIBUTARY_WORKER_CONCURRENCY', flag: 'concurrency', schema: int(1, 1024), expect: 'an integer from 1 to 1024', default: '1', doc: 'Shard jobs one worker process runs at once.', usedBy: ['worker'] }),
  'worker.phaseCheckMs': spec({ env: 'TRIBUTARY_PHASE_CHECK_MS', schema: int(1), expect: 'a positive integer (milliseconds)', default: '500', doc: 'How often a running shard re-reads its sync’s phase and reports progress.', usedBy: ['worker'] }),
  'worker.bucketConcurrency': spec({ env: 'TRIBUTARY_BUCKET_CONCURRENCY', schema: int(1, 1024), expect: 'an integer from 1 to 1024', doc: 'Bucket jobs (bucketed layout) one worker process runs at once; unset: `worker.concurrency`. A bucket job holds one small block per run it merges, up to about 16 MiB of blocks at once (a bucket of more runs is merged in passes through intermediate runs), a shard job its run buffer.', usedBy: ['worker'] }),
  'worker.runBufferRows': spec({ env: 'TRIBUTARY_RUN_BUFFER_ROWS', schema: int(1), expect: 'a positive integer (rows)', default: '1000000', doc: 'Bucketed layout: rows a shard buffers over all its buckets before it spills them as sorted runs, one run object per spill with a segment per bucket (with `worker.runBufferBytes`, the shard’s memory budget; whichever is reached first). Each spill adds a run to every bucket’s merge: fewer, larger spills keep a bucket’s merge in one pass.', usedBy: ['worker'] }),
  'worker.runBufferBytes': spec({ env: 'TRIBUTARY_RUN_BUFFER_BYTES', schema: int(1), expect: 'a positive integer (bytes)', default: '58720256', doc: 'Bucketed layout: the estimated bytes of the rows a shard buffers before it spills them (values at their width, strings at 2 bytes a character plus 16); the shard’s memory budget with `worker.runBufferRows`.', usedBy: ['worker'] }),
  'worker.testMergeDelayMs': spec({ env: 'TRIBUTARY_TEST_MERGE_DELAY_MS', schema: int(0), expect: 'a non-negative integer (milliseconds)', default: '0', doc: 'Tests only: a pause after each merged batch of a bucket job, so a test can kill a worker in the middle of a merge.', usedBy: ['worker'] }),
  'worker.metricsPort': spec({ env: 'TRIBUTARY_METRICS_PORT', flag: 'metrics-port', schema: int(0, 65535), expect: 'an integer from 0 to 65535', doc: 'Serve /metrics, /healthz and /readyz on this port (`0`: a free one, printed in the ready line); unset: no listener. The coordinator serves them on its API port.', usedBy: ['worker'] }),
  'worker.metricsHost': spec({ env: 'TRIBUTARY_METRICS_HOST', flag: 'metrics-host', schema: text, expect: 'a host name or address', default: '127.0.0.1', doc: 'Address of that listener.', usedBy: ['worker'] }),
  shutdownGraceMs: spec({ env: 'TRIBUTARY_SHUTDOWN_GRACE_MS', schema: int(0), expect: 'a non-negative integer (milliseconds)', default: '25000', doc: 'On SIGTERM, how long running shards may finish before they are released to other workers (worker), and how long the commits in flight may take (coordinator); a process still not stopped 15 s later exits with code 1, as does a second signal.', usedBy: BOTH }),
  'client.url': spec({ env: 'TRIBUTARY_URL', flag: 'url', schema: httpUrl, expect: 'an http(s) URL', default: 'http://127.0.0.1:8080', doc: 'The coordinator the `sync`, `table` and `schedule` commands talk to.', usedBy: ['client'] }),
  'client.token': spec({ env: 'TRIBUTARY_TOKEN', schema: text, expect: 'a bearer token', doc: 'The bearer token those commands send (when the coordinator has tokens).', usedBy: ['client'], secret: true }),
} as const;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** The resolved configuration: every key's typed value, `undefined` when unset and without default. */
export type Config = { readonly [K in ConfigKey]: z.output<(typeof CONFIG_KEYS)[K]['schema']> | ((typeof CONFIG_KEYS)[K] extends { default: string } ? never : undefined) };

/** The one schema of the whole configuration, built from the table above (keys are the dotted names). */
export const ConfigSchema = z.object(
  Object.fromEntries(
    Object.entries(CONFIG_KEYS).map(([key, s]: [string, KeySpec]) => [key, 'default' in s ? s.schema : s.schema.optional()]),
  ) as { [K in ConfigKey]: z.ZodType<Config[K]> },
);

export const CONFIG_FILE_ENV = 'TRIBUTARY_CONFIG';
