// A primary-key table whose keys are longer than the stats truncation length: key columns are
// NOT NULL and their stats stay exact, value stats are truncated as Java's truncate(16) does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, createTable, type InternalRow } from '@tributary/table';
import { decodeBinaryRow } from '@tributary/table/spec';

test('a primary-key table with long string keys writes, commits and reads back', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-long-keys-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'long_keys',
      schema: { fields: [{ name: 'k', type: 'STRING' }, { name: 'v', type: 'STRING' }], primaryKeys: ['k'], options: { bucket: '2' } },
    });
    const key = (i: number) => `customer-${String(i).padStart(4, '0')}-with-a-long-identifier`;
    const rows: InternalRow[] = Array.from({ length: 20 }, (_, i) => [key(i), 'v'.repeat(30 + i)]);
    const write = await table.newWrite({ writerId: 'w' });
    await write.writeRows(rows);
    await table.newCommit('u').commit(await write.prepareCommit());

    const read = (await table.newRead().toArray()).map((r) => r.join('|')).sort();
    assert.deepEqual(read, rows.map((r) => r.join('|')).sort());
    const stringType = { root: 'VARCHAR', length: 2147483647, nullable: true } as const;
    for (const entry of await table.newRead().plan()) {
      assert.equal(entry.file.valueStatsCols, null, 'every column keeps stats (dense form)');
      const [minKey] = decodeBinaryRow(entry.file.keyStats.minValues, [stringType]);
      assert.match(String(minKey), /^customer-\d{4}-with-a-long-identifier$/, 'key stats hold the whole key');
      const [, maxV] = decodeBinaryRow(entry.file.valueStats.maxValues, [stringType, stringType]);
      assert.equal(String(maxV).length, 16, 'value stats are truncated to 16 characters');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
