/**
 * The deterministic orders generator: for the demo, the benchmarks and the sync tests.
 *
 * Shard i of N yields order ids i·rowsPerShard+1 … (i+1)·rowsPerShard, so shards are disjoint and
 * together give exactly ids 1 … N·rowsPerShard. Every value of a row is a function of (seed, order
 * id) only, so a shard resumed at any position, or retried, yields the same rows, and a test can
 * compute the expected rows without storing them (`generatorRow`).
 */
import { errorFrom } from '@tributary/protocol';
import { sourceErrors } from '../errors.ts';
import { parseDataTypeString } from '@tributary/table';
import type { PlanContext, PlannedSourceShard, Source, SourceBatch, SourceColumn, SourcePosition, SourceRow, SourceSchema } from '../source.ts';
import { typeIncompatibility } from '../values/fits.ts';
import { GeneratorSourceSpec, planGeneratorShards, type GeneratorShard } from './spec.ts';

export const GENERATOR_COLUMNS: readonly SourceColumn[] = [
  { name: 'order_id', sourceType: 'bigint' },
  { name: 'customer_id', sourceType: 'int' },
  { name: 'store_id', sourceType: 'int' },
  { name: 'amount', sourceType: 'decimal(12,2) as string' },
  { name: 'status', sourceType: 'string' },
  { name: 'order_date', sourceType: 'date as YYYY-MM-DD' },
  { name: 'created_at', sourceType: 'timestamp(3) as Date' },
];

/**
 * The table the generator's rows fit exactly, as `POST /v1/tables` takes its columns: the orders
 * table of the demo, the sync benchmark and the sync tests.
 */
export const GENERATOR_TABLE_COLUMNS: readonly { readonly name: string; readonly type: string }[] = [
  { name: 'order_id', type: 'BIGINT NOT NULL' },
  { name: 'customer_id', type: 'INT NOT NULL' },
  { name: 'store_id', type: 'INT NOT NULL' },
  { name: 'amount', type: 'DECIMAL(12, 2)' },
  { name: 'status', type: 'VARCHAR(16)' },
  { name: 'order_date', type: 'DATE' },
  { name: 'created_at', type: 'TIMESTAMP(3)' },
];

const STATUSES = ['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'] as const;
const DAY_MS = 86_400_000;
const START_MS = Date.UTC(2024, 0, 1);

/** A 32-bit avalanche of (seed, id, lane): murmur3's fmix32 over a simple combination. */
function mix(seed: number, id: number, lane: number): number {
  let h = (seed ^ Math.imul(id, 0x9e3779b1) ^ Math.imul(lane + 1, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The row with this order id (1-based), in GENERATOR_COLUMNS order. */
export function generatorRow(seed: number, orderId: number): SourceRow {
  const cents = mix(seed, orderId, 2) % 1_000_000;
  const createdMs = START_MS + (mix(seed, orderId, 4) % (365 * DAY_MS / 1000)) * 1000 + (orderId % 1000);
  return [
    BigInt(orderId),
    1 + (mix(seed, orderId, 0) % 100_000),
    1 + (mix(seed, orderId, 1) % 64),
    `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    STATUSES[mix(seed, orderId, 3) % STATUSES.length] ?? 'NEW',
    new Date(createdMs - (createdMs % DAY_MS)).toISOString().slice(0, 10),
    new Date(createdMs),
  ];
}

export class GeneratorSource implements Source {
  readonly kind = 'generator';
  readonly #spec: GeneratorSourceSpec;

  constructor(spec: unknown) {
    const parsed = GeneratorSourceSpec.safeParse(spec);
    if (!parsed.success) {
      throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `generator source: ${parsed.error.message}`);
    }
    this.#spec = parsed.data;
  }

  columns(): Promise<readonly SourceColumn[]> {
    return Promise.resolve(GENERATOR_COLUMNS);
  }

  /** The generator reads nothing: nothing to refuse. */
  check(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Computed from the options alone (the shard count was checked against the limit from the spec),
   * after checking the table's columns against the generator's (`checkGeneratorTarget`); a caller
   * that plans without a table (a benchmark writing shards itself) gives no context.
   */
  plan(ctx?: PlanContext): Promise<readonly PlannedSourceShard[]> {
    if (ctx !== undefined) checkGeneratorTarget(ctx);
    return Promise.resolve(planGeneratorShards(this.#spec).map(({ id, spec }) => ({ id, spec: { ...spec } })));
  }

  /** The orders table, keyed by `order_id`; its size estimated at GENERATOR_ROW_BYTES a row. */
  schema(): Promise<SourceSchema> {
    const rows = this.#spec.shards * this.#spec.rowsPerShard;
    return Promise.resolve({ columns: GENERATOR_TABLE_COLUMNS, primaryKeys: ['order_id'], bytes: rows * GENERATOR_ROW_BYTES });
  }

  async *open(shard: PlannedSourceShard, from?: SourcePosition): AsyncIterable<SourceBatch> {
    const { index } = generatorShard(shard);
    const { seed, rowsPerShard, batchRows, faults } = this.#spec;
    const firstId = index * rowsPerShard + 1;
    let position = typeof from === 'number' ? from : 0;
    while (position < rowsPerShard) {
      const count = Math.min(batchRows, rowsPerShard - position);
      const rows: SourceRow[] = [];
      for (let k = 0; k < count; k++) rows.push(generatorRow(seed, firstId + position + k));
      const bad = faults?.badRow;
      if (bad !== undefined && bad.shard === index && bad.position >= position && bad.position < position + count) {
        const row = [...(rows[bad.position - position] ?? [])];
        row[3] = 'not-a-number'; // amount: cannot become a DECIMAL
        rows[bad.position - position] = row;
      }
      if (faults?.delayMsPerBatch !== undefined) await new Promise((r) => setTimeout(r, faults.delayMsPerBatch));
      yield { rows, firstRowPosition: position, end: position + count };
      position += count;
    }
  }
}

/** An estimate of what one generated row takes in a data file, for the bucket count of a table made from the generator. */
export const GENERATOR_ROW_BYTES = 64;

/**
 * Every table column must be a generator column whose type fits it (values/fits.ts), or be
 * nullable (it is then null); generator columns the table lacks are not loaded.
 */
function checkGeneratorTarget(ctx: PlanContext): void {
  for (const column of ctx.target) {
    const own = GENERATOR_TABLE_COLUMNS.find((c) => c.name === column.name);
    if (own === undefined) {
      if (!column.type.nullable) throw ctx.mismatch(column.name, `the generator has no column ${column.name}, which is NOT NULL in the table`);
      continue;
    }
    const why = typeIncompatibility(parseDataTypeString(own.type), column.type);
    if (why !== undefined) throw ctx.mismatch(column.name, `column ${column.name}: ${why}`);
  }
}

function generatorShard(shard: PlannedSourceShard): GeneratorShard {
  const { index, count } = shard.spec;
  if (typeof index !== 'number' || typeof count !== 'number' || index < 0 || index >= count) {
    throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `generator shard ${shard.id}: bad spec`, { shard: shard.id });
  }
  return { index, count };
}
