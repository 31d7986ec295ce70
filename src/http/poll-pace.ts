import { performance } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type DatabasePool, poolWaitsOf } from '../db/pool.ts';

/**
 * How fast clients are asked to poll (decision 045). Clients obey `X-Poll-Interval`, so when this process
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
  /** Samples in a row with the event loop that busy. Default 2: one busy second is a burst. */
  readonly busySamples?: number;
  /** Samples in a row without overload before the factor steps down. Default 5. */
  readonly calmSamples?: number;
  /** A wait for a database connection that even the fastest query of a sample had: a standing queue. Default 250 ms. */
  readonly queueMs?: number;
  /** Samples in a row with a standing queue for database connections. Default 2. */
  readonly queuedSamples?: number;
  /**
   * Samples after a raise in which a busy loop or a standing queue does not raise again: clients hear a
   * new interval only at their next poll, one interval later. Default 4 (the chat's 4 s). A stall still does.
   */
  readonly settleSamples?: number;
  /** Where the factor and what raised it are counted (`poll_pace_factor`, `poll_pace_overloaded_total`). */
  readonly registry?: Registry;
  /** Told each time the factor moves, with what the sample saw. */
  readonly onChange?: (factor: number, reading: PaceReading, triggers: readonly PaceTrigger[]) => void;
  // The sampler's timer and clocks, which tests drive; the real ones by default.
  /** Calls `sample` every `ms` and answers how to stop. Default an unref'd `setInterval`. */
  readonly every?: (ms: number, sample: () => void) => () => void;
  /** The clock the sampler's lateness is read on, in ms. Default `Date.now`. */
  readonly now?: () => number;
  /** The share of the time since the last call the event loop was busy, 0 to 1. Default Node's utilisation. */
  readonly utilization?: () => number;
  /** Uniform in [0, 1), spreading slowed intervals. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * A slowed interval is spread over half to one and a half times `base × factor`. Clients slowed in the
 * same second would otherwise all come back in the same second, overload the process again and be slowed
 * again: a herd that returns every `8 × interval`. Spread, they come back over a span as long as the
 * interval itself, and on average as slowly as the factor asks.
 */
export function slowedInterval(baseMs: number, factor: number, random: number): number {
  return factor <= 1 ? baseMs : Math.round(baseMs * factor * (0.5 + random));
}

function everyInterval(ms: number, sample: () => void): () => void {
  const timer = setInterval(sample, ms);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}

/** Node's event-loop utilisation since the last call (since this one, for the first). */
function eventLoopUtilization(): () => number {
  let usage = performance.eventLoopUtilization();
  return () => {
    const busy = performance.eventLoopUtilization(usage).utilization;
    usage = performance.eventLoopUtilization();
    return busy;
  };
}

/** What made a sample overloaded. */
export type PaceTrigger = 'busy' | 'late' | 'queue';

/** The triggers a reading pulls under the rules (the queue's counting in `nextPace`, here per sample). */
export function triggersOf(reading: PaceReading, rules: PaceRules): PaceTrigger[] {
  const triggers: PaceTrigger[] = [];
  if (reading.busy >= rules.busyShare) triggers.push('busy');
  if (reading.lateMs > rules.lagMs) triggers.push('late');
  if (reading.queueMs >= rules.queueMs) triggers.push('queue');
  return triggers;
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
  /** Samples in a row with the event loop busy. */
  readonly busy: number;
  /** Samples in a row that found a standing queue for database connections. */
  readonly queued: number;
  /** Samples left before a busy loop or a standing queue may raise the factor again. */
  readonly settle: number;
}

export const calmPace: PaceState = { step: 0, calm: 0, busy: 0, queued: 0, settle: 0 };

export interface PaceRules {
  readonly lagMs: number;
  readonly busyShare: number;
  readonly busySamples: number;
  readonly calmSamples: number;
  readonly queueMs: number;
  readonly queuedSamples: number;
  readonly settleSamples: number;
}

/**
 * The policy, without a clock. A sample is overloaded when it came `lagMs` late (a stall of a second);
 * when the event loop was busy for `busyShare` of it or more (Node's event-loop utilisation) in
 * `busySamples` samples in a row; or when the queue for database connections stood in `queuedSamples`
 * samples in a row: even the fastest query waited `queueMs` or more (CoDel's test of a standing queue).
 * A burst, however large (a cold herd of first polls, every poll of one instant after a pause), leaves
 * some queries served at once and is not overload; a database or a pool that cannot keep up makes every
 * query wait, and is. An overloaded sample raises the factor one step (up to 8), then a busy loop or a
 * standing queue waits `settleSamples` before it raises again, since clients hear the new interval only
 * at their next poll: without the wait, the load of clients that have not polled yet would push the
 * factor to 8 whatever the overload. A stall raises at once. `calmSamples` calm samples in a row lower
 * it one step. Up fast, down slowly: a fleet that was told to wait comes back gradually.
 */
export function nextPace(state: PaceState, reading: PaceReading, rules: PaceRules): PaceState {
  const queued = reading.queueMs >= rules.queueMs ? state.queued + 1 : 0;
  const busy = reading.busy >= rules.busyShare ? state.busy + 1 : 0;
  const stalled = reading.lateMs > rules.lagMs;
  const loaded = busy >= rules.busySamples || queued >= rules.queuedSamples;
  const counts = { busy, queued };
  const settle = Math.max(0, state.settle - 1);
  if (stalled || (loaded && state.settle === 0)) {
    const step = Math.min(state.step + 1, PACE_FACTORS.length - 1);
    return { step, calm: 0, ...counts, settle: rules.settleSamples };
  }
  if (loaded) return { step: state.step, calm: 0, ...counts, settle };
  if (state.step > 0 && state.calm + 1 >= rules.calmSamples)
    return { step: state.step - 1, calm: 0, ...counts, settle };
  return { step: state.step, calm: state.step > 0 ? state.calm + 1 : 0, ...counts, settle };
}

/** Samples the process every `sampleMs` and applies `nextPace`. */
export function startPollPace(options: PollPaceOptions): PollPace {
  const sampleMs = options.sampleMs ?? 1_000;
  const rules: PaceRules = {
    lagMs: options.lagMs ?? 1_000,
    busyShare: options.busyShare ?? 0.9,
    busySamples: options.busySamples ?? 2,
    calmSamples: options.calmSamples ?? 5,
    queueMs: options.queueMs ?? 250,
    queuedSamples: options.queuedSamples ?? 2,
    settleSamples: options.settleSamples ?? 4,
  };
  const waits = poolWaitsOf(options.pool);
  let state = calmPace;
  const factor = () => PACE_FACTORS[state.step] ?? 1;
  const registers = options.registry === undefined ? null : [options.registry];
  const overloaded =
    registers &&
    new Counter({
      name: 'poll_pace_overloaded_total',
      help: 'Samples of the poll pace (one a second) that found a trigger of overload: busy, late or queue',
      labelNames: ['trigger'] as const,
      registers,
    });
  if (registers) {
    new Gauge({
      name: 'poll_pace_factor',
      help: 'The factor X-Poll-Interval is multiplied by now: 1 while the process keeps up',
      registers,
      collect() {
        this.set(factor());
      },
    });
  }
  const clock = options.now ?? Date.now;
  const utilization = options.utilization ?? eventLoopUtilization();
  let expected = clock() + sampleMs;
  const standingQueueMs = (): number => {
    const fastest = waits?.takeFastest() ?? null;
    if (fastest !== null) return fastest;
    // Nothing handed out: a queue that did not move at all has stood since the last hand-out.
    const waiting = options.pool.state().waitingClients;
    return waiting > 0 && waits ? waits.now() - waits.lastHandedOut() : 0;
  };
  const stop = (options.every ?? everyInterval)(sampleMs, () => {
    const now = clock();
    const lateMs = now - expected;
    expected = now + sampleMs;
    const busy = utilization();
    const reading = { lateMs, busy, queueMs: standingQueueMs() };
    const before = state.step;
    state = nextPace(state, reading, rules);
    const triggers = triggersOf(reading, rules);
    for (const trigger of triggers) overloaded?.inc({ trigger });
    if (state.step !== before) options.onChange?.(factor(), reading, triggers);
  });
  return {
    interval: (baseMs) => slowedInterval(baseMs, factor(), (options.random ?? Math.random)()),
    factor,
    stop,
  };
}
