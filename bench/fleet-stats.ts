import { createHistogram, monitorEventLoopDelay, type RecordableHistogram } from 'node:perf_hooks';
import { z } from 'zod';
import { perKey, POLL_ROUTES, WRITES } from './fleet-shape.ts';

/** What the generator measures in a step, as it crosses the IPC channel (checked by the orchestrator). */

export const latency = z.object({
  count: z.number(),
  p50Ms: z.number(),
  p95Ms: z.number(),
  p99Ms: z.number(),
  maxMs: z.number(),
});
export type Latency = z.infer<typeof latency>;

const statuses = z.record(z.string(), z.number());

export const pollResult = z.object({
  /** Polls due inside the measured window. */
  scheduled: z.number(),
  /** Of those, answered 200 or 304. */
  answered: z.number(),
  /** Due while the user's previous poll of the route was still unanswered: not sent. */
  skipped: z.number(),
  /** Sent, but still unanswered when the step ended. */
  unanswered: z.number(),
  /** Answers to the window's polls by status; `error` for a connection error or a timeout. */
  statuses,
  /** Anything but 200/304 outside the window (ramp, drain): still an error. */
  errorsOutside: z.number(),
  /** Answers in the window whose X-Poll-Interval was above the route's default: the server slowing clients. */
  slowed: z.number(),
  /** The longest X-Poll-Interval an answer in the window asked for (0 when none carried one). */
  maxIntervalMs: z.number(),
  latency,
});
export type PollResult = z.infer<typeof pollResult>;

export const writeResult = z.object({
  /** Requests sent inside the window. */
  sent: z.number(),
  statuses,
  /** Non-2xx answers and connection errors outside the window. */
  errorsOutside: z.number(),
  latency,
});
export type WriteResult = z.infer<typeof writeResult>;

export const visibility = z.object({
  /** Comments posted (answered 201) inside the window. */
  posted: z.number(),
  /** Of those, seen by a poll of a user other than the author. */
  seen: z.number(),
  /** From the POST being sent to that poll's answer; null when no comment was posted. */
  p50Ms: z.number().nullable(),
  /** Comments never seen count as later than any seen one: null when more than 1 % were never seen. */
  p99Ms: z.number().nullable(),
  /** Of the comments seen. */
  maxMs: z.number().nullable(),
});
export type Visibility = z.infer<typeof visibility>;

export const generatorSelf = z.object({
  loopDelayP99Ms: z.number(),
  loopDelayMaxMs: z.number(),
  /** How late the scheduler sent what was due (its tick included). */
  lateP99Ms: z.number(),
  lateMaxMs: z.number(),
  /** The most requests the generator had open at once. */
  inFlightMax: z.number(),
});
export type GeneratorSelf = z.infer<typeof generatorSelf>;

export const stepResult = z.object({
  users: z.number(),
  windowS: z.number(),
  polls: z.record(z.enum(POLL_ROUTES), pollResult),
  writes: z.record(z.enum(WRITES), writeResult),
  visibility: visibility.nullable(),
  generator: generatorSelf,
});
export type StepResult = z.infer<typeof stepResult>;

const noLatency: Latency = { count: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 };
const noCounts = {
  scheduled: 0,
  answered: 0,
  skipped: 0,
  unanswered: 0,
  errorsOutside: 0,
  slowed: 0,
  maxIntervalMs: 0,
};
/** The results of a step without pollers, or without writers. */
export const noPolls = () => perKey(POLL_ROUTES, () => ({ ...noCounts, statuses: {}, latency: noLatency }));
export const noWrites = () =>
  perKey(WRITES, () => ({ sent: 0, errorsOutside: 0, statuses: {}, latency: noLatency }));

/** Percentiles of a histogram of microseconds, in milliseconds. */
export function latencyOf(histogram: RecordableHistogram): Latency {
  if (histogram.count === 0) return noLatency;
  const ms = (p: number) => histogram.percentile(p) / 1000;
  return { count: histogram.count, p50Ms: ms(50), p95Ms: ms(95), p99Ms: ms(99), maxMs: histogram.max / 1000 };
}

/** Records a duration in milliseconds into a histogram of microseconds (which cannot take 0). */
export const recordMs = (histogram: RecordableHistogram, ms: number) => {
  histogram.record(Math.max(1, Math.round(ms * 1000)));
};

export const newHistogram = () => createHistogram();

/** The key of an answer in a status count: its code, or `error`. */
export const statusKey = (status: number | null) => (status === null ? 'error' : String(status));

export const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Errors of a step: polls answered otherwise than 200/304, writes otherwise than 2xx, connection errors. */
export function stepErrors(step: StepResult): number {
  let errors = 0;
  for (const poll of Object.values(step.polls)) {
    errors += poll.errorsOutside;
    for (const [key, n] of Object.entries(poll.statuses)) if (key !== '200' && key !== '304') errors += n;
  }
  for (const write of Object.values(step.writes)) {
    errors += write.errorsOutside;
    for (const [key, n] of Object.entries(write.statuses)) if (!/^2\d\d$/.test(key)) errors += n;
  }
  return errors;
}

/**
 * p50, p99 and max of the visibility delays, the comments never seen counted as later than all
 * (so p99 is null once more than 1 % are missing).
 */
export function visibilityOf(delaysMs: readonly number[], posted: number): Visibility {
  const sorted = [...delaysMs].sort((a, b) => a - b);
  const rank = (p: number) => {
    const index = Math.ceil((p / 100) * posted) - 1;
    return index < sorted.length ? (sorted[Math.max(0, index)] ?? null) : null;
  };
  return {
    posted,
    seen: sorted.length,
    p50Ms: posted === 0 ? null : rank(50),
    p99Ms: posted === 0 ? null : rank(99),
    maxMs: sorted.at(-1) ?? null,
  };
}

/**
 * The event loop's delay in milliseconds. monitorEventLoopDelay's samples include its own resolution (an
 * idle loop reads about 10 ms at a 10 ms resolution), so it is taken off.
 */
export function loopMonitor(resolutionMs = 10) {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const delay = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  return {
    reset: () => {
      histogram.reset();
    },
    p99Ms: () => delay(histogram.percentile(99)),
    maxMs: () => delay(histogram.max),
    stop: () => {
      histogram.disable();
    },
  };
}
