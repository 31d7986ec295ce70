/** Resolves after `ms`, or at once when `signal` aborts; never rejects, so loops just look at the signal. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  // An abort that came before the call fires no event: without this check the sleep would run its course.
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((done) => {
    const timer = setTimeout(finish, ms);
    function finish() {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      done();
    }
    signal.addEventListener('abort', finish, { once: true });
  });
}

/**
 * `signal.aborted`, read through a call: TypeScript narrows a property it has checked once and keeps the
 * narrowing across awaits, so a loop's second look at `signal.aborted` would type as a constant.
 */
export const isAborted = (signal: AbortSignal): boolean => signal.aborted;

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts, even when `work` ignores
 * the signal: the caller moves on and the abandoned work's late outcome is dropped (its side effect may
 * still land, so it must be idempotent).
 */
export async function settledOrAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  work.catch(() => undefined);
  if (signal.aborted) throw signal.reason;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** How long a stop waits for its loop to finish what it was doing. */
export const STOP_GRACE_MS = 5_000;

/**
 * Waits for a stopping loop, at most `ms`, and says so when it had not finished by then. A loop can be
 * held by a pool call that is never answered (slonik 49 can leave a query queued for good while every
 * attempt to connect fails, as when the database is gone), and that must not hold up the shutdown.
 * `graceOver` aborts when the wait is over: after `ms` unless a test ends it itself.
 */
export async function awaitStop(
  loop: Promise<unknown>,
  logger: { warn(details: object, message: string): void },
  what: string,
  ms = STOP_GRACE_MS,
  graceOver: AbortSignal = AbortSignal.timeout(ms),
): Promise<void> {
  const done = loop.then(
    () => undefined,
    () => undefined,
  );
  try {
    await settledOrAborted(done, graceOver);
  } catch {
    logger.warn({ waitedMs: ms }, `${what} had not stopped; leaving it behind`);
  }
}
