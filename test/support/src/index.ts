export { services } from './services.ts';
export { uniqueName } from './names.ts';
export { freePort } from './ports.ts';
export { mulberry32 } from './random.ts';
export { matchCrc32c } from './forge.ts';
export {
  pypaimon,
  paimonJava,
  canonicalRows,
  readResults,
  normaliseValue,
  oraclePaths,
  OracleError,
} from './oracles.ts';
export type {
  Oracle,
  MaintenanceResult,
  CatalogListing,
  CommitCopyResult,
  OracleOp,
  OracleResult,
  OracleField,
  OracleRow,
  OracleValue,
  OracleTimestamp,
  ReadResult,
  RowKindShort,
  TableDefinition,
  TableRef,
} from './oracles.ts';
export { ownMetastore, type OwnMetastore } from './hive-metastore.ts';
