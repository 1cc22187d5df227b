/**
 * JSON for golden-vector inputs. JSON has no exact 64-bit integers and no bytes, so they are
 * written as `{"$int64": "<decimal>"}` and `{"$hex": "<hex>"}`; everything else is plain JSON.
 */
export function toVectorJson(value: unknown): string {
  return `${JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'bigint') return { $int64: v.toString() };
      if (v instanceof Uint8Array) return { $hex: Buffer.from(v).toString('hex') };
      return v;
    },
    2,
  )}\n`;
}

export function fromVectorJson(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const tagged = v as Record<string, unknown>;
      const keys = Object.keys(tagged);
      if (keys.length === 1 && typeof tagged['$int64'] === 'string') return BigInt(tagged['$int64']);
      if (keys.length === 1 && typeof tagged['$hex'] === 'string') return Uint8Array.from(Buffer.from(tagged['$hex'], 'hex'));
    }
    return v;
  });
}
