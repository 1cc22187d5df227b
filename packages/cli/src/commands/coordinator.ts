/**
 * `tributary coordinator`: starts a coordinator and listens. Prints one JSON line
 * `{"listening": "http://…"}` on stdout when ready; a bad configuration exits 2 with a message,
 * Redis or S3 unreachable past `startupTimeoutMs` exits 3.
 */
import { startCoordinator, securityFromEnv, isLoopback, type SecurityConfig } from '@tributary/coordinator';
import { DEFAULT_REFRESH_OPTIONS, type CatalogOptions } from '@tributary/catalog';
import { isTributaryError } from '@tributary/protocol';
import type { Config } from '../config/keys.ts';
import { awaitServices, commonSettings, exitAfterLog, processLogger, refuse, stopBounded, type Common } from './services.ts';

const who = 'coordinator';

export async function runCoordinator(config: Config): Promise<void> {
  const host = config['coordinator.host'];
  const logger = processLogger('coordinator', config);
  let common: Common;
  let security: SecurityConfig;
  try {
    common = commonSettings(config);
    security = securityFromEnv(common.env);
  } catch (error) {
    return refuse(who, error, 2);
  }
  if (security.auth.tokens.length === 0) {
    if (!isLoopback(host)) {
      return refuse(
        who,
        `AUTH_NOT_CONFIGURED: no token is configured (TRIBUTARY_AUTH_TOKENS or TRIBUTARY_AUTH_TOKENS_FILE), so the coordinator will not listen on ${host}; configure a token or listen on loopback`,
        2,
      );
    }
    logger.warn({ host }, 'authentication is OFF: no token configured; anyone who reaches this address may do everything (allowed on loopback only)');
  }
  const warehouse = config.warehouse ?? `s3://${config['s3.bucket']}/warehouse`;
  await awaitServices(who, logger, config, common, warehouse);

  const coordinator = await startCoordinator({
    clusterSecret: common.clusterSecret,
    redis: common.redis,
    prefix: config.prefix,
    warehouse,
    s3: common.s3,
    sources: common.sources,
    lockDurationMs: config.lockMs,
    stalledIntervalMs: config.stalledMs,
    abortGraceMs: config['coordinator.abortGraceMs'],
    logger,
    faultPoint: (point) => {
      if (security.testMode && config['coordinator.faultKillAt'] === point) process.kill(process.pid, 'SIGKILL');
    },
    auth: security.auth,
    rateLimit: security.rateLimit,
    limits: security.limits,
    scheduleLimits: security.scheduleLimits,
    testMode: security.testMode,
    catalog: catalogOptions(config),
  }).catch((error: unknown) => {
    // A catalog that does not fit its type is a bad configuration; one that does not answer, a service away.
    if (isTributaryError(error) && error.code.startsWith('CATALOG_')) return refuse(who, error, error.retryable ? 3 : 2);
    throw error;
  });
  // The signal handlers before the listening line: a supervisor may stop it as soon as it reads that line.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopBounded(logger, config.shutdownGraceMs);
      // Refuses new syncs at once, finishes the commits in flight, then exits 0.
      logger.info({ signal }, 'shutting down');
      coordinator.close().then(
        () => exitAfterLog(0),
        (error: unknown) => {
          logger.error({ error: error instanceof Error ? error.message : String(error) }, 'close failed');
          void exitAfterLog(1);
        },
      );
    });
  }
  const address = await coordinator.app.listen({ host, port: config['coordinator.port'] });
  console.log(JSON.stringify({ listening: address }));
}

/** The catalog keys as the catalog takes them (the password from its variable or the file, never a flag). */
function catalogOptions(config: Config): CatalogOptions {
  const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));
  return {
    type: config['catalog.type'],
    ...optional('uri', config['catalog.uri']),
    ...optional('user', config['catalog.user']),
    ...optional('password', config['catalog.password']),
    catalogKey: config['catalog.key'],
    ...optional('lockEnabled', config['catalog.lockEnabled']),
    lockAcquireTimeoutMs: config['catalog.lockAcquireTimeoutMs'],
    lockCheckMaxSleepMs: config['catalog.lockCheckMaxSleepMs'],
    refresh: {
      attempts: config['catalog.refreshAttempts'],
      maxDelayMs: config['catalog.refreshMaxDelayMs'],
      initialDelayMs: Math.min(DEFAULT_REFRESH_OPTIONS.initialDelayMs, config['catalog.refreshMaxDelayMs']),
    },
  };
}
