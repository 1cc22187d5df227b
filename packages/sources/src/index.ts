// The public API: the registry the coordinator and the worker look sources up in, the contract a
// source kind fills, the operator's source access, value conversion, and what the demo, the
// benchmarks and the sync tests use of the generator. Each kind's internals stay in its folder.
export { sourceErrors, type SourceErrorCode } from './errors.ts';
export type {
  OpenStore,
  PlanContext,
  PlanHistory,
  PlannedSourceShard,
  Source,
  SourceBatch,
  SourceColumn,
  SourceContext,
  SourceKind,
  SourcePosition,
  SourceRow,
  SourceSchema,
  SourceValue,
  SpecSummary,
  TargetColumn,
  Watermark,
} from './source.ts';
export { SyncSourceSpec, openSource, sourceIdentity, summarizeSource } from './registry.ts';
export { loadSourceAccess, noSourceAccess, redactSource, type S3Credentials, type SourceAccess } from './access.ts';
export { rowConverter } from './values/convert.ts';
export { batchConverter, type BadRowPolicy, type BatchConverter } from './values/bad-rows.ts';
export { loadedFileKey } from './files/index.ts';
export { columnConverter, type ColumnConverter } from './values/columns.ts';
export { GENERATOR_COLUMNS, GENERATOR_TABLE_COLUMNS, GeneratorSource, generatorRow, generatorShardId } from './generator/index.ts';
