import { performance } from 'node:perf_hooks';
import type { DatabasePool } from '../db/pool.ts';

/**
 * How fast clients are asked to poll (decision 022). Clients obey `X-Poll-Interval`, so when this process
 * is past its capacity it asks for longer intervals, and a fleet that obeys slows itself down instead of
 * queueing until every answer is late.
 */
export interface PollPace {
  /** The interval to send for a poll whose normal interval is `baseMs`. */
  interval(baseMs: number): number;
  /** The factor applied now: 1 when the process keeps up. */
  factor(): number;
  stop(): void;
}

export interface PollPaceOptions {
  /** Whose queue of waiting requests counts as load. */
  readonly pool: Pick<DatabasePool, 'state' | 'configuration'>;
  /** How often the load is looked at. Default 1 s. */
  readonly sampleMs?: number;
  /** The sampler's own timer firing this much late is overload. Default 1 s: a GC pause is not. */
  readonly lagMs?: number;
  /** An event loop busy this share of a sample is overload. Default 0.9. */
  readonly busyShare?: number;
  /** Samples in a row without overload before the factor steps down. Default 5. */
  readonly calmSamples?: number;
}

/** The factors, one step per overloaded sample up, one step per calm stretch down. */
const FACTORS = [1, 2, 4, 8] as const;

/**
 * The policy: every sample, the process is overloaded when its event loop was busy for `busyShare` of
 * the sample or more (Node's event-loop utilisation), when the sample itself came `lagMs` late (a stall
 * of a second), or when more requests waited for a database connection than the pool has. Each overloaded sample raises the
 * factor one step (up to 8); `calmSamples` calm ones in a row lower it one step. Up fast, down slowly: a
 * fleet that was told to wait comes back gradually, not all at once.
 */
export function startPollPace(options: PollPaceOptions): PollPace {
  const sampleMs = options.sampleMs ?? 1_000;
  const lagMs = options.lagMs ?? 1_000;
  const calmSamples = options.calmSamples ?? 5;
  const busyShare = options.busyShare ?? 0.9;
  let step = 0;
  let calm = 0;
  let expected = Date.now() + sampleMs;
  let usage = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = Date.now();
    const late = now - expected;
    expected = now + sampleMs;
    const busy = performance.eventLoopUtilization(usage).utilization;
    usage = performance.eventLoopUtilization();
    const { waitingClients } = options.pool.state();
    const overloaded =
      late > lagMs || busy >= busyShare || waitingClients > (options.pool.configuration.maxPoolSize ?? 10);
    if (overloaded) {
      step = Math.min(step + 1, FACTORS.length - 1);
      calm = 0;
    } else if (step > 0 && ++calm >= calmSamples) {
      step -= 1;
      calm = 0;
    }
  }, sampleMs);
  timer.unref();
  const factor = () => FACTORS[step] ?? 1;
  return {
    interval: (baseMs) => baseMs * factor(),
    factor,
    stop() {
      clearInterval(timer);
    },
  };
}
