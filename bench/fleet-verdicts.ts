import type { Measured } from './fleet-phases.ts';
import { POLL_ROUTES } from './fleet-shape.ts';
import { stepErrors, type StepResult } from './fleet-stats.ts';
import { fixed, percent, type Verdict } from './report.ts';

/** The issue's targets, and whether a step's numbers can be trusted at all. */

export const POLL_P99_MS = 50;
export const ANSWERED_SHARE = 0.99;
export const VISIBLE_P99_MS = 6_000;
export const IDLE_CORES = 0.02;
export const WRITER_CORES = 0.35;
/**
 * Beyond this the generator's own event loop, not the service, sets the latencies it measures
 * (a response waits in its queue before it is timed): the step is not trusted.
 */
export const GENERATOR_LAG_P99_MS = 20;
/**
 * A generator using this much of its one core is saturated itself (not merely starved by the service
 * and PostgreSQL on a busy machine): the load it meant to send is not what was sent, the run is invalid.
 */
export const GENERATOR_CORES = 0.9;

export const generatorSaturated = (s: Step) => s.measured.cores.generator >= GENERATOR_CORES;

export interface Step {
  readonly step: StepResult;
  readonly measured: Measured;
  /**
   * Seconds from the end of the load until every process's poll pace was back at factor 1; null when
   * not watched (the baseline), Infinity when it was not back within the watch.
   */
  readonly calmAfterS?: number | null;
}

export interface StepVerdict {
  readonly users: number;
  readonly pass: boolean;
  /** The criteria the step missed, in words. */
  readonly misses: readonly string[];
  /** Why its numbers cannot be trusted; empty when they can. */
  readonly distrust: readonly string[];
}

const answeredShare = (p: { scheduled: number; answered: number }) =>
  p.scheduled === 0 ? 1 : p.answered / p.scheduled;

/** Polls answered by the service in the window: the denominator of SQL statements per poll. */
export const pollsAnswered = (step: StepResult) =>
  POLL_ROUTES.reduce((sum, route) => sum + step.polls[route].answered, 0);

export function judgeStep({ step, measured }: Step): StepVerdict {
  const misses: string[] = [];
  for (const route of POLL_ROUTES) {
    const poll = step.polls[route];
    if (poll.scheduled === 0) continue;
    if (poll.latency.p99Ms >= POLL_P99_MS) misses.push(`${route} p99 ${fixed(poll.latency.p99Ms, 1)} ms`);
    if (answeredShare(poll) < ANSWERED_SHARE)
      misses.push(`${route} answered ${percent(answeredShare(poll))}`);
  }
  const errors = stepErrors(step);
  if (errors > 0) misses.push(`${errors} errors`);
  const seenP99 = step.visibility?.p99Ms ?? null;
  if (step.visibility !== null && (seenP99 === null || seenP99 >= VISIBLE_P99_MS)) {
    misses.push(
      `comment seen p99 ${seenP99 === null ? 'never (over 1 % unseen)' : `${fixed(seenP99 / 1000, 1)} s`}`,
    );
  }
  const { generator } = step;
  const distrust: string[] = [];
  if (generator.loopDelayP99Ms > GENERATOR_LAG_P99_MS) {
    distrust.push(
      `generator event-loop delay p99 ${fixed(generator.loopDelayP99Ms, 1)} ms > ${GENERATOR_LAG_P99_MS} ms`,
    );
  }
  if (measured.cores.generator >= GENERATOR_CORES) {
    distrust.push(`generator at ${fixed(measured.cores.generator)} cores (saturated)`);
  }
  return { users: step.users, pass: misses.length === 0 && distrust.length === 0, misses, distrust };
}

/** Service + PostgreSQL, in cores. */
export const serverCores = (m: Measured) => m.cores.service + m.cores.postgres;

export function summaryVerdicts(
  ladder: readonly number[],
  verdicts: readonly StepVerdict[],
  idle: Measured,
  writer: Measured,
): Verdict[] {
  const passed = verdicts.filter((v) => v.pass).map((v) => v.users);
  const largest = passed.length === 0 ? null : Math.max(...passed);
  const top = Math.max(...ladder);
  return [
    {
      target: `fleet of ${top} users: every poll route p99 < ${POLL_P99_MS} ms, >= ${ANSWERED_SHARE * 100} % answered, 0 errors, comment seen by another user p99 < ${VISIBLE_P99_MS / 1000} s`,
      actual: largest === null ? 'no step passed' : `largest passing: ${largest} users`,
      pass: largest === top,
    },
    {
      target: `idle with the seeded log, no clients: service + PostgreSQL < ${IDLE_CORES * 100} % of one core`,
      actual: percent(serverCores(idle)),
      pass: serverCores(idle) < IDLE_CORES,
    },
    {
      target: `writer mix alone (no pollers): service + PostgreSQL <= ${WRITER_CORES} cores`,
      actual: `${fixed(serverCores(writer))} cores`,
      pass: serverCores(writer) <= WRITER_CORES,
    },
  ];
}
