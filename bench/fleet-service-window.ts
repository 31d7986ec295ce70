import type { Registry } from 'prom-client';
import type { IntercomSandbox } from '../src/integrations/intercom/sandbox/index.ts';
import { byKind, recordCalls, type TimedCall } from './chat-calls.ts';
import type { ServiceWindow } from './fleet-messages.ts';
import { loopMonitor } from './fleet-stats.ts';
import { sampleRss } from './rss.ts';

/** What a service process watches in a measured window, from inside. */
export interface ServiceWatch {
  close(): Promise<ServiceWindow>;
  /** Stops the samplers without a reading (teardown). */
  stop(): void;
}

type Calls = Pick<ServiceWindow, 'providerCalls' | 'providerByKind'>;

/** HTTP requests the process has answered so far (every route and status of its http_requests_total). */
async function requestsServed(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric('http_requests_total');
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.reduce((sum, v) => sum + v.value, 0);
}

type Buckets = ServiceWindow['inService'];

/** The process's request-duration buckets so far, every route and status summed, cumulative. */
async function inServiceBuckets(registry: Registry): Promise<Buckets> {
  const metric = registry.getSingleMetric('http_request_duration_seconds');
  if (!metric) return [];
  const counts = new Map<number | null, number>();
  for (const entry of (await metric.get()).values) {
    if (!('metricName' in entry) || entry.metricName !== 'http_request_duration_seconds_bucket') continue;
    const { labels, value } = entry;
    const le = labels.le === '+Inf' ? null : Number(labels.le);
    counts.set(le, (counts.get(le) ?? 0) + value);
  }
  return [...counts].sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity));
}

/** The buckets of the window: what was counted at its close less what was at its open. */
function bucketsBetween(from: Buckets, to: Buckets): Buckets {
  const before = new Map(from);
  return to.map(([le, n]) => [le, n - (before.get(le) ?? 0)]);
}

type PaceTriggers = ServiceWindow['paceTriggers'];

/** Overloaded samples of the poll pace so far, by trigger (none in a process that answers no poll). */
async function paceTriggers(registry: Registry): Promise<PaceTriggers> {
  const counts: PaceTriggers = { busy: 0, late: 0, queue: 0 };
  const metric = registry.getSingleMetric('poll_pace_overloaded_total');
  if (!metric) return counts;
  for (const { labels, value } of (await metric.get()).values) {
    const trigger = labels.trigger;
    if (trigger === 'busy' || trigger === 'late' || trigger === 'queue') counts[trigger] += value;
  }
  return counts;
}

/**
 * The sandbox's calls over the window: counted at the edges (`quiet`), or stamped every 100 ms. A process
 * without the sandbox (an API process of the multi-process mode) makes its calls to the worker's, which
 * counts them there.
 */
function watchCalls(sandbox: IntercomSandbox | null, quiet: boolean): { read(): Calls; stop(): void } {
  if (sandbox === null)
    return { read: () => ({ providerCalls: 0, providerByKind: [] }), stop: () => undefined };
  if (quiet) {
    const from = sandbox.calls.length;
    return {
      read() {
        const calls: readonly TimedCall[] = sandbox.calls.slice(from).map((c) => ({ ...c, at: 0 }));
        // The sandbox halves its list past 100,000 calls: a shorter list means the count is lost.
        return {
          providerCalls: sandbox.calls.length >= from ? calls.length : null,
          providerByKind: byKind(calls),
        };
      },
      stop: () => undefined,
    };
  }
  const log = recordCalls(sandbox, 100);
  const from = log.mark();
  return {
    read() {
      let calls: TimedCall[] | null;
      try {
        calls = log.between(from, log.mark());
      } catch {
        calls = null;
      }
      return { providerCalls: calls?.length ?? null, providerByKind: calls ? byKind(calls) : [] };
    },
    stop: () => {
      log.stop();
    },
  };
}

/**
 * Starts watching: the sandbox's calls, the requests served, RSS every 250 ms and the event loop's delay.
 * `quiet` (the idle window) leaves the samplers off, since their timers would cost a fair share of what
 * idle is allowed (the loop monitor alone about 1 % of a core); the rest is then read at the edges only.
 */
export async function watchService(
  sandbox: IntercomSandbox | null,
  registry: Registry,
  quiet: boolean,
): Promise<ServiceWatch> {
  const requestsFrom = await requestsServed(registry);
  const triggersFrom = await paceTriggers(registry);
  const inServiceFrom = await inServiceBuckets(registry);
  const calls = watchCalls(sandbox, quiet);
  const samplers = quiet ? null : { rss: sampleRss(250), loop: loopMonitor() };
  const stop = () => {
    calls.stop();
    samplers?.rss.stop();
    samplers?.loop.stop();
  };
  return {
    async close() {
      const provider = calls.read();
      const requests = (await requestsServed(registry)) - requestsFrom;
      const triggers = await paceTriggers(registry);
      const inService = bucketsBetween(inServiceFrom, await inServiceBuckets(registry));
      stop();
      const { rss, heapUsed } = process.memoryUsage();
      return {
        rssBytes: rss,
        rssPeakBytes: samplers?.rss.peak() ?? rss,
        heapUsedBytes: heapUsed,
        loopDelayP99Ms: samplers?.loop.p99Ms() ?? null,
        loopDelayMaxMs: samplers?.loop.maxMs() ?? null,
        ...provider,
        requests,
        paceTriggers: {
          busy: triggers.busy - triggersFrom.busy,
          late: triggers.late - triggersFrom.late,
          queue: triggers.queue - triggersFrom.queue,
        },
        inService,
      };
    },
    stop,
  };
}
