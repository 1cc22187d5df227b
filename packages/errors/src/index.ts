/**
 * Tributary's typed errors, shared by every package without pulling in anything else.
 *
 * Every error that crosses a package or a process boundary is a `TributaryError` with a stable
 * `code` (SCREAMING_SNAKE_CASE), a `retryable` flag and a plain-data `context`. Code branches on
 * `code`, never on the message or on `instanceof` (an error that travelled through BullMQ or
 * HTTP is plain data again, see `toErrorData`).
 *
 * Each package declares its own codes in one catalogue (`defineErrorCatalogue`, in its
 * `src/errors.ts`); docs/errors.md lists them all, and a test keeps the two in step.
 */

export interface ErrorSpec {
  /** May the same operation succeed if tried again unchanged (a lost connection, a lock)? */
  readonly retryable: boolean;
  /** One line for docs/errors.md: what went wrong and what the user can do. */
  readonly summary: string;
}

export type ErrorCatalogue<Code extends string> = Readonly<Record<Code, ErrorSpec>>;

/** Declares a package's error codes; the identity function, kept for the type it infers. */
export function defineErrorCatalogue<Code extends string>(
  catalogue: ErrorCatalogue<Code>,
): ErrorCatalogue<Code> {
  return catalogue;
}

export type ErrorContext = Readonly<Record<string, string | number | boolean | bigint | null | undefined>>;

export class TributaryError<Code extends string = string> extends Error {
  override readonly name = 'TributaryError';
  readonly code: Code;
  readonly retryable: boolean;
  readonly context: ErrorContext;

  constructor(
    code: Code,
    spec: ErrorSpec,
    message: string,
    context: ErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.retryable = spec.retryable;
    this.context = context;
  }
}

/** Builds a typed error from a catalogue entry. */
export function errorFrom<Code extends string>(
  catalogue: ErrorCatalogue<Code>,
  code: Code,
  message: string,
  context?: ErrorContext,
  options?: { cause?: unknown },
): TributaryError<Code> {
  return new TributaryError(code, catalogue[code], message, context, options);
}

/** The plain-data form of an error, as it travels in job results, blobs and HTTP bodies. */
export interface ErrorData {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly context: Readonly<Record<string, string | number | boolean | null>>;
}

export function toErrorData(error: unknown): ErrorData {
  if (error instanceof TributaryError) {
    const context: Record<string, string | number | boolean | null> = {};
    for (const [k, v] of Object.entries(error.context)) {
      if (v === undefined) continue;
      context[k] = typeof v === 'bigint' ? v.toString() : v;
    }
    return { code: error.code, message: error.message, retryable: error.retryable, context };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message, retryable: false, context: {} };
}

export function isTributaryError(error: unknown): error is TributaryError {
  return error instanceof TributaryError;
}
