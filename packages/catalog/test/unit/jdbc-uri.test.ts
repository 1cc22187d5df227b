import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { lockEnabledFor, parseJdbcUri } from '@tributary/catalog';

test('parseJdbcUri reads PostgreSQL, MySQL and MariaDB JDBC URLs (MariaDB is the MySQL dialect), default ports', () => {
  assert.deepEqual(parseJdbcUri('jdbc:postgresql://db.example:5440/catalog?ssl=false'), { dialect: 'postgresql', protocol: 'postgresql', host: 'db.example', port: 5440, database: 'catalog' });
  assert.deepEqual(parseJdbcUri('jdbc:mysql://127.0.0.1/paimon'), { dialect: 'mysql', protocol: 'mysql', host: '127.0.0.1', port: 3306, database: 'paimon' });
  assert.deepEqual(parseJdbcUri('jdbc:mariadb://[::1]:3390/p'), { dialect: 'mysql', protocol: 'mariadb', host: '::1', port: 3390, database: 'p' });
});

test('parseJdbcUri refuses other protocols, a missing database and credentials in the URL, without echoing the URL', () => {
  for (const uri of ['jdbc:sqlite:/tmp/x.db', 'postgresql://h/db', 'jdbc:postgresql://h:5432/', 'jdbc:mysql://user:hunter2@h/db', 'jdbc:postgresql://h:99999/db']) {
    assert.throws(
      () => parseJdbcUri(uri),
      (e) => isTributaryError(e) && e.code === 'CATALOG_CONFIG_INVALID' && !e.message.includes('hunter2') && !e.message.includes(uri),
      uri,
    );
  }
});

test('the lock is on by default on an object store, off on a file system, as in Paimon; an explicit setting wins', () => {
  assert.equal(lockEnabledFor('s3://bucket/wh', {}), true);
  assert.equal(lockEnabledFor('file:///tmp/wh', {}), false);
  assert.equal(lockEnabledFor('s3://bucket/wh', { lockEnabled: false }), false);
  assert.equal(lockEnabledFor('file:///tmp/wh', { lockEnabled: true }), true);
});
