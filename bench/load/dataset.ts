/**
 * The load benchmark's source: `shards` MariaDB tables `orders_0 … orders_<shards-1>` of `rows` rows
 * each in one database named for the scale, 11 columns (integers, two DECIMALs, ASCII and unicode
 * text, DATE, DATETIME(3) and DATETIME(6)), about one NULL in ten in every nullable column. Built once
 * with MariaDB's sequence engine (`seq_1_to_N`) and kept: a later run at the same scale reuses it
 * (a `load_meta` row marks it complete and holds its expected count and column sums).
 */
import { createConnection, type Connection } from 'mysql2/promise';

/** The MariaDB side of each column and the Paimon column it loads into (the table all contenders write). */
export const LOAD_COLUMNS = [
  { name: 'id', mysql: 'BIGINT NOT NULL', paimon: 'BIGINT NOT NULL' },
  { name: 'customer_id', mysql: 'INT NOT NULL', paimon: 'INT NOT NULL' },
  { name: 'store_id', mysql: 'SMALLINT NULL', paimon: 'INT' },
  { name: 'amount', mysql: 'DECIMAL(12, 2) NULL', paimon: 'DECIMAL(12, 2)' },
  { name: 'tax', mysql: 'DECIMAL(18, 4) NULL', paimon: 'DECIMAL(18, 4)' },
  { name: 'status', mysql: 'VARCHAR(16) NULL', paimon: 'VARCHAR(16)' },
  { name: 'note', mysql: 'VARCHAR(64) CHARACTER SET utf8mb4 NULL', paimon: 'VARCHAR(64)' },
  { name: 'order_date', mysql: 'DATE NULL', paimon: 'DATE' },
  { name: 'created_at', mysql: 'DATETIME(3) NOT NULL', paimon: 'TIMESTAMP(3) NOT NULL' },
  { name: 'updated_at', mysql: 'DATETIME(6) NULL', paimon: 'TIMESTAMP(6)' },
  { name: 'qty', mysql: 'INT NULL', paimon: 'INT' },
] as const;

/**
 * Row `seq` (1-based) of shard `s`: id = s·rows + seq; every other column a formula of seq, NULL when
 * seq mod 10 hits the column's own residue.
 */
function selectRows(database: string, shard: number, rows: number): string {
  const nullable = (residue: number, expression: string) => `IF(seq % 10 = ${residue}, NULL, ${expression})`;
  return `SELECT
    seq + ${shard * rows},
    (seq * 7919) % 100000 + 1,
    ${nullable(1, 'seq % 64')},
    ${nullable(2, '((seq * 104729) % 100000000) / 100')},
    ${nullable(3, "((seq * 15485863) % 100000000000000) / 10000 * IF(seq % 7 = 0, -1, 1)")},
    ${nullable(4, "ELT(seq % 5 + 1, 'NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED')")},
    ${nullable(5, "CONCAT(ELT(seq % 7 + 1, 'café ', 'naïve ', '東京 ', 'Zürich ', '😀 emoji ', 'plain ', 'Ωμέγα '), seq)")},
    ${nullable(6, "DATE '1990-01-01' + INTERVAL (seq * 31) % 20000 DAY")},
    TIMESTAMP '2020-01-01 00:00:00' + INTERVAL ((seq * 37001) % 100000000000) * 1000 MICROSECOND,
    ${nullable(7, "TIMESTAMP '2021-06-01 00:00:00' + INTERVAL (seq * 1234567) % 100000000000000 MICROSECOND")},
    ${nullable(8, '(seq % 1000) - 500')}
  FROM (SELECT CAST(seq AS SIGNED) AS seq FROM \`${database}\`.seq_1_to_${rows}) AS numbers`;
}

/** What every contender's table must hold: the row count, the sum of each column and its NULL count. */
export interface Expected {
  readonly rows: number;
  /** Per column (LOAD_COLUMNS order): integers as is, DECIMAL unscaled, strings by characters, DATE epoch days, TIMESTAMP(3) epoch ms, TIMESTAMP(6) epoch µs. */
  readonly sums: readonly string[];
  readonly nulls: readonly number[];
}

const SUMS = [
  'SUM(id)',
  'SUM(customer_id)',
  'SUM(store_id)',
  'SUM(amount * 100)',
  'SUM(tax * 10000)',
  'SUM(CHAR_LENGTH(status))',
  'SUM(CHAR_LENGTH(note))',
  "SUM(DATEDIFF(order_date, '1970-01-01'))",
  "SUM(TIMESTAMPDIFF(MICROSECOND, '1970-01-01', created_at) DIV 1000)",
  "SUM(TIMESTAMPDIFF(MICROSECOND, '1970-01-01', updated_at))",
  'SUM(qty)',
];

export interface Dataset {
  readonly database: string;
  readonly tables: readonly string[];
  readonly expected: Expected;
}

export interface MysqlEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

/** The dataset of this scale, built unless a complete one exists. */
export async function ensureDataset(endpoint: MysqlEndpoint, shards: number, rows: number, log: (line: string) => void): Promise<Dataset> {
  const database = `bench_load_${shards}x${rows}`;
  const tables = Array.from({ length: shards }, (_, s) => `orders_${s}`);
  const connection = await createConnection({ ...endpoint, multipleStatements: true });
  try {
    await connection.query("SET time_zone = '+00:00'");
    const existing = await readMeta(connection, database);
    if (existing !== undefined) return { database, tables, expected: existing };
    log(`bench: building ${database} (${shards} × ${rows.toLocaleString('en-US')} rows in MariaDB)…`);
    await connection.query(`DROP DATABASE IF EXISTS \`${database}\`; CREATE DATABASE \`${database}\``);
    const columns = LOAD_COLUMNS.map((c) => `\`${c.name}\` ${c.mysql}`).join(', ');
    for (const [s, table] of tables.entries()) {
      await connection.query(`CREATE TABLE \`${database}\`.\`${table}\` (${columns}, PRIMARY KEY (id)) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4`);
      await connection.query(`INSERT INTO \`${database}\`.\`${table}\` ${selectRows(database, s, rows)}`);
    }
    const union = tables.map((t) => `SELECT * FROM \`${database}\`.\`${t}\``).join(' UNION ALL ');
    const nullCounts = LOAD_COLUMNS.map((c) => `SUM(\`${c.name}\` IS NULL)`);
    const [result] = await connection.query(`SELECT COUNT(*), ${SUMS.join(', ')}, ${nullCounts.join(', ')} FROM (${union}) AS everything`);
    const values = Object.values((result as Record<string, unknown>[])[0] ?? {}).map((v) => String(v ?? 0));
    const expected: Expected = { rows: Number(values[0]), sums: values.slice(1, 12).map(integerText), nulls: values.slice(12).map(Number) };
    await connection.query(`CREATE TABLE \`${database}\`.load_meta (expected JSON NOT NULL)`);
    await connection.query(`INSERT INTO \`${database}\`.load_meta VALUES (?)`, [JSON.stringify(expected)]);
    return { database, tables, expected };
  } finally {
    await connection.end();
  }
}

/** MariaDB's sums of decimals come as `123.0000`: every expected sum is an integer. */
function integerText(text: string): string {
  const [whole = '0', fraction = ''] = text.split('.');
  if (/[1-9]/.test(fraction)) throw new Error(`bench: an expected sum is not an integer (${text})`);
  return whole;
}

async function readMeta(connection: Connection, database: string): Promise<Expected | undefined> {
  try {
    const [rows] = await connection.query(`SELECT expected FROM \`${database}\`.load_meta`);
    const first = (rows as { expected: unknown }[])[0];
    if (first === undefined) return undefined;
    return (typeof first.expected === 'string' ? JSON.parse(first.expected) : first.expected) as Expected;
  } catch {
    return undefined;
  }
}
