/**
 * A MySQL source's own schema, for `POST /v1/tables` with `fromSource`: the first matching table's
 * columns (every physical table of a source has the same ones) with the narrowest Paimon type that
 * holds every value (`naturalType`, checked against types.ts's `incompatibility`), NOT NULL as
 * declared, its primary key, and the size of every matching table (`DATA_LENGTH`, InnoDB's estimate).
 */
import { errorFrom } from '@tributary/protocol';
import { formatDataType, MAX_LENGTH, type DataType } from '@tributary/table';
import type { RowDataPacket } from 'mysql2/promise';
import { mysqlEndpoint, type SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import type { SourceSchema } from '../source.ts';
import { asPlanError, connect, listTables } from './plan.ts';
import type { MysqlSourceSpec } from './spec.ts';
import { incompatibility, type MysqlColumn } from './types.ts';

const t = (root: DataType['root'], extra: object = {}): DataType => ({ root, nullable: true, ...extra }) as DataType;

/** The narrowest Paimon type every value of the column fits, or undefined for a type the source cannot load. */
export function naturalType(c: MysqlColumn): DataType | undefined {
  const unsigned = /\bunsigned\b/i.test(c.columnType);
  const p = c.datetimePrecision ?? 0;
  switch (c.dataType) {
    case 'tinyint':
      return c.columnType.startsWith('tinyint(1)') ? t('BOOLEAN') : t(unsigned ? 'SMALLINT' : 'TINYINT');
    case 'smallint':
      return t(unsigned ? 'INT' : 'SMALLINT');
    case 'mediumint':
      return t('INT');
    case 'int':
      return t(unsigned ? 'BIGINT' : 'INT');
    case 'bigint':
      return unsigned ? t('DECIMAL', { precision: 20, scale: 0 }) : t('BIGINT');
    case 'decimal':
      return (c.numericPrecision ?? 65) > 38 ? undefined : t('DECIMAL', { precision: c.numericPrecision ?? 10, scale: c.numericScale ?? 0 });
    case 'float':
      return t('FLOAT');
    case 'double':
      return t('DOUBLE');
    case 'year':
      return t('SMALLINT');
    case 'bit':
      return c.numericPrecision === 1 ? t('BOOLEAN') : undefined;
    case 'date':
      return t('DATE');
    case 'datetime':
    case 'timestamp':
      return t('TIMESTAMP', { precision: p });
    case 'time':
      return t('TIME', { precision: Math.min(p, 3) });
    case 'char':
      return t('CHAR', { length: c.characterMaximumLength ?? 1 });
    case 'varchar':
      return t('VARCHAR', { length: c.characterMaximumLength ?? MAX_LENGTH });
    case 'binary':
      return t('BINARY', { length: c.characterMaximumLength ?? 1 });
    case 'varbinary':
      return t('VARBINARY', { length: c.characterMaximumLength ?? MAX_LENGTH });
    case 'tinytext':
    case 'text':
    case 'mediumtext':
    case 'longtext':
    case 'enum':
    case 'set':
    case 'json':
      return t('VARCHAR', { length: MAX_LENGTH });
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return t('VARBINARY', { length: MAX_LENGTH });
    default:
      return undefined;
  }
}

export async function mysqlSchema(spec: MysqlSourceSpec, access: SourceAccess): Promise<SourceSchema> {
  const endpoint = mysqlEndpoint(spec, access);
  const connection = await connect(endpoint);
  try {
    const tables = await listTables(connection, spec);
    const first = tables[0];
    if (first === undefined) throw errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', 'no MySQL table matches');
    const [rows] = await connection.query<RowDataPacket[]>(
      `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH, DATETIME_PRECISION, IS_NULLABLE
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [first.database, first.table],
    );
    const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
    const wanted = spec.columns;
    const columns = rows
      .map((r) => ({
        column: { name: String(r[0]), dataType: String(r[1]).toLowerCase(), columnType: String(r[2]).toLowerCase(), numericPrecision: num(r[3]), numericScale: num(r[4]), characterMaximumLength: num(r[5]), datetimePrecision: num(r[6]) },
        nullable: String(r[7]) === 'YES',
      }))
      .filter(({ column }) => wanted === undefined || wanted.includes(column.name))
      .map(({ column, nullable }) => {
        const type = naturalType(column);
        if (type === undefined || incompatibility(column, type) !== undefined) {
          throw errorFrom(sourceErrors, 'MYSQL_SCHEMA_MISMATCH', `${first.database}.${first.table}, column ${column.name}: MySQL ${column.columnType} has no Paimon type to load into`, { ...first, column: column.name });
        }
        return { name: column.name, type: formatDataType({ ...type, nullable }) };
      });
    const [keys] = await connection.query<RowDataPacket[]>(
      "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX",
      [first.database, first.table],
    );
    let bytes = 0;
    for (const table of tables) {
      const [size] = await connection.query<RowDataPacket[]>('SELECT DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [table.database, table.table]);
      bytes += Number(size[0]?.[0] ?? 0);
    }
    return { columns, primaryKeys: keys.map((k) => String(k[0])), bytes };
  } catch (error) {
    throw asPlanError(error, endpoint);
  } finally {
    connection.destroy();
  }
}
