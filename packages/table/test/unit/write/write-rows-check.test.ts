// TableWrite.writeRows checks each row against the table's types before it reaches the column
// arrays, which would otherwise change a value silently: a BIGINT outside int64 wraps in a
// BigInt64Array, a TINYINT of 300 or an INT of 1.5 is stored as something else, a lone surrogate
// becomes U+FFFD in UTF-8. A refused write names the row and field, never the value, and leaves
// nothing behind in the table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTributaryError } from '@tributary/errors';
import { LocalObjectStore, createTable, type InternalRow } from '@tributary/table';

const FIELDS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'small', type: 'TINYINT' },
  { name: 'n', type: 'INT' },
  { name: 'big', type: 'BIGINT' },
  { name: 'amount', type: 'DECIMAL(5, 2)' },
  { name: 'name', type: 'STRING' },
  { name: 'at', type: 'TIMESTAMP(3)' },
];

test('writeRows refuses a value its column cannot hold, naming row and field, never the value', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-write-rows-'));
  try {
    const table = await createTable(new LocalObjectStore(dir, { fsync: false }), {
      database: 'db',
      name: 'checked',
      schema: { fields: FIELDS, primaryKeys: ['id'], options: { bucket: '1' } },
    });
    const good: InternalRow = [1n, -128, -(2 ** 31), -(2n ** 63n), 99999n, 'ok 😀', { epochMillis: 0, nanoOfMillis: 0 }];
    const nulls: InternalRow = [2n, null, null, null, null, null, null];
    // [what, field, row, how the value would read in a message]
    const bad: Array<[string, number, InternalRow, string]> = [
      ['a BIGINT above int64', 3, [3n, 1, 1, 2n ** 63n, 1n, 'x', null], '9223372036854775808'],
      ['a BIGINT below int64', 3, [3n, 1, 1, -(2n ** 63n) - 1n, 1n, 'x', null], '9223372036854775809'],
      ['a TINYINT of 300', 1, [3n, 300, 1, 1n, 1n, 'x', null], '300'],
      ['an INT of 1.5', 2, [3n, 1, 1.5, 1n, 1n, 'x', null], '1.5'],
      ['an INT of 2^31 + 7', 2, [3n, 1, 2 ** 31 + 7, 1n, 1n, 'x', null], '2147483655'],
      ['a DECIMAL(5, 2) of 6 digits', 4, [3n, 1, 1, 1n, 123456n, 'x', null], '123456'],
      ['a lone surrogate', 5, [3n, 1, 1, 1n, 1n, 'secret\ud800', null], 'secret'],
      ['nanoseconds in a TIMESTAMP(3)', 6, [3n, 1, 1, 1n, 1n, 'x', { epochMillis: 1, nanoOfMillis: 4321 }], '4321'],
      ['a NULL key', 0, [null, 1, 1, 1n, 1n, 'x', null], '<no value to leak>'],
      ['a number for a BIGINT', 3, [3n, 1, 1, 77, 1n, 'x', null], '77'],
      ['too few values', -1, [3n, 1], '[3'],
    ];
    for (const [what, field, row, secret] of bad) {
      const write = await table.newWrite({ writerId: 'w' });
      await assert.rejects(
        write.writeRows([good, nulls, row]),
        (e: unknown) => {
          assert.ok(isTributaryError(e) && e.code === 'ROW_VALUE_INVALID', `${what}: ${String(e)}`);
          assert.equal(e.context.row, 2, what);
          if (field >= 0) assert.equal(e.context.field, field, what);
          assert.ok(!e.message.includes(secret), `${what}: ${e.message}`);
          return true;
        },
        what,
      );
      await write.abort();
    }
    const write = await table.newWrite({ writerId: 'w' });
    await write.writeRows([good, nulls]);
    await table.newCommit('u').commit(await write.prepareCommit());
    const read = await table.newRead().toArray();
    assert.deepEqual(read, [good, nulls], 'only the checked rows are in the table, exactly');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
