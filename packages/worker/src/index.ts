export { workerErrors, type WorkerErrorCode } from './errors.ts';
export { AttemptLedger, type AcceptOutcome, type LedgerStage } from './attempt-ledger.ts';
export { WORKER_JOB_MAX_STALLS, startShardWorker, type CloseOptions, type ShardWorker, type WorkerConfig } from './runtime.ts';
export { writeShardProcessor, type WriteShardDeps } from './write-shard.ts';
export { mergeBucketProcessor, type MergeBucketDeps, type MergeBucketResult } from './merge-bucket.ts';
export type { ShardWrite, ShardWriteOptions, WorkerTables } from './shard-write.ts';
export { serveWorkerHttp, type WorkerHttp } from './http.ts';
export { WorkerMetrics } from './metrics.ts';
