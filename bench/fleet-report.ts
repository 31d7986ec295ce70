import { cpuProfileSection } from './fleet-cpu-tables.ts';
import { capacitySection } from './fleet-overload.ts';
import type { LogSeed } from './fleet-log.ts';
import type { Measured } from './fleet-phases.ts';
import { type FleetSettings, sharing } from './fleet-settings.ts';
import { HOT_POSTS, POSTS, WRITE_RATES } from './fleet-shape.ts';
import {
  generatorLine,
  LADDER_HEAD,
  ladderRow,
  pollTable,
  processTable,
  resourceLines,
  slowDownLine,
  statementTable,
  writeTable,
} from './fleet-tables.ts';
import { pollsAnswered, type Step, type StepVerdict } from './fleet-verdicts.ts';
import type { Machine } from './machine.ts';
import { fixed, targetsSection, type Verdict } from './report.ts';
import type { SourceVersion } from './source.ts';

/** The phases measured on one set of the service's processes: idle, the writer mix, the ladder. */
export interface FleetRound {
  /** API processes (with a worker) in the multi-process mode; null: the one process of `npm start`. */
  readonly apiProcesses: number | null;
  readonly idle: Measured | null;
  readonly writer: Step | null;
  readonly steps: readonly Step[];
  readonly verdicts: readonly StepVerdict[];
  readonly checks: readonly Verdict[];
}

export interface FleetRun {
  readonly date: Date;
  readonly machine: Machine;
  readonly source: SourceVersion;
  readonly postgres: string;
  readonly settings: FleetSettings;
  /** The generator's nice value (-10 when the bench could raise its priority, else 0). */
  readonly generatorNice: number;
  readonly poolSize: number | null;
  /** The worker's pool size in the multi-process mode; null with one process. */
  readonly workerPoolSize: number | null;
  readonly seed: {
    readonly users: number;
    readonly conversations: number;
    readonly apiSeconds: number;
    readonly log: LogSeed;
    readonly catchUpSeconds: number;
    readonly settleSeconds: number;
  };
  /** One round with one process; one per count of BENCH_FLEET_PROCESSES, in its order. */
  readonly rounds: readonly FleetRound[];
  readonly baseline: Step | null;
  /** Why the run cannot be trusted; empty when it can. */
  readonly invalid: readonly string[];
  /** Every round's targets. */
  readonly checks: readonly Verdict[];
}

/** Other work above this during a window shared the two CPUs enough to move the numbers. */
const DISTURBED_CORES = 0.2;

function disturbance(run: FleetRun): string {
  const windows = [
    ...run.rounds.flatMap((r) => [r.idle, r.writer?.measured, ...r.steps.map((s) => s.measured)]),
    run.baseline?.measured,
  ];
  const worst = Math.max(0, ...windows.map((m) => m?.cores.others ?? 0));
  return worst > DISTURBED_CORES
    ? `- **Other work on the machine used up to ${fixed(worst)} cores during a window** (column "other load"): those windows shared the CPUs, their numbers are worse than the service alone would give`
    : `- Other work on the machine stayed under ${DISTURBED_CORES} cores in every window`;
}

/** What differs between the heads of the two reports: the title, the processes, the pool sizes. */
export interface HeadLines {
  readonly title: string;
  readonly processes: string;
  readonly pool: string;
}

const singleHead = (run: FleetRun): HeadLines => ({
  title: '# Fleet benchmark',
  processes: `- Three processes: the service (with the Intercom sandbox), the generator (undici, ${run.settings.connections} keep-alive connections ${sharing(run.settings)}, nice ${run.generatorNice}), PostgreSQL; the trivial server is a fourth, for the baseline`,
  pool: `service pool size ${run.poolSize ?? 'slonik default'}`,
});

export function head(run: FleetRun, lines: HeadLines = singleHead(run)): string[] {
  const { settings: s, machine: m, source } = run;
  const rates = Object.entries(WRITE_RATES)
    .map(([k, r]) => `${k} ${r}/s`)
    .join(', ');
  return [
    lines.title,
    '',
    'Written by `npm run bench -- fleet` (bench/run.ts); overwritten on every run. How it works: bench/README.md, "Fleet".',
    '',
    `- Date: ${run.date.toISOString()}`,
    `- Machine: ${m.cpuCount} × ${m.cpuModel}, ${m.memoryGiB} GiB; Node ${m.node}`,
    `- Code: commit ${source.commit}, src digest ${source.digest}` +
      (source.uncommitted.length > 0
        ? ` (${source.uncommitted.length} uncommitted files under src measured)`
        : ''),
    `- PostgreSQL ${run.postgres}, embedded, its own cluster with pg_stat_statements; ${lines.pool}, LOG_LEVEL ${s.logLevel}`,
    lines.processes,
    `- Ladder ${s.ladder.join(', ')} users; each step a ${s.rampS} s ramp, then ${s.durationS} s measured; climbing stops at the first step that fails`,
    `- Polls: /api/unread (every user), the channel feed (every user), a comment thread (1 in 5, on the ${HOT_POSTS} newest posts), the user's conversation (1 in 20); writers: ${rates} (operator replies through the sandbox's operator route)`,
    disturbance(run),
    run.invalid.length === 0
      ? '- The run is valid: the service and the generator stayed up and the generator kept up.'
      : `- **INVALID RUN: ${run.invalid.join('; ')}.**`,
  ];
}

export function stepSection(title: string | null, s: Step, verdict: StepVerdict | null): string[] {
  const result =
    verdict === null
      ? []
      : [
          `Result: **${verdict.pass ? 'PASS' : 'FAIL'}**` +
            (verdict.misses.length > 0 ? `; missed: ${verdict.misses.join(', ')}` : '') +
            (verdict.distrust.length > 0 ? `; not trusted: ${verdict.distrust.join(', ')}` : ''),
          '',
        ];
  const v = s.step.visibility;
  return [
    ...(title === null ? [] : [`### ${title}`, '']),
    ...result,
    ...(s.step.visibility === null && pollsAnswered(s.step) === 0 ? [] : [...pollTable(s.step), '']),
    ...writeTable(s.step),
    '',
    ...(v === null || v.posted === 0
      ? []
      : [
          `- New comment seen by another user's poll: ${v.seen} of ${v.posted} seen; p50 ${fixed((v.p50Ms ?? 0) / 1000, 2)} s, ` +
            `p99 ${v.p99Ms === null ? 'over 1 % never seen' : `${fixed(v.p99Ms / 1000, 2)} s`}, max ${fixed((v.maxMs ?? 0) / 1000, 2)} s`,
        ]),
    ...[slowDownLine(s.step), calmLine(s)].filter((line) => line !== null),
    ...resourceLines(s.measured, pollsAnswered(s.step)),
    generatorLine(s.step),
    '',
    // Against the trivial server the polls were not the service's.
    ...processTable(s.measured, s.measured.cores.baseline === null ? pollsAnswered(s.step) : null),
    ...cpuProfileSection(s.measured),
    `Top statements during the window (of ${s.measured.statements.total}):`,
    '',
    ...statementTable(s.measured),
    '',
  ];
}

export function windowSection(title: string, what: string, m: Measured): string[] {
  return [
    title,
    '',
    what,
    '',
    ...resourceLines(m, null),
    '',
    ...processTable(m, null),
    ...cpuProfileSection(m),
    ...statementTable(m),
    '',
  ];
}

/** The ladder's summary table of a round (and the baseline's row). */
export function ladderTable(round: FleetRound, baseline: Step | null): string[] {
  return [
    ...LADDER_HEAD,
    ...round.steps.map((s, i) => ladderRow(s, round.verdicts[i]?.pass ? 'PASS' : 'FAIL')),
    ...(baseline ? [ladderRow(baseline, 'trivial 304 server')] : []),
  ];
}

/** A round's step sections, its idle window and its writer mix, under headings of `level`. */
export function roundSections(round: FleetRound, settings: FleetSettings, level: '##' | '###'): string[] {
  return [
    ...round.steps.flatMap((s, i) => stepSection(`${s.step.users} users`, s, round.verdicts[i] ?? null)),
    ...(round.idle
      ? windowSection(
          `${level} Idle`,
          `No clients for ${settings.idleS} s, the seeded log in place and every projection caught up.`,
          round.idle,
        )
      : []),
    ...(round.writer
      ? [
          `${level} Writer mix alone`,
          '',
          `The writers only (no pollers), ${settings.writerS} s measured after a 5 s start.`,
          '',
          ...stepSection(null, round.writer, null),
        ]
      : []),
  ];
}

export function baselineSection(baseline: Step): string[] {
  return [
    '## Baseline: the trivial 304 server',
    '',
    `The same fleet (${baseline.step.users} users, with the writers) against a node:http server answering every poll 200/304 with an ETag and X-Poll-Interval and every write 204: the ceiling of this machine and this generator. The service and PostgreSQL stay up, idle.`,
    '',
    ...stepSection(null, baseline, null),
  ];
}

export function seedSection(run: FleetRun): string[] {
  const { seed } = run;
  return [
    '## Seeding',
    '',
    `- Through the API: a channel with ${POSTS} published posts (buttons, a picture, reactions), ${seed.conversations} support conversations; session tokens for ${seed.users} users (${fixed(seed.apiSeconds, 1)} s)`,
    `- Straight into the event store: ${seed.log.events} \`postsViewed\` events of ${seed.log.users} readers on the channel's posts (${fixed(seed.log.seconds, 1)} s), then ANALYZE; the log held ${seed.log.logSize} events; the projections caught up in ${fixed(seed.catchUpSeconds, 1)} s; VACUUM (ANALYZE) and a CHECKPOINT took ${fixed(seed.settleSeconds, 1)} s`,
    '',
  ];
}

export const LADDER_NOTE =
  'SQL per poll: every statement of the window (writers, projections and timers included) over the polls answered; compare with the writer mix alone below. Other load: CPU that other processes on the machine used during the window.';

/** The single-process report (results/fleet.md): one round, the one process of `npm start`. */
export function renderFleetMarkdown(run: FleetRun): string {
  const round = run.rounds[0];
  if (!round) throw new Error('no round to report');
  const lines = [
    ...head(run),
    '',
    ...targetsSection(run.checks),
    '',
    '## Ladder',
    '',
    ...ladderTable(round, run.baseline),
    '',
    LADDER_NOTE,
    '',
    ...capacitySection(run.rounds, run.machine.cpuCount),
    ...roundSections(round, run.settings, '##'),
    ...(run.baseline ? baselineSection(run.baseline) : []),
    ...seedSection(run),
  ];
  return lines.join('\n');
}

/** When the pace was back at factor 1 on every process after the load stopped. */
function calmLine(s: Step): string | null {
  if (s.calmAfterS === undefined || s.calmAfterS === null) return null;
  return Number.isFinite(s.calmAfterS)
    ? `- After the load stopped, every process's pace was back at factor 1 within ${fixed(s.calmAfterS, 1)} s`
    : '- After the load stopped, the pace was not back at factor 1 within 60 s';
}
