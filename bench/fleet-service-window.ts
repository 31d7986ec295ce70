import type { IntercomSandbox } from '../src/integrations/intercom/sandbox/index.ts';
import { byKind, recordCalls, type TimedCall } from './chat-calls.ts';
import type { ServiceWindow } from './fleet-messages.ts';
import { loopMonitor } from './fleet-stats.ts';
import { sampleRss } from './rss.ts';

/** What the service's process watches in a measured window, from inside. */
export interface ServiceWatch {
  close(): ServiceWindow;
  /** Stops the samplers without a reading (teardown). */
  stop(): void;
}

/**
 * Starts watching: the sandbox's calls, RSS every 250 ms and the event loop's delay. `quiet` (the idle
 * window) leaves the samplers off, since their timers would cost a fair share of what idle is allowed
 * (the loop monitor alone about 1 % of a core); the calls are then counted at the edges only.
 */
export function watchService(sandbox: IntercomSandbox, quiet: boolean): ServiceWatch {
  const memory = () => process.memoryUsage();
  if (quiet) {
    const from = sandbox.calls.length;
    return {
      close() {
        const calls: readonly TimedCall[] = sandbox.calls.slice(from).map((c) => ({ ...c, at: 0 }));
        const { rss, heapUsed } = memory();
        return {
          rssBytes: rss,
          rssPeakBytes: rss,
          heapUsedBytes: heapUsed,
          loopDelayP99Ms: null,
          loopDelayMaxMs: null,
          // The sandbox halves its list past 100,000 calls: a shorter list means the count is lost.
          providerCalls: sandbox.calls.length >= from ? calls.length : null,
          providerByKind: byKind(calls),
        };
      },
      stop: () => undefined,
    };
  }
  const log = recordCalls(sandbox, 100);
  const from = log.mark();
  const rss = sampleRss(250);
  const loop = loopMonitor();
  const stop = () => {
    log.stop();
    rss.stop();
    loop.stop();
  };
  return {
    close() {
      let calls: TimedCall[] | null;
      try {
        calls = log.between(from, log.mark());
      } catch {
        calls = null;
      }
      stop();
      const { rss: now, heapUsed } = memory();
      return {
        rssBytes: now,
        rssPeakBytes: rss.peak(),
        heapUsedBytes: heapUsed,
        loopDelayP99Ms: loop.p99Ms(),
        loopDelayMaxMs: loop.maxMs(),
        providerCalls: calls?.length ?? null,
        providerByKind: calls ? byKind(calls) : [],
      };
    },
    stop,
  };
}
