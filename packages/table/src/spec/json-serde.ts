/**
 * JSON as Paimon writes and reads it for schema and snapshot files. Mirrors
 * org.apache.paimon.utils.JsonSerdeUtil: Jackson's `writerWithDefaultPrettyPrinter()` on the way out
 * and a lenient reader (unknown properties ignored) on the way in.
 *
 * Two things plain JSON.stringify / JSON.parse get wrong for these files:
 * - 64-bit longs (commitIdentifier = Long.MAX_VALUE, watermark = Long.MIN_VALUE) lose precision
 *   as JS numbers. The parser keeps every integer literal outside the safe range as a bigint,
 *   reading the literal's source text (JSON.parse reviver `context.source`, Node 22+).
 * - Jackson's pretty printer layout: `"key" : value`, objects one entry per line indented by two
 *   spaces, arrays inline as `[ a, b ]`, empty ones as `[ ]` and `{ }`, no trailing newline.
 *
 * Objects to write are Maps so that key order is exactly the insertion order (a plain object
 * would move integer-like keys first).
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors, type TableErrorCode } from '../errors.ts';

export type JsonNode = string | number | bigint | boolean | null | readonly JsonNode[] | ReadonlyMap<string, JsonNode>;

/** A parsed JSON value: integers outside ±2^53 are bigints, objects are plain records. */
export type JsonValue = string | number | bigint | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// ---------------------------------------------------------------------------------------------
// Writing (Jackson DefaultPrettyPrinter)
// ---------------------------------------------------------------------------------------------

/** Jackson's string escaping: `"`, `\` and control characters; everything else verbatim. */
function jacksonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return out + '"';
}

function writeNode(node: JsonNode, nesting: number): string {
  if (node === null) return 'null';
  switch (typeof node) {
    case 'string':
      return jacksonString(node);
    case 'boolean':
      return node ? 'true' : 'false';
    case 'bigint':
      return node.toString();
    case 'number':
      if (!Number.isFinite(node)) throw new RangeError(`cannot write ${node} as JSON`);
      return String(node);
    default:
      break;
  }
  if (node instanceof Map) {
    if (node.size === 0) return '{ }';
    const inner = '\n' + '  '.repeat(nesting + 1);
    const entries = [...node].map(([k, v]) => `${jacksonString(k)} : ${writeNode(v, nesting + 1)}`);
    return '{' + inner + entries.join(',' + inner) + '\n' + '  '.repeat(nesting) + '}';
  }
  const items = node as readonly JsonNode[];
  // Jackson indents arrays inline (FixedSpaceIndenter): they do not add a nesting level.
  return items.length === 0 ? '[ ]' : '[ ' + items.map((v) => writeNode(v, nesting)).join(', ') + ' ]';
}

/** JsonSerdeUtil.toJson: the pretty-printed text Java writes (no trailing newline). */
export function toJacksonPrettyJson(node: JsonNode): string {
  return writeNode(node, 0);
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

const exactIntegers: Reviver = (_key, value, context) => {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined) {
    if (/^-?\d+$/.test(context.source)) return BigInt(context.source);
  }
  return value;
};

/** Parses JSON keeping big integers exact; a syntax error becomes the given typed error. */
export function parseJsonExact(text: string, code: TableErrorCode, what: string): JsonValue {
  try {
    return JSON.parse(text, exactIntegers as (key: string, value: unknown) => unknown) as JsonValue;
  } catch (cause) {
    throw errorFrom(tableErrors, code, `${what} is not valid JSON: ${(cause as Error).message}`, {}, { cause });
  }
}

/**
 * Typed access to the fields of one parsed JSON object, failing with one error code and a message
 * naming the field. Mirrors how Jackson / SchemaSerializer dereference required fields.
 */
export class JsonObjectReader {
  private readonly obj: { readonly [key: string]: JsonValue };
  private readonly code: TableErrorCode;
  private readonly what: string;

  constructor(value: JsonValue, code: TableErrorCode, what: string) {
    this.code = code;
    this.what = what;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw this.fail(`${what} is not a JSON object`);
    this.obj = value;
  }

  fail(message: string): Error {
    return errorFrom(tableErrors, this.code, message, { what: this.what });
  }

  has(key: string): boolean {
    return Object.hasOwn(this.obj, key) && this.obj[key] !== null;
  }

  raw(key: string): JsonValue | undefined {
    return Object.hasOwn(this.obj, key) ? this.obj[key] : undefined;
  }

  private required(key: string): JsonValue {
    const v = this.raw(key);
    if (v === undefined || v === null) throw this.fail(`${this.what}: required field '${key}' is missing`);
    return v;
  }

  string(key: string): string {
    const v = this.required(key);
    if (typeof v !== 'string') throw this.fail(`${this.what}: '${key}' must be a string`);
    return v;
  }

  optionalString(key: string): string | undefined {
    return this.has(key) ? this.string(key) : undefined;
  }

  /** A Java long: any integer literal, returned exactly as a bigint. */
  long(key: string): bigint {
    const v = this.required(key);
    if (typeof v === 'bigint') {
      if (v < -(1n << 63n) || v >= 1n << 63n) throw this.fail(`${this.what}: '${key}' is out of the long range`);
      return v;
    }
    if (typeof v !== 'number' || !Number.isInteger(v)) throw this.fail(`${this.what}: '${key}' must be an integer`);
    return BigInt(v);
  }

  optionalLong(key: string): bigint | undefined {
    return this.has(key) ? this.long(key) : undefined;
  }

  /** A Java int. */
  int(key: string): number {
    const v = this.required(key);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
      throw this.fail(`${this.what}: '${key}' must be a 32-bit integer`);
    }
    return v;
  }

  array(key: string): JsonValue[] {
    const v = this.required(key);
    if (!Array.isArray(v)) throw this.fail(`${this.what}: '${key}' must be an array`);
    return v;
  }

  stringArray(key: string): string[] {
    return this.array(key).map((item) => {
      if (typeof item !== 'string') throw this.fail(`${this.what}: '${key}' must hold only strings`);
      return item;
    });
  }

  /** A map<string, string>; Jackson's asText() also accepts numbers and booleans as values. */
  stringMap(key: string): Map<string, string> {
    const v = this.required(key);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw this.fail(`${this.what}: '${key}' must be an object`);
    const out = new Map<string, string>();
    for (const [k, item] of Object.entries(v)) {
      if (typeof item === 'string') out.set(k, item);
      else if (typeof item === 'number' || typeof item === 'bigint' || typeof item === 'boolean') out.set(k, String(item));
      else throw this.fail(`${this.what}: '${key}.${k}' must be a string`);
    }
    return out;
  }
}
