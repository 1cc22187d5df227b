export {
  TributaryError,
  defineErrorCatalogue,
  errorFrom,
  isTributaryError,
  protocolError,
  protocolErrors,
  toErrorData,
  type ErrorCatalogue,
  type ErrorContext,
  type ErrorData,
  type ErrorSpec,
  type ProtocolErrorCode,
} from './errors.ts';
export {
  EMPTY_COMPACT_INCREMENT,
  EMPTY_DATA_INCREMENT,
  FileSource,
  fileEntryCount,
  splitCommitMessage,
  type CommitMessage,
  type CompactIncrement,
  type DataIncrement,
  type DeletionVectorMeta,
  type FileMeta,
  type GlobalIndexMeta,
  type IndexFileMeta,
  type SimpleStats,
} from './commit-message.ts';
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
export { decodeBlobStream, encodeBlobStream, type BlobStream, type EncodeStreamOptions } from './blob-stream.ts';
export {
  ABANDON_RUNNING_ATTEMPTS_SCRIPT,
  ABANDON_RUNNING_LUA,
  ErrorDataSchema,
  ShardAttempt,
  ShardAttemptStatus,
  ShardId,
  SYNC_QUEUES,
  SyncCommitJob,
  SyncId,
  SyncShardJob,
  SyncShardResult,
  SyncTableRef,
  attemptWriterId,
  dataFileMarker,
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
  filesShardId,
  planFileShards,
  splitObjectUri,
} from './sync-sources.ts';
export {
  MysqlKeyKind,
  MysqlShard,
  MysqlSourceSpec,
  isShardSafeName,
  keyCondition,
  keyValueText,
  mysqlShardId,
  nameMatcher,
  quoteIdentifier,
  redactSource,
  shardSelect,
  type NamePattern,
  type SqlFragment,
} from './sources/mysql.ts';
export {
  ConnectionName,
  MysqlConnection,
  SourceAccessFile,
  SourceConnection,
  checkSourceUri,
  loadSourceAccess,
  mysqlEndpoint,
  noSourceAccess,
  parseRoot,
  pathInsideRoots,
  sourceLocation,
  sourceNotAllowed,
  uriUnderRoots,
  type MysqlEndpoint,
  type MysqlTarget,
  type SourceAccess,
  type SourceAccessIo,
  type SourceRoot,
} from './sources/access.ts';
export { Identifier, StringMap, SyncMode, parsePayload } from './schemas/common.ts';
export { ColumnSpec, CreateTableRequest, ProblemDetails, StartSyncRequest, SyncOptions } from './schemas/rest.ts';
export { PutScheduleRequest, ScheduleId, ScheduleRun } from './schemas/schedules.ts';
