/**
 * Contexts for tests that create sources directly: a process whose only source root is a test's
 * directory, and a planner with the coordinator's default shard limit whose refusals are plain errors.
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { openObjectStore } from '@tributary/table';
import { loadSourceAccess } from '../../src/access.ts';
import type { PlanContext, SourceContext } from '../../src/source.ts';

/** Reads local files (`file://` roots) through the table's object store; only under `root`. */
export function localContext(root: string, columns: readonly string[]): SourceContext {
  const access = loadSourceAccess({ env: { TRIBUTARY_SOURCE_ROOTS: root }, readText: (path) => readFileSync(path, 'utf8'), realpath });
  return { openStore: (r) => openObjectStore(r), columns, access };
}

export const PLAN: PlanContext = {
  target: [],
  maxShards: 10_000,
  tooManyShards: (planned) => new Error(`the source plans ${planned} shards`),
  refuse: (message) => new Error(message),
  mismatch: (column, message) => Object.assign(new Error(message), { column }),
  nothingToLoad: (message) => new Error(message),
  history: { watermark: () => Promise.resolve(null), loadedFiles: () => Promise.resolve(new Set()) },
  fixWatermark: () => undefined,
};
