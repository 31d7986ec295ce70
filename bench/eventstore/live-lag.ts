import { createHistogram, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEVICES_CATEGORY } from '../../src/events/devices.ts';
import { comparePositions, type Position, reached } from '../../src/events/envelope.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { deviceToken, registered, toAppend, writerStreams } from './events.ts';
import type { DevicesRunner, Progress } from './runner.ts';

export interface LagOptions {
  readonly ratePerSecond: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly writers: number;
  readonly streamLength: number;
  readonly signal: AbortSignal;
}

export interface Lag {
  /** Every event appended, the warm-up's included. */
  readonly appended: number;
  /** Measured events (the warm-up's are not counted). */
  readonly events: number;
  readonly achievedRatePerSecond: number;
  /** Append call start -> the runner's 'progress' covering the event (its batch has committed). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The append call alone. */
  readonly appendP50Ms: number;
  readonly appendP99Ms: number;
  /** Append returned -> visible: what the runner adds. */
  readonly afterAppendP50Ms: number;
  readonly afterAppendP99Ms: number;
  /** Batches the runner committed during the measured part, and their mean size. */
  readonly batches: number;
}

interface Sent {
  readonly began: number;
  readonly appended: number;
  readonly position: Position;
}

/** The first progress that covers `position` (the timeline's positions only grow). */
export function firstCovering(timeline: readonly Progress[], position: Position): Progress | undefined {
  let lo = 0;
  let hi = timeline.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const entry = timeline[mid];
    if (entry && reached(entry.position, position)) hi = mid;
    else lo = mid + 1;
  }
  return timeline[lo];
}

const toUs = (ms: number) => Math.max(1, Math.round(ms * 1000));

/**
 * With the runner caught up, appends single device events at a steady rate (event i is due at
 * start + i / rate, writers take turns) and measures each one from just before its append call to
 * the runner's 'progress' for the batch that holds it, which the runner emits after that batch's
 * transaction (read-table rows and checkpoint) has committed.
 */
export async function measureLiveLag(
  store: EventStore,
  devices: DevicesRunner,
  options: LagOptions,
): Promise<Lag> {
  const total = Math.round(options.ratePerSecond * (options.warmupS + options.durationS));
  const warmup = Math.round(options.ratePerSecond * options.warmupS);
  const intervalMs = 1000 / options.ratePerSecond;
  const sent: Sent[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: options.writers }, async (_, w) => {
      const streams = writerStreams(DEVICES_CATEGORY, `livew${w}`, options.streamLength);
      for (let i = w; i < total; i += options.writers) {
        const due = start + i * intervalMs;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait, undefined, { signal: options.signal });
        const { stream, userId, count } = streams;
        const events = toAppend(userId, stream, [
          registered(deviceToken(userId, count), i % 2 === 0 ? 'mobile' : 'tma'),
        ]);
        const began = performance.now();
        const { position } = await store.append(
          stream,
          events,
          count === 0 ? 'no_stream' : BigInt(count - 1),
        );
        if (i >= warmup) sent.push({ began, appended: performance.now(), position });
        streams.advance();
      }
    }),
  );
  const finished = performance.now();
  const last = sent.reduce<Position | null>(
    (max, s) => (max === null || comparePositions(s.position, max) > 0 ? s.position : max),
    null,
  );
  if (!last) throw new Error('no event was measured');
  await devices.reach(last, 30_000, options.signal);

  const lag = createHistogram();
  const append = createHistogram();
  const afterAppend = createHistogram();
  let firstBegan = Number.POSITIVE_INFINITY;
  for (const s of sent) {
    const visible = firstCovering(devices.timeline, s.position);
    if (!visible) throw new Error('an appended event never became visible');
    lag.record(toUs(visible.at - s.began));
    append.record(toUs(s.appended - s.began));
    afterAppend.record(toUs(visible.at - s.appended));
    firstBegan = Math.min(firstBegan, s.began);
  }
  const ms = (us: number) => us / 1000;
  return {
    appended: total,
    events: sent.length,
    achievedRatePerSecond: sent.length / ((finished - firstBegan) / 1000),
    p50Ms: ms(lag.percentile(50)),
    p99Ms: ms(lag.percentile(99)),
    maxMs: ms(lag.max),
    appendP50Ms: ms(append.percentile(50)),
    appendP99Ms: ms(append.percentile(99)),
    afterAppendP50Ms: ms(afterAppend.percentile(50)),
    afterAppendP99Ms: ms(afterAppend.percentile(99)),
    batches: devices.timeline.filter((p) => p.at >= firstBegan).length,
  };
}
