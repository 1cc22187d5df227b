/**
 * The coordinator's error codes. REST maps them to HTTP statuses in one place (http/problem.ts);
 * a sync's abort reason carries one of these codes, or a code from the worker or the table.
 */
import { defineErrorCatalogue } from '@tributary/protocol';

export const coordinatorErrors = defineErrorCatalogue({
  SYNC_NOT_FOUND: { retryable: false, summary: 'No sync with this id exists.' },
  DASHBOARD_JOB_DATA_READONLY: {
    retryable: false,
    summary:
      'The queue dashboard does not edit a job\u2019s data, for any role: it shows the data with its vote token redacted, and a job\u2019s data is bound to its sync\u2019s plan. Retry the job, or abort the sync and start another.',
  },
  COMPACTION_NOT_FOUND: { retryable: false, summary: 'No compaction with this id exists (or its record expired).' },
  COMPACTION_STARTING: {
    retryable: true,
    summary: 'A request with the same Idempotency-Key is still planning its compaction; retry to get that compaction.',
  },
  COMPACTION_JOB_FAILED: {
    retryable: false,
    summary: 'A job of the compaction failed for good (its reason is in the compaction\'s jobs); nothing was committed and the table is unchanged.',
  },
  COMPACTION_JOB_MISSING: {
    retryable: false,
    summary: 'A planned compaction job has no accepted attempt at commit time; nothing was committed.',
  },
  SYNC_ILLEGAL_TRANSITION: {
    retryable: false,
    summary: 'The sync is in a state that does not allow this step (for example aborting a committed sync).',
  },
  SYNC_VERSION_CONFLICT: {
    retryable: true,
    summary: 'Another process changed the sync record at the same time; re-read it and try again.',
  },
  SYNC_COMMIT_IN_PROGRESS: {
    retryable: false,
    summary: 'The sync has started its commit; it can no longer be aborted and will end COMMITTED or with a reason.',
  },
  SYNC_SHARD_MISSING: {
    retryable: false,
    summary: 'A planned shard has no accepted attempt at commit time, so the sync was aborted.',
  },
  SYNC_BUCKET_MISSING: {
    retryable: false,
    summary: 'A planned bucket job (bucketed layout) has no accepted attempt once the bucket stage ended, so the sync was aborted.',
  },
  SYNC_VOTE_MISMATCH: {
    retryable: false,
    summary: 'The blob of a shard\u2019s accepted attempt is not what its worker voted (checksum, SHA-256, row or byte count; context.field), or no vote was recorded: it changed after the vote, so the sync was aborted.',
  },
  SYNC_ABORT_REQUESTED: { retryable: false, summary: 'The sync was aborted on request.' },
  SYNC_PREPARE_TIMEOUT: {
    retryable: false,
    summary: 'The shards did not all finish within the sync\u2019s prepareTimeoutMs (are workers running?), so it was aborted.',
  },
  SYNC_COMMIT_ABANDONED: {
    retryable: false,
    summary: 'The commit gave up and no snapshot carries the sync\u2019s identity; staged files are kept (nothing deletes them automatically).',
  },
  SYNC_TABLE_REPLACED: {
    retryable: false,
    summary:
      'The table was dropped (and maybe created again under its name) after the sync planned: its schema file is not the one the files were written for. Nothing was published; start the sync again to load into the table as it is now.',
  },
  IDEMPOTENCY_KEY_RESERVED: {
    retryable: false,
    summary: "An Idempotency-Key starting 'schedule:' (in any case) was sent: that key space is the schedules' own (each fire claims `schedule:<id>:<fire time>`), so no request can claim a fire's key before it and suppress the fire. Use another key.",
  },
  IDEMPOTENCY_KEY_REUSED: {
    retryable: false,
    summary: 'The Idempotency-Key was already used with a different request body.',
  },
  REQUEST_INVALID: { retryable: false, summary: 'The request body, query or parameters do not match the schema.' },
  REQUEST_URL_INVALID: { retryable: false, summary: 'A part of the URL path is not valid percent-encoded UTF-8 (such as %ff), so the path cannot be read.' },
  SYNC_LOAD_UNSUPPORTED: {
    retryable: false,
    summary:
      "The table does not take the load as asked: changelog-producer = 'input' needs layout 'bucketed' and mode append or upsert; deletes (deleteMarker, fullExtract) need a primary key; a delete marker is a BOOLEAN, integer or string value column; a full extract needs the bucketed layout and a fixed bucket count.",
  },
  ROUTE_NOT_FOUND: { retryable: false, summary: 'No route serves this path.' },
  METHOD_NOT_ALLOWED: { retryable: false, summary: 'The path is served, but not with this method; the Allow header lists the methods that are.' },
  AUTH_TOKEN_MISSING: {
    retryable: false,
    summary: 'The request carries no bearer token (Authorization header) and no dashboard session cookie, and the route is not public.',
  },
  AUTH_TOKEN_INVALID: {
    retryable: false,
    summary:
      'The bearer token is not one the coordinator is configured with (unknown, mistyped or rotated out); or the dashboard session cookie names no live session (unknown, expired or signed out) or one whose token is no longer configured: sign in again.',
  },
  AUTH_ROLE_INSUFFICIENT: {
    retryable: false,
    summary: 'The token is valid but its role (read < operate < admin) is below the one the route needs.',
  },
  AUTH_LOGIN_CROSS_SITE: {
    retryable: false,
    summary: 'The dashboard login form was posted from another site (Origin or Sec-Fetch-Site); sign in from the coordinator\u2019s own /admin/login page.',
  },
  AUTH_COOKIE_CROSS_ORIGIN: {
    retryable: false,
    summary:
      'A writing request (POST, PUT, PATCH, DELETE) authenticated by the login session cookie, or a logout (POST /admin/logout), did not come from the coordinator\u2019s own origin: it needs Sec-Fetch-Site: same-origin or an Origin naming this host (a page of another port or a sibling subdomain is same-site, not same-origin). API clients send Authorization: Bearer instead, which this check does not concern.',
  },
  AUTH_OPEN_FOREIGN: {
    retryable: false,
    summary: 'No token is configured, so the coordinator answers only requests addressed to a loopback host and sent from no other site (a web page cannot drive it by DNS rebinding or a cross-site request); configure tokens to serve others.',
  },
  AUTH_NOT_CONFIGURED: {
    retryable: false,
    summary: 'No token is configured and the coordinator was asked to listen on a non-loopback address; configure TRIBUTARY_AUTH_TOKENS or TRIBUTARY_AUTH_TOKENS_FILE.',
  },
  AUTH_CONFIG_INVALID: {
    retryable: false,
    summary: 'A token entry is not `role:sha256hex` or `role:name:sha256hex` (role read, operate or admin; 64 hex digits), a token file cannot be read, or TRIBUTARY_TRUST_PROXY is set without any token.',
  },
  RATE_LIMITED: { retryable: true, summary: 'Too many requests for this token (or address, when open) in the window; retry after Retry-After seconds.' },
  SYNC_TOO_MANY_SHARDS: {
    retryable: false,
    summary: 'The source plans more shards than the coordinator allows per sync (TRIBUTARY_MAX_SHARDS); nothing was persisted or enqueued.',
  },
  SYNC_NOTHING_TO_LOAD: {
    retryable: false,
    summary: 'The source has nothing new to load (newFilesOnly: every file it lists is already in a committed snapshot); no sync was started. A schedule records the fire as skipped.',
  },
  SYNC_HISTORY_UNREADABLE: {
    retryable: false,
    summary:
      'A committed snapshot\u2019s tributary.positions or tributary.watermark (or the positions object it names) is not what Tributary writes, or is missing or changed: which files or rows earlier loads loaded cannot be told, so no sync was started (newFilesOnly or incremental).',
  },
  SYNC_SOURCE_BUSY: {
    retryable: true,
    summary:
      'Another sync of the same table and source that loads only what is new (newFilesOnly or incremental) has not ended: both would plan from the same snapshots and load the same files or rows twice. Nothing was started; retry once it ends (a schedule records the fire as skipped).',
  },
  SYNC_CONCURRENCY_LIMIT: {
    retryable: true,
    summary: 'Too many syncs are not yet COMMITTED or ABORTED, for this table or overall; retry after Retry-After seconds.',
  },
  SYNC_CURSOR_INVALID: { retryable: false, summary: 'The cursor was not returned by this listing (the syncs, or this sync\u2019s shards).' },
  TABLE_SYNC_ACTIVE: {
    retryable: false,
    summary: 'The table has a sync that is not yet COMMITTED or ABORTED; it cannot be dropped until that sync ends (abort it, or wait).',
  },
  TABLE_CURSOR_INVALID: { retryable: false, summary: 'The cursor was not returned by this listing (tables, or this table\u2019s files).' },
  TEST_HOOKS_DISABLED: {
    retryable: false,
    summary: 'The source asks for test hooks (generator `faults`), which are refused unless the coordinator runs with TRIBUTARY_TEST_MODE=1.',
  },
  COORDINATOR_SHUTTING_DOWN: {
    retryable: true,
    summary: 'The coordinator is shutting down (SIGTERM): it finishes the commits in flight and starts no new sync; retry against another coordinator or after it restarted.',
  },
  REDIS_UNAVAILABLE: {
    retryable: true,
    summary: 'The coordinator\u2019s Redis does not answer now (restarting or unreachable): the request was not served and nothing was done; retry after Retry-After seconds.',
  },
  SCHEDULE_NOT_FOUND: { retryable: false, summary: 'No schedule with this id exists.' },
  SCHEDULE_CRON_INVALID: {
    retryable: false,
    summary: 'The cron pattern is not 5 or 6 valid fields (second minute hour day-of-month month day-of-week), or it never fires (a day of month none of its months has).',
  },
  SCHEDULE_CRON_TOO_FREQUENT: {
    retryable: false,
    summary:
      'The cron pattern fires more often than the coordinator allows: two of its fires are closer than TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS (default 60 s; context.intervalSeconds is the pattern\u2019s shortest gap). Nothing was stored.',
  },
  SCHEDULE_LIMIT_REACHED: {
    retryable: false,
    summary: 'The coordinator already holds as many schedules as it allows (TRIBUTARY_MAX_SCHEDULES, default 1,000); delete one to create another (replacing one is allowed). Nothing was stored.',
  },
  SCHEDULE_CURSOR_INVALID: { retryable: false, summary: 'The cursor was not returned by the schedules listing.' },
  SCHEDULE_TIMEZONE_INVALID: { retryable: false, summary: 'The time zone is not an IANA zone name this runtime knows.' },
  SCHEDULE_TABLE_NOT_FOUND: { retryable: false, summary: 'The table a schedule would load does not exist.' },
  SCHEDULE_FIRE_BUSY: {
    retryable: true,
    summary: 'Another fire of the same schedule was being decided for too long; the fire job is retried.',
  },
});

export type CoordinatorErrorCode = keyof typeof coordinatorErrors;
