export { workerErrors, type WorkerErrorCode } from './errors.ts';
export { startShardWorker, type ShardWorker, type WorkerConfig } from './runtime.ts';
export { writeShardProcessor, type WriteShardDeps } from './write-shard.ts';
export { GeneratorSource, GENERATOR_COLUMNS, generatorRow } from './sources/generator.ts';
export { openSource } from './sources/open-source.ts';
export type { Source, SourceBatch, SourceColumn, SourcePosition, SourceRow, SourceValue } from './sources/source.ts';
export { rowConverter, type RowConverter } from './convert.ts';
export { tablePort } from './table-adapter.ts';
export type { ShardWrite, ShardWriteOptions, TablePort } from './table-port.ts';
