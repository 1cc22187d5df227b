/**
 * The catalog package's error codes. Code branches on `code`, never on the message; each entry says
 * whether the same operation may succeed if tried again unchanged.
 */
import { defineErrorCatalogue } from '@tributary/errors';

export const catalogErrors = defineErrorCatalogue({
  CATALOG_CONFIG_INVALID: {
    retryable: false,
    summary: 'The catalog options do not fit its type (a missing or malformed `catalog.uri`, an unknown `catalog.type`). Fix the configuration.',
  },
  CATALOG_UNAVAILABLE: {
    retryable: true,
    summary: 'The catalog’s database or metastore did not answer or refused the connection. Retry later.',
  },
  CATALOG_REQUEST_FAILED: {
    retryable: false,
    summary: 'The catalog’s database or metastore rejected a statement for another reason; the context carries its code.',
  },
  CATALOG_DUPLICATE_KEY: {
    retryable: false,
    summary: 'A catalog row’s key is already taken (a table or database registered by another writer at the same moment).',
  },
  CATALOG_LOCATION_INVALID: {
    retryable: false,
    summary: 'The table’s location is not the one the catalog derives from the warehouse (`<warehouse>/<db>.db/<table>`).',
  },
  CATALOG_TABLE_EXISTS: {
    retryable: false,
    summary: 'The catalog already holds a table of that name. Drop it first or choose another name.',
  },
  CATALOG_LOCK_TIMEOUT: {
    retryable: true,
    summary: 'The table’s catalog lock was not acquired within `lock.acquireTimeoutMs` (another writer holds it). Retry later.',
  },
});
