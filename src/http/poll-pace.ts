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
  /** Samples in a row with more requests waiting for a connection than the pool has. Default 2. */
  readonly queuedSamples?: number;
}

/** The factors, one step per overloaded sample up, one step per calm stretch down. */
export const PACE_FACTORS = [1, 2, 4, 8] as const;

/** What one sample saw. */
export interface PaceReading {
  /** How late the sample's timer fired, in ms. */
  readonly lateMs: number;
  /** Event-loop utilisation over the sample, 0 to 1. */
  readonly busy: number;
  /** Requests waiting for a database connection at the sample, and how many connections the pool has. */
  readonly waiting: number;
  readonly poolSize: number;
}

export interface PaceState {
  /** Index into the factors. */
  readonly step: number;
  /** Calm samples in a row. */
  readonly calm: number;
  /** Samples in a row that found the pool's queue longer than the pool. */
  readonly queued: number;
}

export const calmPace: PaceState = { step: 0, calm: 0, queued: 0 };

export interface PaceRules {
  readonly lagMs: number;
  readonly busyShare: number;
  readonly calmSamples: number;
  readonly queuedSamples: number;
}

/**
 * The policy, without a clock: a sample is overloaded when the event loop was busy for `busyShare` of it
 * or more (Node's event-loop utilisation), when it came `lagMs` late (a stall of a second), or when more
 * requests waited for a database connection than the pool has, in `queuedSamples` samples in a row (one
 * sample's queue is a burst: a pause of the process, then every poll of that moment at once). Each
 * overloaded sample raises the factor one step (up to 8); `calmSamples` calm ones in a row lower it one
 * step. Up fast, down slowly: a fleet that was told to wait comes back gradually, not all at once.
 */
export function nextPace(state: PaceState, reading: PaceReading, rules: PaceRules): PaceState {
  const queued = reading.waiting > reading.poolSize ? state.queued + 1 : 0;
  const overloaded =
    reading.lateMs > rules.lagMs || reading.busy >= rules.busyShare || queued >= rules.queuedSamples;
  if (overloaded) return { step: Math.min(state.step + 1, PACE_FACTORS.length - 1), calm: 0, queued };
  if (state.step > 0 && state.calm + 1 >= rules.calmSamples) return { step: state.step - 1, calm: 0, queued };
  return { step: state.step, calm: state.step > 0 ? state.calm + 1 : 0, queued };
}

/** Samples the process every `sampleMs` and applies `nextPace`. */
export function startPollPace(options: PollPaceOptions): PollPace {
  const sampleMs = options.sampleMs ?? 1_000;
  const rules: PaceRules = {
    lagMs: options.lagMs ?? 1_000,
    busyShare: options.busyShare ?? 0.9,
    calmSamples: options.calmSamples ?? 5,
    queuedSamples: options.queuedSamples ?? 2,
  };
  let state = calmPace;
  let expected = Date.now() + sampleMs;
  let usage = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = Date.now();
    const lateMs = now - expected;
    expected = now + sampleMs;
    const busy = performance.eventLoopUtilization(usage).utilization;
    usage = performance.eventLoopUtilization();
    const waiting = options.pool.state().waitingClients;
    state = nextPace(
      state,
      { lateMs, busy, waiting, poolSize: options.pool.configuration.maxPoolSize ?? 10 },
      rules,
    );
  }, sampleMs);
  timer.unref();
  const factor = () => PACE_FACTORS[state.step] ?? 1;
  return {
    interval: (baseMs) => baseMs * factor(),
    factor,
    stop() {
      clearInterval(timer);
    },
  };
}
