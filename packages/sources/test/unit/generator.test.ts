import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RowType } from '@tributary/table';
import { GeneratorSource, GENERATOR_COLUMNS } from '../../src/generator/source.ts';
import { rowConverter } from '../../src/values/convert.ts';
import { isTributaryError } from '@tributary/protocol';

const ORDERS: RowType = {
  fields: [
    { id: 0, name: 'order_id', type: { root: 'BIGINT', nullable: false } },
    { id: 1, name: 'customer_id', type: { root: 'INT', nullable: false } },
    { id: 2, name: 'store_id', type: { root: 'INT', nullable: false } },
    { id: 3, name: 'amount', type: { root: 'DECIMAL', precision: 12, scale: 2, nullable: true } },
    { id: 4, name: 'status', type: { root: 'VARCHAR', length: 16, nullable: true } },
    { id: 5, name: 'order_date', type: { root: 'DATE', nullable: true } },
    { id: 6, name: 'created_at', type: { root: 'TIMESTAMP', precision: 3, nullable: true } },
  ],
};

async function ids(source: GeneratorSource, shardIndex: number, from?: number): Promise<bigint[]> {
  const shards = await source.plan();
  const shard = shards[shardIndex];
  assert.ok(shard);
  const out: bigint[] = [];
  for await (const batch of source.open(shard, from)) for (const row of batch.rows) out.push(row[0] as bigint);
  return out;
}

describe('generator source', () => {
  test('shards are disjoint and together yield ids 1..N·rows, each once', async () => {
    const source = new GeneratorSource({ kind: 'generator', seed: 7, shards: 4, rowsPerShard: 25, batchRows: 10 });
    const all = (await Promise.all([0, 1, 2, 3].map((i) => ids(source, i)))).flat();
    assert.deepEqual([...all].sort((a, b) => Number(a - b)), Array.from({ length: 100 }, (_, i) => BigInt(i + 1)));
  });

  test('a resumed shard yields the same rows as a full read from that position', async () => {
    const source = new GeneratorSource({ kind: 'generator', seed: 7, shards: 2, rowsPerShard: 25, batchRows: 10 });
    assert.deepEqual(await ids(source, 1, 10), (await ids(source, 1)).slice(10));
  });

  test('every generated row converts to the orders schema', async () => {
    const source = new GeneratorSource({ kind: 'generator', seed: 3, shards: 1, rowsPerShard: 500 });
    const convert = rowConverter('shard-00000', GENERATOR_COLUMNS, ORDERS);
    for await (const batch of source.open({ id: 'shard-00000', spec: { index: 0, count: 1 } })) {
      batch.rows.forEach((row, i) => convert(row, batch.firstRowPosition + i));
    }
  });

  test('the bad-row fault fails conversion with shard, position and column', async () => {
    const source = new GeneratorSource({ kind: 'generator', seed: 3, shards: 2, rowsPerShard: 50, batchRows: 8, faults: { badRow: { shard: 1, position: 37 } } });
    const convert = rowConverter('shard-00001', GENERATOR_COLUMNS, ORDERS);
    const shard = (await source.plan())[1];
    assert.ok(shard);
    await assert.rejects(
      (async () => {
        for await (const batch of source.open(shard)) batch.rows.forEach((row, i) => convert(row, batch.firstRowPosition + i));
      })(),
      (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.shard === 'shard-00001' && e.context.position === 37 && e.context.column === 'amount',
    );
  });
});

describe('row conversion', () => {
  const convert = rowConverter('s', GENERATOR_COLUMNS, ORDERS);
  const good = [1n, 2, 3, '12.30', 'NEW', '2024-01-02', new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6))] as const;
  test('converts to internal values', () => {
    assert.deepEqual(convert(good, 0), [1n, 2, 3, 1230n, 'NEW', 19724, { epochMillis: Date.UTC(2024, 0, 2, 3, 4, 5, 6), nanoOfMillis: 0 }]);
  });
  const cases: [string, number, unknown][] = [
    ['decimal precision', 3, '12345678901.00'],
    ['decimal scale', 3, '1.234'],
    ['varchar length', 4, 'x'.repeat(17)],
    ['int range', 1, 2 ** 31],
    ['null in NOT NULL', 0, null],
    ['date text', 5, '2024/01/02'],
  ];
  for (const [name, column, value] of cases) {
    test(`refuses ${name}`, () => {
      const row = [...good] as unknown[];
      row[column] = value;
      assert.throws(() => convert(row as never, 9), (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.position === 9);
    });
  }
});
