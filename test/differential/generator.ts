/**
 * The differential test's cases: for a seed, a random table (every type Tributary supports, 0–3
 * partition columns, append or primary-key, random buckets, `sequence.field` or not) and adversarial
 * rows split into shards in plan order. Pure and deterministic: `generateCase(seed)` is the same on
 * every run, which is what makes a failing seed replayable.
 *
 * Values are Tributary's in-memory values (packages/table/src/spec/types.ts), the same the oracles
 * take and give back, and they are drawn only from what every path of the case can carry
 * (carriage.ts), each already exact at its column's precision.
 */
import type { OracleRow, OracleValue } from '@tributary/testkit';
import { CARRIAGE, intersect, type Carriage, type FileFormat, type PathName } from './carriage.ts';
import { Random } from './random.ts';
import { partitionPool, value } from './values.ts';

export type TypeRoot =
  | 'BOOLEAN' | 'TINYINT' | 'SMALLINT' | 'INT' | 'BIGINT' | 'FLOAT' | 'DOUBLE' | 'DECIMAL'
  | 'CHAR' | 'VARCHAR' | 'STRING' | 'BINARY' | 'VARBINARY' | 'BYTES' | 'DATE' | 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ';

export const TYPE_ROOTS: readonly TypeRoot[] = [
  'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL',
  'CHAR', 'VARCHAR', 'STRING', 'BINARY', 'VARBINARY', 'BYTES', 'DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ',
];

export interface ColumnType {
  readonly root: TypeRoot;
  readonly nullable: boolean;
  /** DECIMAL precision, TIME/TIMESTAMP precision. */
  readonly precision?: number;
  readonly scale?: number;
  /** CHAR, VARCHAR, BINARY, VARBINARY length. */
  readonly length?: number;
}

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

export interface Case {
  readonly seed: number;
  /** The format the files path stages the shards in. */
  readonly format: FileFormat;
  /** The paths this case runs; the others cannot carry some of its values (see carriage.ts). */
  readonly paths: readonly PathName[];
  readonly carriage: Carriage;
  readonly columns: readonly Column[];
  readonly partitionKeys: readonly string[];
  readonly primaryKeys: readonly string[];
  /** -1: an unaware-bucket append table. */
  readonly bucket: number;
  readonly options: Readonly<Record<string, string>>;
  /** Rows per shard, shards in plan order, rows in shard order. */
  readonly shards: readonly (readonly OracleRow[])[];
  /** How the sources cut and batch the shards (none of it changes the expected rows). */
  readonly plan: {
    readonly filesPerShard: number;
    /** CSV and NDJSON line ends. */
    readonly lineEnd: '\n' | '\r\n';
    readonly parquetRowGroup: number;
    readonly mysqlBatchRows: number;
    /** MySQL: split each physical table into primary-key ranges of this many rows. */
    readonly mysqlSplitRows?: number;
  };
}

/** A Paimon type string as schemas spell it: 'DECIMAL(18, 4)', 'TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL'. */
export function typeString(type: ColumnType): string {
  const { root, precision, scale, length } = type;
  const base =
    root === 'DECIMAL' ? `DECIMAL(${precision}, ${scale})`
    : root === 'CHAR' || root === 'VARCHAR' || root === 'BINARY' || root === 'VARBINARY' ? `${root}(${length})`
    : root === 'TIME' || root === 'TIMESTAMP' ? `${root}(${precision})`
    : root === 'TIMESTAMP_LTZ' ? `TIMESTAMP(${precision}) WITH LOCAL TIME ZONE`
    : root;
  return type.nullable ? base : `${base} NOT NULL`;
}

/**
 * Which paths a seed runs, and in which file format: the formats take turns; one seed in six is a
 * Parquet case without MySQL, the only kind that can hold NaN, ±Infinity, nanoseconds and dates
 * before the year 1000 (MySQL holds none of them).
 */
export function pathsOf(seed: number): { format: FileFormat; paths: PathName[] } {
  const format = (['parquet', 'ndjson', 'csv'] as const)[seed % 3]!;
  const withoutMysql = seed % 6 === 0;
  return { format, paths: withoutMysql ? ['files', 'java'] : ['files', 'mysql', 'java'] };
}

export function generateCase(seed: number, limits: { maxRows?: number } = {}): Case {
  const r = new Random(seed);
  const { format, paths } = pathsOf(seed);
  const carriage = intersect([CARRIAGE[format], CARRIAGE.java, ...(paths.includes('mysql') ? [CARRIAGE.mysql] : [])]);
  const primaryKey = r.chance(0.5);

  // Columns: key and sequence columns first, then partitions, then values.
  const columns: Column[] = [];
  const primaryKeys: string[] = [];
  if (primaryKey) {
    columns.push({ name: 'k', type: { ...r.pick(KEY_TYPES), nullable: false } });
    primaryKeys.push('k');
  }
  const partitionKeys: string[] = [];
  for (let i = 0, n = r.pick([0, 0, 1, 1, 2, 3]); i < n; i++) {
    const name = `p${i}`;
    columns.push({ name, type: { ...r.pick(PARTITION_TYPES), nullable: !primaryKey } });
    partitionKeys.push(name);
    if (primaryKey) primaryKeys.push(name);
  }
  const options: Record<string, string> = {};
  if (primaryKey && r.chance(0.5)) {
    columns.push({ name: 'seq', type: { root: r.pick(['INT', 'BIGINT'] as const), nullable: false } });
    options['sequence.field'] = 'seq';
  }
  const roots = TYPE_ROOTS.filter((root) => carries(carriage, root));
  const valueCount = r.int(4, 12);
  for (let i = 0; i < valueCount; i++) {
    const root = r.pick(roots);
    columns.push({ name: `c${i}_${root.toLowerCase()}`, type: { ...typeOf(r, root, carriage), nullable: r.chance(0.8) } });
  }

  let bucket: number;
  if (primaryKey) bucket = r.int(1, 4);
  else if (r.chance(0.5)) bucket = -1;
  else {
    bucket = r.int(1, 4);
    const candidates = columns.filter((c) => !partitionKeys.includes(c.name) && BUCKET_KEY_ROOTS.includes(c.type.root));
    if (candidates.length === 0) bucket = -1;
    else options['bucket-key'] = r.pick(candidates).name;
  }

  // Rows: few, spread over 1–5 shards (an empty shard now and then); keys drawn from a small pool so
  // that the same key appears within a shard and across shards.
  const maxRows = Math.max(1, limits.maxRows ?? 300);
  const total = r.int(Math.min(50, maxRows), maxRows);
  const shardCount = r.int(1, 5);
  const cuts = Array.from({ length: shardCount - 1 }, () => r.int(0, total)).sort((a, b) => a - b);
  const bounds = [0, ...cuts, total];
  const keyPool = primaryKey ? Array.from({ length: Math.max(2, Math.floor(total / 3)) }, () => value(r, columns[0]!.type, carriage)) : [];
  const partitionPools = new Map(partitionKeys.map((name) => {
    const column = columns.find((c) => c.name === name)!;
    return [name, partitionPool(r, column.type, carriage)] as const;
  }));
  const sequencePool = [-(2n ** 31n), -1n, 0n, 1n, 2n ** 31n - 1n];
  const rows = Array.from({ length: total }, () =>
    columns.map((c): OracleValue => {
      if (c.name === 'k') return r.pick(keyPool);
      const pool = partitionPools.get(c.name);
      if (pool !== undefined) return r.pick(pool);
      if (c.name === 'seq') return c.type.root === 'BIGINT' ? r.pick([...sequencePool, -(2n ** 63n), 2n ** 63n - 1n]) : Number(r.pick(sequencePool));
      if (c.type.nullable && r.chance(0.12)) return null;
      return value(r, c.type, carriage);
    }),
  );
  const shards = bounds.slice(1).map((end, i) => rows.slice(bounds[i], end));
  const split = r.chance(0.5);
  const plan = {
    filesPerShard: r.pick([1, 1, 2]),
    lineEnd: r.pick(['\n', '\r\n'] as const),
    parquetRowGroup: r.pick([7, 50, 1000]),
    mysqlBatchRows: r.pick([1, 13, 10_000]),
    ...(split ? { mysqlSplitRows: r.int(5, 60) } : {}),
  };
  return { seed, format, paths, carriage, columns, partitionKeys, primaryKeys, bucket, options, shards, plan };
}

function carries(c: Carriage, root: TypeRoot): boolean {
  if (root === 'BINARY' || root === 'VARBINARY' || root === 'BYTES') return c.binary;
  if (root === 'TIME') return c.time;
  return true;
}

const KEY_TYPES: readonly Omit<ColumnType, 'nullable'>[] = [{ root: 'INT' }, { root: 'BIGINT' }, { root: 'VARCHAR', length: 12 }, { root: 'STRING' }];
const PARTITION_TYPES: readonly Omit<ColumnType, 'nullable'>[] = [
  { root: 'STRING' }, { root: 'STRING' }, { root: 'VARCHAR', length: 8 }, { root: 'INT' }, { root: 'BIGINT' }, { root: 'DATE' }, { root: 'BOOLEAN' }, { root: 'TINYINT' },
];
const BUCKET_KEY_ROOTS: readonly TypeRoot[] = ['INT', 'BIGINT', 'STRING', 'VARCHAR'];

function typeOf(r: Random, root: TypeRoot, c: Carriage): Omit<ColumnType, 'nullable'> {
  switch (root) {
    case 'DECIMAL': {
      const precision = r.pick([1, 9, 10, 18, 19, 38, r.int(1, 38)]);
      const maxScale = Math.min(precision, c.decimalScale);
      return { root, precision, scale: r.pick([0, maxScale, r.int(0, maxScale)]) };
    }
    case 'CHAR':
      return { root, length: r.int(1, 10) };
    case 'VARCHAR':
      return { root, length: r.int(1, 40) };
    case 'BINARY':
      return { root, length: r.int(1, 8) };
    case 'VARBINARY':
      return { root, length: r.int(1, 16) };
    case 'TIME':
      return { root, precision: r.int(0, 3) };
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return { root, precision: r.int(0, 9) };
    default:
      return { root };
  }
}

/**
 * Facts about a case that help to triage a failure (none is a verdict): partition values Paimon
 * maps to one directory, keys in more than one shard, sequence ties, and the column types a source
 * is known to handle specially.
 */
export function caseFeatures(c: Case): string[] {
  const features: string[] = [];
  const rows = c.shards.flat();
  const indexOf = (name: string) => c.columns.findIndex((col) => col.name === name);
  for (const p of c.partitionKeys) {
    const values = new Set(rows.map((r) => r[indexOf(p)]));
    const blanks = [...values].filter((v) => v === null || (typeof v === 'string' && v.trim() === '')).length;
    if (blanks > 1) features.push(`${blanks} partition values of ${p} that Paimon names __DEFAULT_PARTITION__`);
  }
  if (c.primaryKeys.length > 0) {
    const keyIndices = c.primaryKeys.map(indexOf);
    const shardsOf = new Map<string, Set<number>>();
    c.shards.forEach((shard, s) => shard.forEach((r) => {
      const key = JSON.stringify(keyIndices.map((i) => String(r[i])));
      shardsOf.set(key, (shardsOf.get(key) ?? new Set()).add(s));
    }));
    const shared = [...shardsOf.values()].filter((s) => s.size > 1).length;
    if (shared > 0) features.push(`${shared} keys in more than one shard`);
  }
  const roots = new Set(c.columns.map((col) => col.type.root));
  for (const root of ['FLOAT', 'DOUBLE', 'TIMESTAMP', 'TIMESTAMP_LTZ', 'DECIMAL', 'BIGINT'] as const) if (roots.has(root)) features.push(`${root} columns`);
  if (c.format === 'csv' && c.plan.lineEnd === '\n') features.push('CSV with LF line ends');
  return features;
}
