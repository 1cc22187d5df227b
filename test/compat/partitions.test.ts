// Partition directories across implementations: values that need escaping ('/', '=', '%', ':',
// spaces, 4-byte UTF-8), empty strings and nulls (both `__DEFAULT_PARTITION__`), and partition keys
// of many types, with Paimon's legacy names (the default: DATE as epoch days) and with
// `partition.legacy-name = false` (ISO dates). Tributary writes them for Java and pypaimon to read;
// Java and pypaimon write them for Tributary to read.
import { describe, test } from 'node:test';
import { LocalObjectStore, createTable, openTable } from '@tributary/table';
import { paimonJava, pypaimon, readResults, type Oracle, type OracleOp, type OracleRow, type TableDefinition } from '@tributary/testkit';
import { ExpectedTable, assertRows, timestamp, tributaryCommit, warehouses, type Operation } from './cases.ts';

const warehouse = warehouses('partitions');
const database = 'compat';

const escaped: TableDefinition = {
  fields: [{ name: 'id', type: 'INT' }, { name: 'p_str', type: 'STRING' }, { name: 'p_int', type: 'INT' }, { name: 's', type: 'STRING' }],
  partitionKeys: ['p_str', 'p_int'],
};
const oddStrings = ['a/b', 'x=y', 'with space', '100%', 'ü😀', '', null, 'c:#?*', '__DEFAULT_PARTITION__x'];
const oddInts = [-1, 0, null, 2147483647];
const escapedRows = (tag: string, offset: number): OracleRow[] =>
  oddStrings.map((p, i) => [offset + i, p, oddInts[i % oddInts.length]!, `${tag} ${String(p)}`]);

const typedFields = [
  { name: 'id', type: 'INT' },
  { name: 'dt', type: 'DATE' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'big', type: 'BIGINT' },
  { name: 'dec', type: 'DECIMAL(10, 2)' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
  { name: 'ltz', type: 'TIMESTAMP(6) WITH LOCAL TIME ZONE' },
  { name: 's', type: 'STRING' },
];
const typedRows = (tag: string, offset: number): OracleRow[] => [
  [offset, 19723, true, -9223372036854775808n, -12345n, timestamp(-1_000_000n, 3), timestamp(-1_000n, 6), `${tag} a`],
  [offset + 1, -1, false, 0n, 0n, timestamp(1_704_067_200_123_000_000n, 3), timestamp(1_704_067_200_123_456_000n, 6), `${tag} b`],
  [offset + 2, -719162, null, 9223372036854775807n, 9999999999n, timestamp(0n, 3), timestamp(0n, 6), `${tag} c`],
  [offset + 3, null, true, null, null, null, null, `${tag} d`],
];
const typedLegacy: TableDefinition = { fields: typedFields, partitionKeys: ['dt', 'flag', 'big', 'dec', 'ts', 'ltz'] };
const typedIso: TableDefinition = {
  fields: typedFields,
  partitionKeys: ['dt', 'big'],
  primaryKeys: ['id', 'dt', 'big'],
  options: { bucket: '2', 'partition.legacy-name': 'false' },
};

// Floating-point, decimal and time partition values, whose directory names are Java's toString():
// '1.0E7', '1.0E-4', '-0.0', 'NaN', '4.9E-324', plain decimals, TIME as milliseconds.
const numericFields = [
  { name: 'id', type: 'INT' },
  { name: 'f', type: 'FLOAT' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'dec', type: 'DECIMAL(20, 5)' },
  { name: 't', type: 'TIME(3)' },
  { name: 'ts', type: 'TIMESTAMP(6)' },
  { name: 's', type: 'STRING' },
];
const floats = [1e7, 0.001, 1e-4, -0, 0, Number.NaN, Number.NEGATIVE_INFINITY, 123456.7, 3.4028234663852886e38, 1.401298464324817e-45].map(Math.fround);
const doubles = [0.30000000000000004, 1e21, 1e-7, 100, 5e-324, -0, Number.NaN, Number.POSITIVE_INFINITY, 1234567, 12345678.9];
const decimals = [-1n, 0n, 10n ** 19n, -(10n ** 20n) + 1n, 12345n];
const times = [0, 1, 86_399_999, 45_296_789];
const stamps = [timestamp(-1n, 6), timestamp(1_700_000_000_123_456_000n, 6), timestamp(0n, 6), timestamp(-62_135_596_800_000_000_000n, 6)];
const numericRows = (tag: string, offset: number): OracleRow[] =>
  floats.map((f, i) => [offset + i, f, doubles[i]!, decimals[i % decimals.length]!, times[i % times.length]!, stamps[i % stamps.length]!, `${tag} ${i}`]);
const finite = (r: OracleRow) => Number.isFinite(r[1]) && Number.isFinite(r[2]);
const numericLegacy: TableDefinition = { fields: numericFields, partitionKeys: ['f', 'd', 'dec', 't', 'ts'] };
const numericIso: TableDefinition = { ...numericLegacy, options: { 'partition.legacy-name': 'false' } };

interface Case {
  readonly name: string;
  readonly definition: TableDefinition;
  readonly operations: readonly Operation[];
  /** False where pypaimon names the directories differently from Java (see its todo test). */
  readonly pypaimon?: false;
}

const cases: readonly Case[] = [
  {
    name: 'numeric_legacy',
    definition: numericLegacy,
    operations: [{ type: 'write', rows: numericRows('first', 0).filter(finite) }, { type: 'write', rows: numericRows('second', 100).slice(0, 4) }],
  },
  {
    name: 'numeric_iso',
    definition: numericIso,
    operations: [{ type: 'write', rows: numericRows('first', 0).filter(finite) }, { type: 'write', rows: numericRows('second', 100).slice(0, 4) }],
  },
  {
    name: 'non_finite',
    definition: numericLegacy,
    operations: [{ type: 'write', rows: numericRows('first', 0).filter((r) => !finite(r)) }, { type: 'write', rows: numericRows('second', 100).slice(0, 4) }],
    pypaimon: false,
  },
  {
    name: 'escaped',
    definition: escaped,
    operations: [{ type: 'write', rows: escapedRows('first', 0) }, { type: 'write', rows: escapedRows('second', 100) }],
  },
  {
    name: 'typed_legacy',
    definition: typedLegacy,
    operations: [{ type: 'write', rows: typedRows('first', 0) }, { type: 'write', rows: typedRows('second', 10) }],
  },
  {
    name: 'typed_iso_pk',
    definition: typedIso,
    operations: [
      // Primary-key fields are NOT NULL: the rows without null partition values.
      { type: 'write', rows: typedRows('first', 0).slice(0, 3) },
      { type: 'write', rows: [...typedRows('updated', 0).slice(0, 2), ...typedRows('second', 10).slice(0, 3)] },
    ],
  },
];

function expectedOf(c: Case): ExpectedTable {
  const expected = new ExpectedTable(c.definition);
  c.operations.forEach((operation) => expected.apply(operation));
  return expected;
}

function oracleReads(dir: string, chosen: readonly Case[]): OracleOp[] {
  return chosen.flatMap((c) => [
    { op: 'read' as const, warehouse: dir, database, table: c.name },
    { op: 'read' as const, warehouse: dir, database, table: c.name, snapshotId: 1 },
  ]);
}

function oracleWrites(dir: string, chosen: readonly Case[]): OracleOp[] {
  return chosen.flatMap((c) => {
    const ref = { warehouse: dir, database, table: c.name };
    return [
      { op: 'create' as const, ...ref, ...c.definition },
      ...c.operations.map((o) => ({ op: 'write' as const, ...ref, rows: o.rows })),
    ];
  });
}

function checkOracleReads(reader: string, chosen: readonly Case[], results: ReturnType<typeof readResults>): void {
  chosen.forEach((c, i) => {
    const expected = expectedOf(c);
    assertRows(results[2 * i]!.rows, expected.rows, `${reader} reads ${c.name}: latest`);
    assertRows(results[2 * i + 1]!.rows, expected.snapshots[0]!, `${reader} reads ${c.name}: snapshot 1`);
  });
}

async function checkTributaryReads(writer: string, dir: string, chosen: readonly Case[]): Promise<void> {
  for (const c of chosen) {
    const table = await openTable(new LocalObjectStore(dir), database, c.name);
    const expected = expectedOf(c);
    assertRows((await table.newRead().toArray()) as OracleRow[], expected.rows, `Tributary reads ${c.name} by ${writer}: latest`);
    const first = (await table.newRead({ snapshotId: 1 }).toArray()) as OracleRow[];
    assertRows(first, expected.snapshots[0]!, `Tributary reads ${c.name} by ${writer}: snapshot 1`);
  }
}

/** The oracle reads Tributary's tables and writes its own in one call (one JVM start for Java). */
async function exchange(oracle: Oracle, ours: string, chosen: readonly Case[]): Promise<void> {
  const theirs = await warehouse();
  const results = await oracle.batch([...oracleReads(ours, chosen), ...oracleWrites(theirs, chosen)]);
  checkOracleReads(oracle.name, chosen, readResults(results));
  await checkTributaryReads(oracle.name, theirs, chosen);
}

describe('partition directories', { concurrency: true }, async () => {
  const ours = await warehouse();
  const store = new LocalObjectStore(ours);
  for (const c of cases) {
    const table = await createTable(store, { database, name: c.name, schema: c.definition });
    for (const operation of c.operations) await tributaryCommit(table, operation);
  }

  test('Paimon Java reads Tributary\'s partitions and Tributary reads Java\'s', async () => {
    await exchange(paimonJava, ours, cases);
  });

  test('pypaimon reads Tributary\'s partitions and Tributary reads pypaimon\'s', async () => {
    await exchange(pypaimon, ours, cases.filter((c) => c.pypaimon !== false));
  });

  test(
    'pypaimon reads partitions named by NaN and infinite floats',
    { todo: "pypaimon 2.1.0 names them by Python's str() ('nan', '-inf'), Java by Float/Double.toString ('NaN', '-Infinity')" },
    async () => {
      await exchange(pypaimon, ours, cases.filter((c) => c.pypaimon === false));
    },
  );
});
