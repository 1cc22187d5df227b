/**
 * Waits at start for a service the process needs (Redis, S3): tries, and on failure prints one
 * line, waits (250 ms, doubling up to 5 s, never past the deadline) and tries again; gives up once
 * `timeoutMs` has passed. Clock and sleep are injected so the schedule is unit-tested.
 */
export const FIRST_DELAY_MS = 250;
export const MAX_DELAY_MS = 5000;

export interface WaitForOptions {
  /** What is being reached, for the lines: `Redis at 127.0.0.1:6390`. */
  readonly what: string;
  /** One try; rejects with the reason the service cannot be used. */
  readonly attempt: () => Promise<void>;
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export class UnreachableError extends Error {
  constructor(what: string, attempts: number, timeoutMs: number, reason: string) {
    super(`${what} unreachable after ${attempts} attempts in ${timeoutMs} ms (startupTimeoutMs): ${reason}`);
    this.name = 'UnreachableError';
  }
}

export function nextDelay(previous: number | undefined): number {
  return previous === undefined ? FIRST_DELAY_MS : Math.min(previous * 2, MAX_DELAY_MS);
}

export async function waitFor(options: WaitForOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + options.timeoutMs;
  let delay: number | undefined;
  for (let attempt = 1; ; attempt++) {
    let reason: string;
    try {
      await options.attempt();
      if (attempt > 1) options.log(`${options.what} reachable (attempt ${attempt})`);
      return;
    } catch (error) {
      reason = describe(error);
    }
    const left = deadline - now();
    if (left <= 0) throw new UnreachableError(options.what, attempt, options.timeoutMs, reason);
    delay = Math.min(nextDelay(delay), left);
    options.log(`${options.what} unreachable (attempt ${attempt}): ${reason}; retrying in ${delay} ms`);
    await sleep(delay);
  }
}

/** The error's code and first line: no stack, and an AggregateError (several addresses) named by its first cause. */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const first = (error.message.split('\n')[0] ?? '').trim();
  if (code !== undefined && first.includes(code)) return first;
  return [code, first === '' ? error.name : first].filter((s) => s !== undefined).join(' ');
}
