import type { LogSeed } from './fleet-log.ts';
import type { Measured } from './fleet-phases.ts';
import type { FleetSettings } from './fleet-settings.ts';
import { HOT_POSTS, POSTS, WRITE_RATES } from './fleet-shape.ts';
import {
  generatorLine,
  LADDER_HEAD,
  ladderRow,
  pollTable,
  resourceLines,
  slowDownLine,
  statementTable,
  writeTable,
} from './fleet-tables.ts';
import { pollsAnswered, type Step, type StepVerdict } from './fleet-verdicts.ts';
import type { Machine } from './machine.ts';
import { fixed, targetsSection, type Verdict } from './report.ts';
import type { SourceVersion } from './source.ts';

export interface FleetRun {
  readonly date: Date;
  readonly machine: Machine;
  readonly source: SourceVersion;
  readonly postgres: string;
  readonly settings: FleetSettings;
  /** The generator's nice value (-10 when the bench could raise its priority, else 0). */
  readonly generatorNice: number;
  readonly poolSize: number | null;
  readonly seed: {
    readonly users: number;
    readonly conversations: number;
    readonly apiSeconds: number;
    readonly log: LogSeed;
    readonly catchUpSeconds: number;
    readonly settleSeconds: number;
  };
  readonly idle: Measured | null;
  readonly writer: Step | null;
  readonly steps: readonly Step[];
  readonly verdicts: readonly StepVerdict[];
  readonly baseline: Step | null;
  /** Why the run cannot be trusted; empty when it can. */
  readonly invalid: readonly string[];
  readonly checks: readonly Verdict[];
}

/** Other work above this during a window shared the two CPUs enough to move the numbers. */
const DISTURBED_CORES = 0.2;

function disturbance(run: FleetRun): string {
  const windows = [
    run.idle,
    run.writer?.measured,
    ...run.steps.map((s) => s.measured),
    run.baseline?.measured,
  ];
  const worst = Math.max(0, ...windows.map((m) => m?.cores.others ?? 0));
  return worst > DISTURBED_CORES
    ? `- **Other work on the machine used up to ${fixed(worst)} cores during a window** (column "other load"): those windows shared the CPUs, their numbers are worse than the service alone would give`
    : `- Other work on the machine stayed under ${DISTURBED_CORES} cores in every window`;
}

function head(run: FleetRun): string[] {
  const { settings: s, machine: m, source } = run;
  const rates = Object.entries(WRITE_RATES)
    .map(([k, r]) => `${k} ${r}/s`)
    .join(', ');
  return [
    '# Fleet benchmark',
    '',
    'Written by `npm run bench -- fleet` (bench/run.ts); overwritten on every run. How it works: bench/README.md, "Fleet".',
    '',
    `- Date: ${run.date.toISOString()}`,
    `- Machine: ${m.cpuCount} × ${m.cpuModel}, ${m.memoryGiB} GiB; Node ${m.node}`,
    `- Code: commit ${source.commit}, src digest ${source.digest}` +
      (source.uncommitted.length > 0
        ? ` (${source.uncommitted.length} uncommitted files under src measured)`
        : ''),
    `- PostgreSQL ${run.postgres}, embedded, its own cluster with pg_stat_statements; service pool size ${run.poolSize ?? 'slonik default'}, LOG_LEVEL ${s.logLevel}`,
    `- Three processes: the service (with the Intercom sandbox), the generator (undici, ${s.connections} keep-alive connections shared by all users, nice ${run.generatorNice}), PostgreSQL; the trivial server is a fourth, for the baseline`,
    `- Ladder ${s.ladder.join(', ')} users; each step a ${s.rampS} s ramp, then ${s.durationS} s measured; climbing stops at the first step that fails`,
    `- Polls: /api/unread (every user), the channel feed (every user), a comment thread (1 in 5, on the ${HOT_POSTS} newest posts), the user's conversation (1 in 20); writers: ${rates} (operator replies through the sandbox's operator route)`,
    disturbance(run),
    run.invalid.length === 0
      ? '- The run is valid: the service and the generator stayed up and the generator kept up.'
      : `- **INVALID RUN: ${run.invalid.join('; ')}.**`,
  ];
}

function stepSection(title: string | null, s: Step, verdict: StepVerdict | null): string[] {
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
    ...[slowDownLine(s.step)].filter((line) => line !== null),
    ...resourceLines(s.measured, pollsAnswered(s.step)),
    generatorLine(s.step),
    '',
    `Top statements during the window (of ${s.measured.statements.total}):`,
    '',
    ...statementTable(s.measured),
    '',
  ];
}

function windowSection(title: string, what: string, m: Measured): string[] {
  return [`## ${title}`, '', what, '', ...resourceLines(m, null), '', ...statementTable(m), ''];
}

export function renderFleetMarkdown(run: FleetRun): string {
  const { seed, settings } = run;
  const lines = [
    ...head(run),
    '',
    ...targetsSection(run.checks),
    '',
    '## Ladder',
    '',
    ...LADDER_HEAD,
    ...run.steps.map((s, i) => ladderRow(s, run.verdicts[i]?.pass ? 'PASS' : 'FAIL')),
    ...(run.baseline ? [ladderRow(run.baseline, 'trivial 304 server')] : []),
    '',
    'SQL per poll: every statement of the window (writers, projections and timers included) over the polls answered; compare with the writer mix alone below. Other load: CPU that other processes on the machine used during the window.',
    '',
    ...run.steps.flatMap((s, i) => stepSection(`${s.step.users} users`, s, run.verdicts[i] ?? null)),
    ...(run.idle
      ? windowSection(
          'Idle',
          `No clients for ${settings.idleS} s, the seeded log in place and every projection caught up.`,
          run.idle,
        )
      : []),
    ...(run.writer
      ? [
          '## Writer mix alone',
          '',
          `The writers only (no pollers), ${settings.writerS} s measured after a 5 s start.`,
          '',
          ...stepSection(null, run.writer, null),
        ]
      : []),
    ...(run.baseline
      ? [
          '## Baseline: the trivial 304 server',
          '',
          `The same fleet (${run.baseline.step.users} users, with the writers) against a node:http server answering every poll 200/304 with an ETag and X-Poll-Interval and every write 204: the ceiling of this machine and this generator. The service and PostgreSQL stay up, idle.`,
          '',
          ...stepSection(null, run.baseline, null),
        ]
      : []),
    '## Seeding',
    '',
    `- Through the API: a channel with ${POSTS} published posts (buttons, a picture, reactions), ${seed.conversations} support conversations; session tokens for ${seed.users} users (${fixed(seed.apiSeconds, 1)} s)`,
    `- Straight into the event store: ${seed.log.events} \`postsViewed\` events of ${seed.log.users} readers on the channel's posts (${fixed(seed.log.seconds, 1)} s), then ANALYZE; the log held ${seed.log.logSize} events; the projections caught up in ${fixed(seed.catchUpSeconds, 1)} s; VACUUM (ANALYZE) and a CHECKPOINT took ${fixed(seed.settleSeconds, 1)} s`,
    '',
  ];
  return lines.join('\n');
}
