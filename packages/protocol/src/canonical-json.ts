/**
 * JSON with object keys sorted at every level: the same text for the same value whatever its key
 * order, so that a plan read back from Redis hashes the same and a blob's bytes are a function of
 * its content.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
