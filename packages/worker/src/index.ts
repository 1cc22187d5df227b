export { workerErrors, type WorkerErrorCode } from './errors.ts';
export { startShardWorker, type ShardWorker, type WorkerConfig } from './runtime.ts';
export { writeShardProcessor, type WriteShardDeps } from './write-shard.ts';
export { tablePort } from './table-adapter.ts';
export type { ShardWrite, ShardWriteOptions, TablePort } from './table-port.ts';
