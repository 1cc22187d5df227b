import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tableProperties } from '../../src/jdbc/catalog.ts';
import { lockId, placeholders, releaseTimedOutLock } from '../../src/jdbc/sql.ts';

test('placeholders numbers PostgreSQL parameters and leaves MySQL’s', () => {
  assert.equal(placeholders('postgresql', 'INSERT INTO t VALUES (?,?), (?,?)'), 'INSERT INTO t VALUES ($1,$2), ($3,$4)');
  assert.equal(placeholders('mysql', 'DELETE FROM t WHERE a = ?'), 'DELETE FROM t WHERE a = ?');
});

test('the lock id is <catalog-key>.<database>.<table>; expiry compares the row’s age with its own expire column', () => {
  assert.equal(lockId('jdbc', 'sales', 'orders'), 'jdbc.sales.orders');
  assert.match(releaseTimedOutLock('postgresql'), /EXTRACT\(EPOCH FROM AGE\(NOW\(\), acquired_at\)\) >expire_time_seconds and lock_id = \?$/);
  assert.match(releaseTimedOutLock('mysql'), /TIMESTAMPDIFF\(SECOND, acquired_at, NOW\(\)\) >expire_time_seconds and lock_id = \?$/);
});

test('tableProperties: the options, then primary-key, partition and bucket-key (the trimmed primary key by default)', () => {
  const schema = { version: 3, id: 0, fields: [], highestFieldId: 1, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], options: { bucket: '4' }, timeMillis: 0 };
  assert.deepEqual(tableProperties(schema), { bucket: '4', 'primary-key': 'id,dt', partition: 'dt', 'bucket-key': 'id' });
  assert.deepEqual(tableProperties({ ...schema, partitionKeys: [], primaryKeys: [], options: {} }), {});
});
