/**
 * Avro schemas (https://avro.apache.org/docs/1.11.1/specification/) given as JSON, resolved into
 * `AvroNode` trees, and the JS shape of Avro values; avro-decoder.ts and avro-encoder.ts hold the
 * binary codec. Only what Paimon's manifests need, but complete enough to decode any writer
 * schema Paimon Java or pypaimon puts in a file header: we always read with the writer's schema
 * and map fields by name afterwards, as Java's `AvroRowDatumReader` does.
 *
 * Values: int, float, double → number; long → bigint (64-bit without loss); string → string;
 * bytes and fixed → Uint8Array; enum → symbol string; array → array; map → Map; record → plain
 * object keyed by field name; union → the value of the branch (no wrapper). Logical types are
 * carried in the schema JSON (so they reach the file header) but do not change the values.
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

export type AvroPrimitiveName =
  | 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';

export interface AvroField {
  readonly name: string;
  readonly type: AvroSchema;
  readonly default?: unknown;
}

export type AvroSchema =
  | AvroPrimitiveName
  | string
  | readonly AvroSchema[]
  | { readonly type: AvroPrimitiveName; readonly logicalType?: string; readonly [k: string]: unknown }
  | { readonly type: 'record'; readonly name: string; readonly namespace?: string; readonly fields: readonly AvroField[] }
  | { readonly type: 'array'; readonly items: AvroSchema }
  | { readonly type: 'map'; readonly values: AvroSchema }
  | { readonly type: 'enum'; readonly name: string; readonly namespace?: string; readonly symbols: readonly string[] }
  | { readonly type: 'fixed'; readonly name: string; readonly namespace?: string; readonly size: number };

export type AvroValue =
  | null | boolean | number | bigint | string | Uint8Array
  | readonly AvroValue[] | ReadonlyMap<string, AvroValue> | AvroRecord | EncodedDatum;

/**
 * A record datum already encoded with `node` (avro-encoder `encodeDatums`): the encoder copies its
 * bytes where a datum of that very node is expected, which is what it would have written for the
 * value (Avro's binary encoding of a record is its fields' encodings, unframed), and refuses it
 * anywhere else. Lets a caller encode records ahead, out of the time a file is written in.
 */
export class EncodedDatum {
  readonly node: AvroNode;
  readonly bytes: Uint8Array;
  constructor(node: AvroNode, bytes: Uint8Array) {
    this.node = node;
    this.bytes = bytes;
  }
}

export interface AvroRecord {
  readonly [field: string]: AvroValue;
}

/** A schema resolved into a tree (named references replaced by their definitions). */
export type AvroNode =
  | { readonly kind: AvroPrimitiveName }
  | { readonly kind: 'record'; readonly name: string; fields: { readonly name: string; readonly node: AvroNode }[] }
  | { readonly kind: 'array'; readonly items: AvroNode }
  | { readonly kind: 'map'; readonly values: AvroNode }
  | { readonly kind: 'union'; readonly branches: readonly AvroNode[] }
  | { readonly kind: 'enum'; readonly symbols: readonly string[] }
  | { readonly kind: 'fixed'; readonly size: number };

const PRIMITIVES: ReadonlySet<string> = new Set([
  'null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string',
]);

function invalidSchema(message: string): Error {
  return errorFrom(tableErrors, 'AVRO_SCHEMA_INVALID', message);
}

function fullName(name: string, namespace: string | undefined): string {
  return name.includes('.') || namespace === undefined || namespace === '' ? name : `${namespace}.${name}`;
}

/** Resolves a schema (as parsed from JSON, so typed `unknown`) into an `AvroNode` tree. */
export function compileSchema(schema: unknown): AvroNode {
  return compile(schema, new Map(), undefined);
}

function compile(schema: unknown, named: Map<string, AvroNode>, namespace: string | undefined): AvroNode {
  if (typeof schema === 'string') {
    if (PRIMITIVES.has(schema)) return { kind: schema as AvroPrimitiveName };
    const found = named.get(fullName(schema, namespace)) ?? named.get(schema);
    if (found === undefined) throw invalidSchema(`unknown Avro type name "${schema}"`);
    return found;
  }
  if (Array.isArray(schema)) {
    return { kind: 'union', branches: schema.map((b: unknown) => compile(b, named, namespace)) };
  }
  if (typeof schema !== 'object' || schema === null) throw invalidSchema('Avro schema must be a string, array or object');
  const obj = schema as Record<string, unknown>;
  const type = obj['type'];
  const ns = typeof obj['namespace'] === 'string' ? obj['namespace'] : namespace;
  switch (type) {
    case 'record':
    case 'error':
      return compileRecord(obj, named, ns);
    case 'array':
      return { kind: 'array', items: compile(obj['items'], named, namespace) };
    case 'map':
      return { kind: 'map', values: compile(obj['values'], named, namespace) };
    case 'enum': {
      const symbols = obj['symbols'];
      if (!Array.isArray(symbols) || !symbols.every((s) => typeof s === 'string')) throw invalidSchema('enum without symbols');
      return define(named, obj, ns, { kind: 'enum', symbols });
    }
    case 'fixed': {
      const size = obj['size'];
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidSchema('fixed without a size');
      return define(named, obj, ns, { kind: 'fixed', size });
    }
    default:
      // A primitive or a named reference in object form ({"type": "long", "logicalType": ...}).
      return compile(type, named, namespace);
  }
}

function define(named: Map<string, AvroNode>, obj: Record<string, unknown>, ns: string | undefined, node: AvroNode): AvroNode {
  const name = obj['name'];
  if (typeof name !== 'string') throw invalidSchema('named Avro type without a name');
  named.set(fullName(name, ns), node);
  return node;
}

function compileRecord(obj: Record<string, unknown>, named: Map<string, AvroNode>, ns: string | undefined): AvroNode {
  const fields = obj['fields'];
  if (!Array.isArray(fields)) throw invalidSchema('record without fields');
  const node: AvroNode & { kind: 'record' } = { kind: 'record', name: String(obj['name']), fields: [] };
  // Registered before its fields so that a recursive reference resolves.
  define(named, obj, ns, node);
  for (const field of fields as unknown[]) {
    if (typeof field !== 'object' || field === null) throw invalidSchema('record field must be an object');
    const f = field as Record<string, unknown>;
    if (typeof f['name'] !== 'string') throw invalidSchema('record field without a name');
    node.fields.push({ name: f['name'], node: compile(f['type'], named, ns) });
  }
  return node;
}

export function isRecord(value: AvroValue | undefined): value is AvroRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && !(value instanceof Uint8Array) && !(value instanceof Map) && !(value instanceof EncodedDatum);
}
