// The error type is @tributary/errors'; re-exported so that the worker and the coordinator take
// everything they share from one package.
export {
  TributaryError,
  defineErrorCatalogue,
  errorFrom,
  isTributaryError,
  toErrorData,
  type ErrorCatalogue,
  type ErrorContext,
  type ErrorData,
  type ErrorSpec,
} from '@tributary/errors';
export { protocolError, protocolErrors, type ProtocolErrorCode } from './errors.ts';
export { fileEntryCount, splitCommitMessage } from './commit-message.ts';
export { decodeCommitMessage, encodeCommitMessage } from './commit-message-codec.ts';
export { PAIMON_COMMIT_MESSAGE_VERSION, type BlobExpectation, type BlobHeader } from './blob-header.ts';
export {
  BLOB_MAGIC,
  DEFAULT_BLOB_LIMITS,
  ENVELOPE_VERSION,
  READABLE_ENVELOPE_VERSIONS,
  type BlobLimits,
} from './envelope.ts';
export { decodeBlob, encodeBlob, type DecodedBlob } from './blob.ts';
export { canonicalJson } from './canonical-json.ts';
export {
  FileReadPosition,
  MAX_POSITION_FILES,
  ServerLogPosition,
  ShardReadPosition,
  decodeReadPosition,
  encodeReadPosition,
} from './read-position.ts';
export { decodeBlobStream, encodeBlobStream, type BlobStream, type EncodeStreamOptions } from './blob-stream.ts';
export {
  ABANDON_RUNNING_LUA,
  BucketRun,
  BucketVote,
  DeleteMarker,
  ErrorDataSchema,
  FullExtract,
  PlannedBucketEntry,
  PLAN_HEAD_FIELD,
  PLAN_POSITIONS_FIELD,
  PlannedShardEntry,
  SealedBucketEntry,
  SealedPositions,
  ShardAttempt,
  ShardAttemptStatus,
  ShardId,
  ShardVote,
  SYNC_QUEUES,
  SyncBucketJob,
  SyncCommitJob,
  SyncDeletes,
  SyncId,
  SyncLayout,
  SyncPlanBasics,
  SyncPlanHead,
  SyncShardJob,
  SyncShardResult,
  SyncTableRef,
  attemptWriterId,
  bucketJobId,
  bucketWriterId,
  changelogFileMarker,
  dataFileMarker,
  planBucketField,
  planShardField,
  stagedBlobKey,
  stagedRejectsKey,
  stagedBucketBlobKey,
  syncRunsPath,
  syncRedisKeys,
  syncStagingPrefix,
} from './sync-schemas.ts';
export {
  MIN_CLUSTER_SECRET_BYTES,
  VOTE_TOKEN_BYTES,
  checkClusterSecret,
  clusterSecretFromEnv,
  decodeVoteToken,
  encodeVoteToken,
  bucketVoteToken,
  shardVoteToken,
  tokensEqual,
  type ClusterSecretEnv,
} from './vote-token.ts';
export {
  canonicalDigest,
  checkPlanSeal,
  fingerprintOver,
  planFingerprint,
  planSeal,
  sealedShardEntry,
  syncPlanBasics,
  syncPlanFingerprint,
  verifiedSyncPlanHead,
  type PlanFingerprintInput,
} from './plan-binding.ts';
export { BadRowPolicy, Identifier, StringMap, SyncMode, parsePayload } from './schemas/common.ts';
export { ColumnSpec, CreateTableRequest, DEFAULT_MAX_ATTEMPTS, JOB_BACKOFF_MS, ProblemDetails, SyncOptions, createTableFromSourceRequest, startSyncRequest } from './schemas/rest.ts';
export { ScheduleId, ScheduleRun, ScheduledCompaction, putScheduleRequest } from './schemas/schedules.ts';
export { READINESS_TIMEOUT_MS, checkReadiness, type Readiness, type ReadinessProbe } from './readiness.ts';
export { queueConnections, redisProbe, type QueueClient, type QueueConnectionOwner, type QueueConnections } from './queue-connections.ts';
export {
  COMPACTION_PHASES,
  COMPACTION_QUEUE,
  CompactionId,
  CompactionJob,
  CompactionJobId,
  CompactionPhase,
  CompactionPlanBasics,
  CompactionPlanHead,
  CompactionVote,
  PlannedCompactionEntry,
  compactionEntryDigest,
  compactionIndexKey,
  compactionJobId,
  compactionLiveKey,
  compactionPlanFingerprint,
  compactionRedisKeys,
  compactionStagingPrefix,
  compactionVoteToken,
  compactionWriterId,
  planJobField,
  stagedCompactionBlobKey,
  stagedCompactionInputsKey,
} from './compaction-schemas.ts';
