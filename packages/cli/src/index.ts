export { CONFIG_KEYS, ConfigSchema, CONFIG_FILE_ENV, type Config, type ConfigKey, type KeySpec, type Role } from './config/keys.ts';
export { resolveConfig, configAsEnv, ConfigError, type ConfigInput, type ResolvedConfig, type ValueSource } from './config/load.ts';
export { configurationDoc, CONFIGURATION_DOC } from './config/doc.ts';
export { waitFor, nextDelay, UnreachableError, FIRST_DELAY_MS, MAX_DELAY_MS } from './wait-for.ts';
export { progressOf, summaryLine, frame, eta, type SyncSample, type ShardSample, type Progress } from './watch/format.ts';
