/**
 * Readiness of a coordinator or a worker: each dependency (Redis, the object store) is probed with
 * a deadline; ready only if every probe answered. The answer names each dependency and, for one
 * that is down, why (an error code or message: an address at most, never a credential).
 */
export type ReadinessProbe = () => Promise<void>;

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, { readonly ok: boolean; readonly error?: string }>;
}

export const READINESS_TIMEOUT_MS = 2000;

export async function checkReadiness(probes: Readonly<Record<string, ReadinessProbe>>, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((name) => withDeadline(probes[name] as ReadinessProbe, timeoutMs)));
  const checks: Record<string, { ok: boolean; error?: string }> = {};
  names.forEach((name, i) => (checks[name] = results[i] as { ok: boolean; error?: string }));
  return { ready: results.every((r) => r.ok), checks };
}

async function withDeadline(probe: ReadinessProbe, timeoutMs: number): Promise<{ ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), deadline]);
    return { ok: true };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ok: false, error: typeof code === 'string' ? `${code}: ${errorMessage(error)}` : errorMessage(error) };
  } finally {
    clearTimeout(timer);
  }
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}
