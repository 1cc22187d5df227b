/**
 * Opens the ObjectStore for a warehouse or table URI, as Paimon's `FileIO.get(path, context)`
 * picks a FileIO by scheme. `file:///abs/path` gives a LocalObjectStore, `s3://bucket/prefix`
 * (or Hadoop's `s3a://`, which Paimon users often write) an S3ObjectStore.
 */
import { fileURLToPath } from 'node:url';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { LocalObjectStore } from './local-store.ts';
import type { ObjectStore } from './object-store.ts';
import { S3ObjectStore, type S3ConnectionOptions } from './s3-store.ts';

export function openObjectStore(uri: string, s3Options: S3ConnectionOptions = {}): ObjectStore {
  let url: URL;
  try {
    url = new URL(uri);
  } catch (cause) {
    throw invalid(uri, 'not a URI', cause);
  }
  switch (url.protocol) {
    case 'file:':
      if (url.host !== '' && url.host !== 'localhost') throw invalid(uri, 'file URIs must have no host (file:///path)');
      return new LocalObjectStore(fileURLToPath(url));
    case 's3:':
    case 's3a:': {
      if (url.hostname === '') throw invalid(uri, 'no bucket');
      if (url.search !== '' || url.hash !== '') throw invalid(uri, 'query or fragment not allowed');
      const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
      return new S3ObjectStore({ ...s3Options, bucket: url.hostname, prefix });
    }
    default:
      throw invalid(uri, `unsupported scheme ${url.protocol} (file: or s3:)`);
  }
}

/**
 * A per-process cache of openObjectStore: one store (and so one S3 client with its connection pool)
 * per warehouse URI, however many tables and shards use it.
 */
export function warehouseStores(s3Options: S3ConnectionOptions = {}): (warehouse: string) => ObjectStore {
  const stores = new Map<string, ObjectStore>();
  return (warehouse) => {
    let store = stores.get(warehouse);
    if (store === undefined) {
      store = openObjectStore(warehouse, s3Options);
      stores.set(warehouse, store);
    }
    return store;
  };
}

/**
 * Like warehouseStores, for stores read with other credentials than the process's own (a source's
 * S3 connection): one store per URI and credentials, so that a rotated secret opens a new one.
 */
export function credentialedStores(): (uri: string, s3Options: S3ConnectionOptions) => ObjectStore {
  const stores = new Map<string, ObjectStore>();
  return (uri, s3Options) => {
    const key = JSON.stringify([uri, s3Options.endpoint, s3Options.region, s3Options.accessKeyId, s3Options.secretAccessKey]);
    let store = stores.get(key);
    if (store === undefined) {
      if (stores.size >= 256) stores.clear();
      store = openObjectStore(uri, s3Options);
      stores.set(key, store);
    }
    return store;
  };
}

function invalid(uri: string, why: string, cause?: unknown): Error {
  return errorFrom(tableErrors, 'STORAGE_URI_INVALID', `invalid storage URI ${JSON.stringify(uri)}: ${why}`, { uri }, { cause });
}
