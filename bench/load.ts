import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { Result } from 'autocannon';

export interface LoadOptions {
  readonly connections: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly signal: AbortSignal;
}

export interface Target {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The status every response must answer with (a 304 for a conditional poll); any 2xx when unset. */
  readonly expectedStatus?: number;
  /** autocannon's requests (method, body, a `setupRequest` that varies them); a GET of `url` when unset. */
  readonly requests?: autocannon.Request[];
}

/**
 * POSTs of a JSON body to `url`: the `i`th request autocannon builds carries the session token of the
 * `i`th of `tokens` (cycling) and `body(i)`; `built` counts the requests built so far (warm-up included).
 */
export function cyclingPosts(
  url: string,
  tokens: readonly string[],
  body: (i: number) => unknown,
): { readonly target: Target; readonly built: () => number } {
  let built = 0;
  const target: Target = {
    url,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const i = built++;
          return {
            ...request,
            headers: {
              ...request.headers,
              'content-type': 'application/json',
              authorization: `Bearer ${tokens[i % tokens.length] ?? ''}`,
            },
            body: JSON.stringify(body(i)),
          };
        },
      },
    ],
  };
  return { target, built: () => built };
}

export interface Measurement {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** 2xx responses (or the target's expected status) in the measured run (the warm-up is not counted). */
  readonly okResponses: number;
  /** Other responses, connection errors and timeouts, warm-up included: any of them fails the bench. */
  readonly failures: number;
}

/** A running autocannon: `done` settles when it ends (by its duration, `stop()` or `signal`). */
export interface Launched {
  readonly done: Promise<Result>;
  stop(): void;
}

/**
 * Starts autocannon against `target`. Latencies of the responses `expected` accepts go to `latenciesUs`
 * in microseconds: autocannon's own histogram has whole-millisecond buckets, too coarse for a p50 of
 * ~1 ms, and its response event carries the hrtime-based duration.
 */
export function launch(
  target: Target,
  connections: number,
  durationS: number,
  signal: AbortSignal,
  latenciesUs?: RecordableHistogram,
): Launched {
  signal.throwIfAborted();
  let stop = () => {};
  const done = new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        headers: { ...target.headers },
        connections,
        duration: durationS,
        ...(target.requests ? { requests: target.requests } : {}),
      },
      (error: unknown, result: Result) => {
        signal.removeEventListener('abort', stop);
        if (signal.aborted) reject(new Error('interrupted'));
        else if (error instanceof Error) reject(error);
        else if (error) reject(new Error(`autocannon failed: ${JSON.stringify(error)}`));
        else resolve(result);
      },
    );
    stop = () => {
      instance.stop();
    };
    signal.addEventListener('abort', stop, { once: true });
    if (latenciesUs) {
      instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
        if (expected(target, statusCode)) latenciesUs.record(Math.max(1, Math.round(responseTimeMs * 1000)));
      });
    }
  });
  return {
    done,
    stop: () => {
      stop();
    },
  };
}

const expected = (target: Target, statusCode: number) =>
  target.expectedStatus === undefined
    ? statusCode >= 200 && statusCode < 300
    : statusCode === target.expectedStatus;

/** Responses with the expected status (2xx unless the target names one). */
function okOf(target: Target, r: Result): number {
  if (target.expectedStatus === undefined) return r['2xx'];
  return r.statusCodeStats?.[`${target.expectedStatus}`]?.count ?? 0;
}

const answered = (r: Result) => r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
const failuresOf = (target: Target, r: Result) =>
  (target.expectedStatus === undefined ? r.non2xx : answered(r) - okOf(target, r)) + r.errors + r.timeouts;

export interface Series extends Measurement {
  /** req/s of each measured round, in order. */
  readonly rounds: readonly number[];
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/**
 * Warms every target up, then measures them in alternating rounds (A, B, A, B, …). A shared, noisy
 * 2-CPU machine drifts over a run; alternating exposes the targets to the same drift, and the median
 * round keeps one disturbed round from deciding the result. Latency percentiles pool all rounds.
 */
export async function measureInterleaved<K extends string>(
  targets: Readonly<Record<K, Target>>,
  options: LoadOptions & { readonly rounds: number },
): Promise<Record<K, Series>> {
  const names = Object.keys(targets) as K[];
  const state = new Map(
    names.map((name) => [
      name,
      { rounds: [] as number[], ok: 0, failures: 0, latenciesUs: createHistogram() },
    ]),
  );
  for (const name of names) {
    const warmup = await launch(targets[name], options.connections, options.warmupS, options.signal).done;
    const s = state.get(name);
    if (s) s.failures += failuresOf(targets[name], warmup);
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names) {
      const s = state.get(name);
      if (!s) continue;
      const run = await launch(
        targets[name],
        options.connections,
        options.durationS,
        options.signal,
        s.latenciesUs,
      ).done;
      s.rounds.push(run.requests.average);
      s.ok += okOf(targets[name], run);
      s.failures += failuresOf(targets[name], run);
    }
  }
  const out = {} as Record<K, Series>;
  for (const name of names) {
    const s = state.get(name);
    if (!s) continue;
    out[name] = {
      requestsPerSecond: median(s.rounds),
      p50Ms: s.latenciesUs.percentile(50) / 1000,
      p99Ms: s.latenciesUs.percentile(99) / 1000,
      okResponses: s.ok,
      failures: s.failures,
      rounds: s.rounds,
    };
  }
  return out;
}
