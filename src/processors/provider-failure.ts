import { ProcessorError } from './processor.ts';

// The shape of the Intercom client's ProviderError, which this layer may not import.
interface ProviderFailure {
  readonly kind?: unknown;
  readonly retryAfterMs?: unknown;
}

/** Refusals no retry changes: the target is gone at the provider, the request or our token is wrong. */
const PERMANENT = new Set(['not_found', 'invalid', 'unauthorized']);

/**
 * How a failed provider call of a processor is retried: a refusal is dead-lettered at once, a rate limit or
 * an open breaker waits as long as the client says, anything else takes the runner's backoff. The message
 * stays the client's (route and status, never what was sent), after `what` failed.
 */
export function providerFailure(what: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { kind, retryAfterMs } = error as ProviderFailure;
  const permanent = typeof kind === 'string' && PERMANENT.has(kind);
  const wait = typeof retryAfterMs === 'number' && retryAfterMs > 0 ? retryAfterMs : undefined;
  if (!permanent && wait === undefined) return error;
  return new ProcessorError(`${what}: ${error.message}`, {
    permanent,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
    cause: error,
  });
}
