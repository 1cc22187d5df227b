/**
 * A PostgreSQL source's own schema, for `POST /v1/tables` with `fromSource`: the first matching
 * table's columns (every physical table of a source has the same ones; only `columns` when the spec
 * names them) with the narrowest Paimon type that holds every value (`naturalType`, checked against
 * types.ts's `incompatibility`), NOT NULL as declared, its primary key, and the size of every
 * matching table (`pg_table_size`: its data and TOAST, without indexes).
 */
import { errorFrom } from '@tributary/protocol';
import { formatDataType, MAX_LENGTH, type DataType } from '@tributary/table';
import type { SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import type { SourceSchema } from '../source.ts';
import { listDatabases, listTables, readColumns, readKey, specEndpoint, withClient } from './plan.ts';
import type { PostgresSourceSpec } from './spec.ts';
import { incompatibility, numericTypmod, type PostgresColumn } from './types.ts';

const VARHDRSZ = 4;
const t = (root: DataType['root'], extra: object = {}): DataType => ({ root, nullable: true, ...extra }) as DataType;

/** The narrowest Paimon type every value of the column fits, or undefined for a type the source cannot load. */
export function naturalType(c: PostgresColumn): DataType | undefined {
  if (c.category === 'A') return undefined;
  if (c.typeKind === 'e') return t('VARCHAR', { length: c.enumLength ?? MAX_LENGTH });
  if (c.typeKind !== 'b') return undefined;
  const fraction = c.typmod < 0 ? 6 : c.typmod;
  const length = c.typmod < VARHDRSZ ? undefined : c.typmod - VARHDRSZ;
  switch (c.typeName) {
    case 'bool':
      return t('BOOLEAN');
    case 'int2':
      return t('SMALLINT');
    case 'int4':
      return t('INT');
    case 'int8':
      return t('BIGINT');
    case 'numeric': {
      // Unconstrained: its exact text (NaN and the infinities included); no DECIMAL holds every value.
      const declared = numericTypmod(c.typmod);
      if (declared === undefined) return t('VARCHAR', { length: MAX_LENGTH });
      const scale = Math.max(declared.scale, 0);
      const precision = declared.precision - declared.scale + scale;
      return precision > 38 ? undefined : t('DECIMAL', { precision, scale });
    }
    case 'float4':
      return t('FLOAT');
    case 'float8':
      return t('DOUBLE');
    case 'text':
    case 'json':
    case 'jsonb':
      return t('VARCHAR', { length: MAX_LENGTH });
    case 'varchar':
      return t('VARCHAR', { length: length ?? MAX_LENGTH });
    case 'bpchar':
      // A bare bpchar (no length) is unbounded: STRING, as an unbounded varchar.
      return length === undefined ? t('VARCHAR', { length: MAX_LENGTH }) : t('CHAR', { length });
    case 'uuid':
      return t('CHAR', { length: 36 });
    case 'bytea':
      return t('VARBINARY', { length: MAX_LENGTH });
    case 'date':
      return t('DATE');
    case 'time':
      return t('TIME', { precision: Math.min(fraction, 3) });
    case 'timestamp':
      return t('TIMESTAMP', { precision: fraction });
    case 'timestamptz':
      return t('TIMESTAMP_LTZ', { precision: fraction });
    default:
      return undefined;
  }
}

export async function postgresSchema(spec: PostgresSourceSpec, access: SourceAccess): Promise<SourceSchema> {
  const endpoint = specEndpoint(spec, access);
  const databases = await withClient(endpoint, endpoint.database, listDatabases(spec));
  let schema: Omit<SourceSchema, 'bytes'> | undefined;
  let bytes = 0;
  for (const database of databases) {
    await withClient(endpoint, database, async (client) => {
      const tables = await listTables(client, spec);
      const first = tables[0];
      if (schema === undefined && first !== undefined) {
        const where = { database, schema: first.schema, table: first.table };
        const columns = await readColumns(client, Number(first.oid));
        const { rows } = await client.query<{ name: string }>('SELECT attname AS name FROM pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped AND attnotnull', [Number(first.oid)]);
        const notNull = new Set(rows.map((r) => r.name));
        const wanted = spec.columns;
        const read = [...columns.values()].filter((c) => wanted === undefined || wanted.includes(c.name));
        schema = {
          columns: read.map((column) => {
            const type = naturalType(column);
            if (type === undefined || incompatibility(column, type) !== undefined) {
              throw errorFrom(sourceErrors, 'POSTGRES_SCHEMA_MISMATCH', `${database}.${first.schema}.${first.table}, column ${column.name}: PostgreSQL ${column.typeText} has no Paimon type to load into`, { ...where, column: column.name });
            }
            return { name: column.name, type: formatDataType({ ...type, nullable: !notNull.has(column.name) }) };
          }),
          primaryKeys: await readKey(client, Number(first.oid)),
        };
      }
      if (tables.length > 0) {
        const { rows } = await client.query<{ bytes: string | null }>('SELECT sum(pg_table_size(c))::int8 AS bytes FROM unnest($1::oid[]) AS c', [tables.map((x) => Number(x.oid))]);
        bytes += Number(rows[0]?.bytes ?? 0);
      }
    });
  }
  if (schema === undefined) {
    throw errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `no PostgreSQL table matches databases ${JSON.stringify(spec.databases)}, schemas ${JSON.stringify(spec.schemas)} and tables ${JSON.stringify(spec.tables)}`);
  }
  return { ...schema, bytes };
}
