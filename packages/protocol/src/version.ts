/**
 * Tributary's version, the one home of it: the packages are versioned together, and this reads the
 * protocol package's own package.json. It is written into each blob header, each Parquet file's
 * `created_by` and the coordinator's OpenAPI document.
 */
import protocolPackage from '../package.json' with { type: 'json' };

export const TRIBUTARY_VERSION: string = protocolPackage.version;
