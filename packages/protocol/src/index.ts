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
} from './errors.ts';
export {
  ErrorDataSchema,
  ShardAttempt,
  ShardId,
  SYNC_QUEUES,
  SyncCommitJob,
  SyncId,
  SyncShardJob,
  SyncShardResult,
  SyncTableRef,
  stagedBlobKey,
  syncRedisKeys,
  syncStagingPrefix,
} from './sync-schemas.ts';
export {
  FilesSourceSpec,
  GeneratorSourceSpec,
  SyncSourceSpec,
  generatorShardId,
  planGeneratorShards,
  type GeneratorShard,
} from './sync-sources.ts';
