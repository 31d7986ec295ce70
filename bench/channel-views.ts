import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'slonik';
import { z } from 'zod';
import { type Position, reached } from '../src/events/envelope.ts';
import { VIEWS_CATEGORY } from '../src/events/interactions.ts';
import { firstCovering } from './eventstore/live-lag.ts';
import type { Progress } from './eventstore/runner.ts';
import { cyclingPosts, type LoadOptions, median, measureInterleaved, type Series } from './load.ts';
import type { Service } from './targets.ts';

export interface ViewsOptions {
  readonly load: LoadOptions;
  readonly rounds: number;
  /** Distinct users whose session tokens the requests cycle through. */
  readonly users: number;
  readonly postsPerRequest: number;
  readonly probeIntervalMs: number;
}

export interface Views {
  readonly series: Series;
  readonly viewsPerSecond: number;
  readonly postsPerRequest: number;
  readonly users: number;
  /** Requests autocannon built (warm-up included); past `freshRequests` a (user, post) pair repeats. */
  readonly built: number;
  readonly freshRequests: number;
  readonly probes: number;
  readonly probeFailures: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** From the end of the load to the projection's checkpoint reaching the head of the views. */
  readonly drainMs: number;
  /** Rows of `post_views` once the projection has caught up (load, warm-up and probes). */
  readonly storedViews: number;
}

const PROJECTION = 'posts';
const DRAIN_TIMEOUT_MS = 60_000;
const PROBE_USERS = 200;

/** The request with the `i`th user and the `i`th window of posts: new (user, post) pairs for a while. */
function viewsTarget(url: string, tokens: readonly string[], postIds: readonly string[], per: number) {
  return cyclingPosts(url, tokens, (i) => {
    const cycle = Math.floor(i / tokens.length);
    return { postIds: Array.from({ length: per }, (_, k) => postIds[(cycle * per + k) % postIds.length]) };
  });
}

const ascending = (values: readonly number[]) => [...values].sort((a, b) => a - b);
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/**
 * Sustained `POST /api/channel/:id/views` (warm-up, then `rounds` rounds) while a probe every
 * `probeIntervalMs` sends a views request of its own and, once it is answered 204, reads the head of
 * the views in the store. Its lag runs from the 204 to the `posts` projection's first progress (emitted
 * after the batch's transaction commits) that covers that head: an upper bound, since the head may be
 * a little past the probe's own event.
 */
export async function measureViews(
  service: Service,
  channelId: string,
  postIds: readonly string[],
  options: ViewsOptions,
): Promise<Views> {
  const { store, changes } = service.eventSourcing;
  const { load, users, postsPerRequest: per } = options;
  const signal = load.signal;
  const url = `${service.base}/api/channel/${channelId}/views`;
  const tokens = Array.from({ length: users }, (_, i) => service.sessionToken(`bench-viewer-${i}`));
  const probeTokens = Array.from({ length: PROBE_USERS }, (_, i) => service.sessionToken(`bench-probe-${i}`));
  const views = viewsTarget(url, tokens, postIds, per);

  const timeline: Progress[] = [];
  const onProgress = (name: string, position: Position) => {
    if (name === PROJECTION) timeline.push({ at: performance.now(), position });
  };
  changes.events.on('heard', onProgress);

  const start = performance.now();
  const probing = new AbortController();
  const samples: { accepted: number; head: Position }[] = [];
  let probeFailures = 0;
  const prober = (async () => {
    for (let n = 0; !probing.signal.aborted; n++) {
      const due = performance.now() + options.probeIntervalMs;
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${probeTokens[n % PROBE_USERS] ?? ''}`,
        },
        body: JSON.stringify({ postIds: postIds.slice(0, per) }),
        signal,
      });
      const accepted = performance.now();
      await response.arrayBuffer();
      if (response.status !== 204) probeFailures++;
      const head = await store.headPosition([VIEWS_CATEGORY]);
      // The warm-up's probes are not counted.
      if (head && accepted - start >= load.warmupS * 1000) samples.push({ accepted, head });
      await sleep(Math.max(0, due - performance.now()), undefined, { signal });
    }
  })();

  let series: Series;
  try {
    ({ views: series } = await measureInterleaved(
      { views: views.target },
      { ...load, rounds: options.rounds },
    ));
  } finally {
    probing.abort();
    await prober.catch(() => undefined);
  }
  const loadEnd = performance.now();
  const head = await store.headPosition([VIEWS_CATEGORY]);
  let drainMs = 0;
  if (head) {
    for (;;) {
      const last = timeline.at(-1);
      if (last && reached(last.position, head)) break;
      if (performance.now() - loadEnd > DRAIN_TIMEOUT_MS)
        throw new Error('the posts projection did not catch up');
      await sleep(10, undefined, { signal });
    }
    drainMs = Math.max(0, (firstCovering(timeline, head)?.at ?? loadEnd) - loadEnd);
  }
  changes.events.off('heard', onProgress);

  const lags = ascending(
    samples.map((s) => Math.max(0, (firstCovering(timeline, s.head)?.at ?? Number.NaN) - s.accepted)),
  );
  if (lags.length === 0 || lags.some(Number.isNaN)) throw new Error('no probe was measured or applied');
  const storedViews = await service.pool.oneFirst(
    sql.type(z.object({ n: z.coerce.number() }))`SELECT count(*) AS n FROM post_views`,
  );
  return {
    series,
    viewsPerSecond: median(series.rounds) * per,
    postsPerRequest: per,
    users,
    built: views.built(),
    freshRequests: users * Math.floor(postIds.length / per),
    probes: lags.length,
    probeFailures,
    lagP50Ms: percentile(lags, 50),
    lagP99Ms: percentile(lags, 99),
    lagMaxMs: lags.at(-1) ?? 0,
    drainMs,
    storedViews,
  };
}
