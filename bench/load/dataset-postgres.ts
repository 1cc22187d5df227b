/**
 * The load benchmark's PostgreSQL source: the MariaDB dataset's shape (dataset.ts: the same 11
 * columns, the same formulas of the row number, about one NULL in ten in every nullable column) as
 * `shards` tables `orders_0 …` of `rows` rows in one PostgreSQL database named for the scale, built
 * once with `generate_series` and kept: a later run at the same scale reuses it (a `load_meta` row
 * marks it complete and holds its expected count, column sums and NULL counts).
 */
import pg from 'pg';
import type { Dataset, Expected } from './dataset.ts';

/** PostgreSQL's type of each LOAD_COLUMNS column (same order; the Paimon side is LOAD_COLUMNS'). */
const PG_TYPES = ['int8 NOT NULL', 'int4 NOT NULL', 'int2', 'numeric(12, 2)', 'numeric(18, 4)', 'varchar(16)', 'varchar(64)', 'date', 'timestamp(3) NOT NULL', 'timestamp(6)', 'int4'];
const NAMES = ['id', 'customer_id', 'store_id', 'amount', 'tax', 'status', 'note', 'order_date', 'created_at', 'updated_at', 'qty'];

function selectRows(shard: number, rows: number): string {
  const nullable = (residue: number, expression: string) => `CASE WHEN seq % 10 = ${residue} THEN NULL ELSE ${expression} END`;
  return `SELECT
    seq + ${shard * rows},
    (seq * 7919) % 100000 + 1,
    ${nullable(1, 'seq % 64')},
    ${nullable(2, '((seq * 104729) % 100000000) / 100.0')},
    ${nullable(3, '((seq * 15485863) % 100000000000000) / 10000.0 * CASE WHEN seq % 7 = 0 THEN -1 ELSE 1 END')},
    ${nullable(4, "(ARRAY['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'])[seq % 5 + 1]")},
    ${nullable(5, "(ARRAY['café ', 'naïve ', '東京 ', 'Zürich ', '😀 emoji ', 'plain ', 'Ωμέγα '])[seq % 7 + 1] || seq")},
    ${nullable(6, "DATE '1990-01-01' + ((seq * 31) % 20000)::int")},
    TIMESTAMP '2020-01-01 00:00:00' + ((seq * 37001) % 100000000000) * INTERVAL '1 millisecond',
    ${nullable(7, "TIMESTAMP '2021-06-01 00:00:00' + ((seq * 1234567) % 100000000000000) * INTERVAL '1 microsecond'")},
    ${nullable(8, '(seq % 1000) - 500')}
  FROM generate_series(1::int8, ${rows}::int8) AS seq`;
}

const SUMS = [
  'SUM(id)',
  'SUM(customer_id)',
  'SUM(store_id)',
  'SUM(amount * 100)',
  'SUM(tax * 10000)',
  'SUM(char_length(status))',
  'SUM(char_length(note))',
  "SUM(order_date - DATE '1970-01-01')",
  'SUM(floor(extract(epoch FROM created_at) * 1000))',
  'SUM(extract(epoch FROM updated_at) * 1000000)',
  'SUM(qty)',
];

export interface PostgresEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

/** The dataset of this scale in PostgreSQL, built unless a complete one exists. */
export async function ensurePostgresDataset(endpoint: PostgresEndpoint, shards: number, rows: number, log: (line: string) => void): Promise<Dataset> {
  const database = `bench_load_pg_${shards}x${rows}`;
  const tables = Array.from({ length: shards }, (_, s) => `orders_${s}`);
  const admin = new pg.Client({ ...endpoint, database: 'postgres' });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;
    if (exists) {
      const found = await readMeta(endpoint, database);
      if (found !== undefined) return { database, tables, expected: found };
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
    }
    log(`bench: building ${database} (${shards} × ${rows.toLocaleString('en-US')} rows in PostgreSQL)…`);
    await admin.query(`CREATE DATABASE ${database} ENCODING 'UTF8' TEMPLATE template0`);
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ ...endpoint, database });
  await db.connect();
  try {
    const columns = NAMES.map((n, i) => `${n} ${PG_TYPES[i]}`).join(', ');
    for (const [s, table] of tables.entries()) {
      await db.query(`CREATE TABLE ${table} (${columns}, PRIMARY KEY (id))`);
      await db.query(`INSERT INTO ${table} ${selectRows(s, rows)}`);
      await db.query(`VACUUM ANALYZE ${table}`);
    }
    const union = tables.map((t) => `SELECT * FROM ${t}`).join(' UNION ALL ');
    const nulls = NAMES.map((n) => `count(*) FILTER (WHERE ${n} IS NULL)`);
    const { rows: result } = await db.query<string[]>({ text: `SELECT count(*)::text, ${SUMS.map((s) => `(${s})::text`).join(', ')}, ${nulls.map((n) => `${n}::text`).join(', ')} FROM (${union}) AS everything`, rowMode: 'array' });
    const values = (result[0] ?? []).map((v) => String(v ?? 0));
    const expected: Expected = { rows: Number(values[0]), sums: values.slice(1, 12).map(integerText), nulls: values.slice(12).map(Number) };
    await db.query('CREATE TABLE load_meta (expected jsonb NOT NULL)');
    await db.query('INSERT INTO load_meta VALUES ($1)', [JSON.stringify(expected)]);
    return { database, tables, expected };
  } finally {
    await db.end();
  }
}

/** PostgreSQL's sums of numerics come as `123.0000`: every expected sum is an integer. */
function integerText(text: string): string {
  const [whole = '0', fraction = ''] = text.split('.');
  if (/[1-9]/.test(fraction)) throw new Error(`bench: an expected sum is not an integer (${text})`);
  return whole;
}

async function readMeta(endpoint: PostgresEndpoint, database: string): Promise<Expected | undefined> {
  const db = new pg.Client({ ...endpoint, database });
  await db.connect();
  try {
    const { rows } = await db.query<{ expected: Expected }>('SELECT expected FROM load_meta');
    return rows[0]?.expected;
  } catch {
    return undefined;
  } finally {
    await db.end();
  }
}
