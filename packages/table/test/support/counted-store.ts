import { LocalObjectStore, type ObjectStore } from '@tributary/table';

/** A real local store whose whole-object reads are counted by key. */
export function countedStore(dir: string): ObjectStore & { reads: Map<string, number> } {
  const inner = new LocalObjectStore(dir);
  const reads = new Map<string, number>();
  return {
    uri: inner.uri,
    reads,
    get: (key) => {
      reads.set(key, (reads.get(key) ?? 0) + 1);
      return inner.get(key);
    },
    getRange: (key, offset, length) => inner.getRange(key, offset, length),
    stat: (key) => inner.stat(key),
    put: (key, body) => inner.put(key, body),
    putIfAbsent: (key, body) => inner.putIfAbsent(key, body),
    list: (prefix) => inner.list(prefix),
    listDirectories: (d) => inner.listDirectories(d),
    delete: (key) => inner.delete(key),
    deleteMany: (keys) => inner.deleteMany(keys),
    close: () => inner.close(),
  };
}
