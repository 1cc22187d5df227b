/**
 * The REST client of the `sync`, `table` and `schedule` commands: JSON in, JSON out, a bearer token
 * when configured. An error answer (problem+json) becomes an ApiError with its stable code; an
 * unreachable coordinator one with the network's reason.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

export interface Api {
  readonly baseUrl: string;
  request<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
}

export function apiClient(baseUrl: string, token: string | undefined): Api {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    baseUrl: base,
    async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: {
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new ApiError(0, 'COORDINATOR_UNREACHABLE', `cannot reach the coordinator at ${base}: ${cause?.code ?? cause?.message ?? String(error)}`);
      }
      const text = await response.text();
      let json: unknown = null;
      if (text !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
      }
      if (!response.ok) {
        const problem = (json ?? {}) as { code?: string; detail?: string; title?: string };
        const code = problem.code ?? `HTTP_${response.status}`;
        const detail = problem.detail ?? problem.title ?? response.statusText;
        throw new ApiError(response.status, code, `${method} ${path}: ${response.status} ${code}: ${detail}`);
      }
      return json as T;
    },
  };
}

/** Every item of a paged listing (`{<key>: […], nextCursor}`), following the cursors; `first` is the first page. */
export async function allPages<T = unknown>(api: Api, path: string, key: string): Promise<{ items: T[]; first: Record<string, unknown> }> {
  const items: T[] = [];
  let first: Record<string, unknown> | undefined;
  for (let cursor: string | null | undefined; cursor !== null; ) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await api.request<Record<string, unknown>>('GET', cursor === undefined ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`);
    first ??= page;
    items.push(...((page[key] ?? []) as T[]));
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : null;
  }
  return { items, first: first ?? {} };
}
