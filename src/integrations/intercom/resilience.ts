import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  handleWhen,
  retry,
} from 'cockatiel';
import type { Logger } from 'pino';
import type { Budget } from './budget.ts';
import { ProviderError, isProviderError } from './errors.ts';

export interface ResilienceOptions {
  /** Extra attempts for a read that came back `unavailable`; writes get none. */
  readonly maxRetries: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** Consecutive `unavailable` answers that open the breaker. */
  readonly breakerThreshold: number;
  /** How long the breaker stays open before one probe call may pass. */
  readonly breakerHalfOpenAfterMs: number;
  /** The longest a call waits for a 429's reset before failing as `rate_limited`. */
  readonly maxWaitMs: number;
  readonly budget: Budget;
  /** Where a 429's hold is kept for every process (Redis); this process's memory alone without. */
  readonly sharedHold?: SharedHold | undefined;
  readonly logger: Logger;
  /** The clock of a 429's hold (ms since the epoch). The breaker keeps cockatiel's own, `Date.now`. */
  readonly now: () => number;
  /** How a call waits for a 429's reset. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** The instant (ms since the epoch) until which every process holds its Intercom calls after a 429. */
export interface SharedHold {
  get(): Promise<number>;
  set(untilMs: number): Promise<void>;
}

export type CallKind = 'read' | 'write';

export interface Resilience {
  run<T>(kind: CallKind, method: string, route: string, attempt: () => Promise<T>): Promise<T>;
  readonly state: () => { breaker: 'closed' | 'open' | 'half_open'; heldUntil: number | null };
}

// Only a provider that did not answer usefully counts against the breaker; a 404 or a 409 proves it is up.
const isOutage = (error: unknown) =>
  isProviderError(error, 'unavailable') &&
  error.reason !== 'breaker_open' &&
  error.reason !== 'malformed_response';

/**
 * The policies around each Intercom call, outermost first:
 * 1. reads only: retry on `unavailable` (network, timeout, 5xx) with exponential backoff and jitter;
 *    a write is never retried, since it may have landed;
 * 2. after a 429 every call of this client, and of every process sharing `sharedHold`, waits for the
 *    reset instant (or fails at once as `rate_limited` when that is further than `maxWaitMs`);
 * 3. an open breaker fails fast, without spending budget;
 * 4. one call from the app-wide budget;
 * 5. the breaker (cockatiel `ConsecutiveBreaker`): opens after `breakerThreshold` consecutive outages,
 *    lets one probe through after `breakerHalfOpenAfterMs`, and closes when it succeeds.
 */
export function createResilience(options: ResilienceOptions): Resilience {
  const { logger } = options;
  let heldUntil = 0;
  let openUntil = 0;

  const breaker = circuitBreaker(handleWhen(isOutage), {
    halfOpenAfter: options.breakerHalfOpenAfterMs,
    breaker: new ConsecutiveBreaker(options.breakerThreshold),
  });
  breaker.onBreak(() => {
    openUntil = Date.now() + options.breakerHalfOpenAfterMs;
    logger.warn({ openForMs: options.breakerHalfOpenAfterMs }, 'intercom circuit opened');
  });
  breaker.onHalfOpen(() => {
    logger.info('intercom circuit half-open: probing');
  });
  breaker.onReset(() => {
    logger.info('intercom circuit closed');
  });

  const retryReads = retry(handleWhen(isOutage), {
    maxAttempts: options.maxRetries,
    backoff: new ExponentialBackoff({
      initialDelay: options.retryInitialDelayMs,
      maxDelay: options.retryMaxDelayMs,
    }),
  });

  const breakerOpen = (method: string, route: string) =>
    new ProviderError({
      kind: 'unavailable',
      reason: 'breaker_open',
      method,
      route,
      retryAfterMs: Math.max(openUntil - Date.now(), 0),
    });

  async function once<T>(method: string, route: string, attempt: () => Promise<T>): Promise<T> {
    if (options.sharedHold) heldUntil = Math.max(heldUntil, await options.sharedHold.get());
    const holdMs = heldUntil - options.now();
    if (holdMs > options.maxWaitMs) {
      throw new ProviderError({
        kind: 'rate_limited',
        reason: 'provider_limit',
        method,
        route,
        retryAfterMs: holdMs,
      });
    }
    if (holdMs > 0) await options.sleep(holdMs);
    if (breaker.state === CircuitState.Open && Date.now() < openUntil) throw breakerOpen(method, route);
    await options.budget.take(method, route);
    try {
      return await breaker.execute(attempt);
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw breakerOpen(method, route);
      if (isProviderError(error, 'rate_limited') && error.retryAfterMs !== undefined) {
        heldUntil = Math.max(heldUntil, options.now() + error.retryAfterMs);
        await options.sharedHold?.set(heldUntil);
      }
      throw error;
    }
  }

  return {
    run(kind, method, route, attempt) {
      if (kind === 'write') return once(method, route, attempt);
      return retryReads.execute(() => once(method, route, attempt));
    },
    state: () => ({
      breaker:
        breaker.state === CircuitState.Closed
          ? 'closed'
          : breaker.state === CircuitState.HalfOpen
            ? 'half_open'
            : 'open',
      heldUntil: heldUntil > options.now() ? heldUntil : null,
    }),
  };
}
