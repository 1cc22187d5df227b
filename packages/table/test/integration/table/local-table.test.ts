import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore } from '@tributary/table';
import { tableSuite } from './table-suite.ts';

let dir = '';
tableSuite(
  'local disk',
  async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-table-'));
    return new LocalObjectStore(dir);
  },
  async () => {
    await rm(dir, { recursive: true, force: true });
  },
);
