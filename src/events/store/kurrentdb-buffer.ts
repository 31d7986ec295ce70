/**
 * The buffer between a KurrentDB subscription, which pushes events one by one, and the follow loop, which
 * hands them on in batches: it holds what was pushed until the loop takes it, and pauses the subscription
 * (holding the server back) while a whole batch waits.
 */

/** The part of the client's subscription (a Node.js Readable) that the follow loop uses. */
export interface SubscriptionSource<T> {
  on(event: 'data', listener: (item: T) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
  unsubscribe(): Promise<void>;
  destroy(): unknown;
}

export type Taken<T> =
  { readonly done: false; readonly items: T[] } | { readonly done: true; readonly error: Error | undefined };

export interface SourceBuffer<T> {
  /** Waits for at least one item; done once the source has ended and everything was taken. */
  take(max: number, signal: AbortSignal): Promise<Taken<T>>;
  /**
   * Lets items gather: returns after `ms`, or earlier once `count` items wait, the source has ended or
   * `signal` aborts.
   */
  gather(count: number, ms: number, signal: AbortSignal): Promise<void>;
}

export function bufferSource<T>(source: SubscriptionSource<T>, highWater: number): SourceBuffer<T> {
  const queue: T[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  source.on('data', (item) => {
    queue.push(item);
    if (queue.length >= highWater) source.pause();
    notify();
  });
  source.on('error', (error) => {
    failure ??= error;
    ended = true;
    notify();
  });
  const onEnd = () => {
    ended = true;
    notify();
  };
  source.on('end', onEnd);
  source.on('close', onEnd);

  /** Resolves at the next push, end or error of the source, or when `signal` aborts. */
  const change = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      wake = done;
      signal.addEventListener('abort', done, { once: true });
    });

  const waitFor = async (count: number, signal: AbortSignal) => {
    while (queue.length < count && !ended && !signal.aborted) await change(signal);
  };

  return {
    async take(max, signal) {
      await waitFor(1, signal);
      if (signal.aborted || queue.length === 0)
        return { done: true, error: signal.aborted ? undefined : failure };
      const items = queue.splice(0, max);
      if (queue.length < highWater) source.resume();
      return { done: false, items };
    },

    async gather(count, ms, signal) {
      if (ms <= 0) return;
      const timer = new AbortController();
      const timeout = setTimeout(() => {
        timer.abort();
      }, ms);
      try {
        await waitFor(count, AbortSignal.any([signal, timer.signal]));
      } finally {
        clearTimeout(timeout);
      }
    },
  };
}
