/**
 * Tributary's version, the one home of it: the packages are versioned together, and this reads the
 * table package's own package.json (the lowest package that needs it, so that every user of it
 * depends downwards). It is written into each Parquet file's `created_by`, each blob header and
 * the coordinator's OpenAPI document.
 */
import tablePackage from '../package.json' with { type: 'json' };

export const TRIBUTARY_VERSION: string = tablePackage.version;
