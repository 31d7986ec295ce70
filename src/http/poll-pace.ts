import { performance } from 'node:perf_hooks';
import { type DatabasePool, poolWaitsOf } from '../db/pool.ts';

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
  /** Whose queue for connections counts as load (a pool made by `createDatabasePool`). */
  readonly pool: DatabasePool;
  /** How often the load is looked at. Default 1 s. */
  readonly sampleMs?: number;
  /** The sampler's own timer firing this much late is overload. Default 1 s: a GC pause is not. */
  readonly lagMs?: number;
  /** An event loop busy this share of a sample is overload. Default 0.9. */
  readonly busyShare?: number;
  /** Samples in a row without overload before the factor steps down. Default 5. */
  readonly calmSamples?: number;
  /** A wait for a database connection that even the fastest query of a sample had: a standing queue. Default 250 ms. */
  readonly queueMs?: number;
  /** Samples in a row with a standing queue for database connections. Default 2. */
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
  /**
   * The shortest wait for a database connection in the sample, in ms: how long the queue stood. When no
   * connection was handed out while queries waited, how long it has not moved; 0 without a queue.
   */
  readonly queueMs: number;
}

export interface PaceState {
  /** Index into the factors. */
  readonly step: number;
  /** Calm samples in a row. */
  readonly calm: number;
  /** Samples in a row that found a standing queue for database connections. */
  readonly queued: number;
}

export const calmPace: PaceState = { step: 0, calm: 0, queued: 0 };

export interface PaceRules {
  readonly lagMs: number;
  readonly busyShare: number;
  readonly calmSamples: number;
  readonly queueMs: number;
  readonly queuedSamples: number;
}

/**
 * The policy, without a clock: a sample is overloaded when the event loop was busy for `busyShare` of it
 * or more (Node's event-loop utilisation), when it came `lagMs` late (a stall of a second), or when the
 * queue for database connections stood, in `queuedSamples` samples in a row: even the fastest query
 * waited `queueMs` or more (CoDel's test of a standing queue). A burst, however large (a cold herd of
 * first polls, every poll of one instant after a pause), leaves some queries served at once and is not
 * overload; a database or a pool that cannot keep up makes every query wait, and is. Each overloaded
 * sample raises the factor one step (up to 8); `calmSamples` calm ones in a row lower it one step. Up
 * fast, down slowly: a fleet that was told to wait comes back gradually, not all at once.
 */
export function nextPace(state: PaceState, reading: PaceReading, rules: PaceRules): PaceState {
  const queued = reading.queueMs >= rules.queueMs ? state.queued + 1 : 0;
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
    queueMs: options.queueMs ?? 250,
    queuedSamples: options.queuedSamples ?? 2,
  };
  const waits = poolWaitsOf(options.pool);
  let state = calmPace;
  let expected = Date.now() + sampleMs;
  let usage = performance.eventLoopUtilization();
  const standingQueueMs = (): number => {
    const fastest = waits?.takeFastest() ?? null;
    if (fastest !== null) return fastest;
    // Nothing handed out: a queue that did not move at all has stood since the last hand-out.
    const waiting = options.pool.state().waitingClients;
    return waiting > 0 && waits ? performance.now() - waits.lastHandedOut() : 0;
  };
  const timer = setInterval(() => {
    const now = Date.now();
    const lateMs = now - expected;
    expected = now + sampleMs;
    const busy = performance.eventLoopUtilization(usage).utilization;
    usage = performance.eventLoopUtilization();
    state = nextPace(state, { lateMs, busy, queueMs: standingQueueMs() }, rules);
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
