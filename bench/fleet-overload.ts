import type { FleetRound } from './fleet-report.ts';
import { nominalPollRate } from './fleet-shape.ts';
import { stepErrors } from './fleet-stats.ts';
import { answeredShare, ms, paceFactor, worstP99 } from './fleet-tables.ts';
import { pollsAnswered, serverCores, type Step } from './fleet-verdicts.ts';
import { fixed, percent, type Verdict } from './report.ts';

/**
 * Past capacity, and what capacity is. A fleet larger than the machine holds must still be answered
 * (decision 022: the pace slows clients down instead of letting every answer be late); and from what a
 * poll costs, how many users a larger machine would hold.
 */

export const OVERLOAD_ANSWERED_SHARE = 0.97;
export const OVERLOAD_P99_MS = 1_000;
/** After the load ends, every process's pace must be back at factor 1 within this. */
export const CALM_WITHIN_S = 30;

/** The largest step run, judged as an overload: answered, without errors, within a second, and calm after. */
export function overloadVerdict(top: Step): Verdict {
  const { step } = top;
  const pace = paceFactor(step) ?? 1;
  const answered = answeredShare(step);
  const errors = stepErrors(step);
  const p99 = worstP99(step);
  const calm = top.calmAfterS ?? null;
  const calmOk = calm !== null && calm <= CALM_WITHIN_S;
  const engaged = pace > 1 ? `the pace engaged, up to ${fixed(pace, 1)} ×` : 'the pace did not engage';
  return {
    target:
      `fleet of ${step.users} users as an overload (${engaged}): >= ${OVERLOAD_ANSWERED_SHARE * 100} % answered, ` +
      `0 errors, every poll route p99 < ${OVERLOAD_P99_MS / 1000} s, back to factor 1 within ${CALM_WITHIN_S} s after`,
    actual:
      `${percent(answered)}, ${errors} errors, p99 ${ms(p99)}, ` +
      (calm === null
        ? 'calm not watched'
        : Number.isFinite(calm)
          ? `calm after ${fixed(calm, 1)} s`
          : 'not calm within 60 s'),
    pass: answered >= OVERLOAD_ANSWERED_SHARE && errors === 0 && p99 < OVERLOAD_P99_MS && calmOk,
  };
}

/** Share of a node's cores the estimate lets the service and PostgreSQL use: room for bursts and the OS. */
export const USABLE_SHARE = 0.75;
export const ESTIMATE_CORES = 8;

/** What one more poll costs, from a round's largest step and its writer mix alone. */
export interface PollCost {
  readonly apiProcesses: number;
  /** Service + PostgreSQL cores in the step, less those of the writer mix alone, per answered poll. */
  readonly marginalUs: number;
  /** Service + PostgreSQL cores of the writer mix alone: what the writes cost whatever the polls. */
  readonly writerCores: number;
  /** Polls per second one user sends at the default intervals. */
  readonly pollsPerUser: number;
}

export function pollCost(round: FleetRound): PollCost | null {
  const top = round.steps.at(-1);
  if (!top || !round.writer) return null;
  const polls = pollsAnswered(top.step);
  if (polls === 0) return null;
  const writerCores = serverCores(round.writer.measured);
  const extra = serverCores(top.measured) - writerCores;
  return {
    apiProcesses: round.apiProcesses ?? 1,
    marginalUs: (Math.max(0, extra) * top.step.windowS * 1e6) / polls,
    writerCores,
    pollsPerUser: nominalPollRate(top.step.users) / top.step.users,
  };
}

/** Users `cores` would hold at the default intervals, with the writer mix going on. */
export const usersOn = (cores: number, cost: PollCost) =>
  Math.floor((cores * USABLE_SHARE - cost.writerCores) / ((cost.marginalUs / 1e6) * cost.pollsPerUser));

/** The estimate as a report section: per count of API processes, this machine and an 8-core node. */
export function capacitySection(rounds: readonly FleetRound[], machineCores: number): string[] {
  const costs = rounds.map(pollCost).filter((c) => c !== null);
  if (costs.length === 0) return [];
  return [
    '## Capacity on paper',
    '',
    `From the measured cost of a poll: the service and PostgreSQL's cores in the largest step, less those of the writer mix alone, over the polls answered. ` +
      `A node is taken to give the service and PostgreSQL ${percent(USABLE_SHARE)} of its cores (the rest for bursts, the kernel and the OS), the writer mix first; ` +
      'the users are those whose polls at the default intervals fill the rest. The generator is left out: it does not run on a real node. ' +
      'The estimate is an upper bound: on this machine PostgreSQL, the generator and the service share the cores; ' +
      'a poll answered while the pace slowed the fleet is more often a 304 than one at the default intervals; and an API process ' +
      'uses one core at most, so a node needs as many API processes as it has cores to spare.',
    '',
    `| API processes | CPU per extra poll (service + PostgreSQL) | writer mix (cores) | polls per user per second | users on this machine (${machineCores} cores) | users on one ${ESTIMATE_CORES}-core node |`,
    '|---:|---:|---:|---:|---:|---:|',
    ...costs.map(
      (c) =>
        `| ${c.apiProcesses} | ${fixed(c.marginalUs, 0)} µs | ${fixed(c.writerCores)} | ${fixed(c.pollsPerUser, 3)} | ` +
        `${usersOn(machineCores, c)} | ${usersOn(ESTIMATE_CORES, c)} |`,
    ),
    '',
  ];
}
