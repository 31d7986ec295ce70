import { sharing } from './fleet-settings.ts';
import { capacitySection } from './fleet-overload.ts';
import type { Measured } from './fleet-phases.ts';
import {
  baselineSection,
  type FleetRound,
  type FleetRun,
  head,
  LADDER_NOTE,
  ladderTable,
  roundSections,
  seedSection,
} from './fleet-report.ts';
import { answeredShare, cpuPerPollUs, mib, ms, paceFactor, seenCell, worstP99 } from './fleet-tables.ts';
import { pollsAnswered, serverCores, type Step } from './fleet-verdicts.ts';
import { fixed, percent, targetsSection } from './report.ts';

/** The multi-process report (results/fleet-processes.md): a round per count of BENCH_FLEET_PROCESSES. */

const apiCount = (n: number) => `${n} API process${n === 1 ? '' : 'es'}`;
const isApi = (name: string) => name.startsWith('api-');
const coresOf = (m: Measured, pick: (name: string) => boolean) =>
  m.processes.filter((p) => pick(p.name)).map((p) => fixed(p.cores));
/** Every process on the machine: the service, PostgreSQL, the generator, the baseline and the rest. */
const machineCores = (m: Measured) =>
  m.cores.service + m.cores.postgres + m.cores.generator + (m.cores.baseline ?? 0) + m.cores.others;
const us = (n: number | null) => (n === null ? '–' : `${fixed(n, 0)} µs`);

function comparisonRow(apiProcesses: number | null, s: Step, result: string, cpuCount: number): string {
  const { step, measured: m } = s;
  const polls = pollsAnswered(step);
  const pace = paceFactor(step);
  return (
    `| ${apiProcesses ?? 1} | ${step.users} | ${result} | ${fixed(polls / step.windowS, 0)} | ${ms(worstP99(step))} | ${percent(answeredShare(step))} | ` +
    `${seenCell(step)} | ${pace === null ? '–' : `${fixed(pace, 1)} ×`} | ` +
    `${fixed(m.cores.service)} | ${coresOf(m, isApi).join(' / ')} | ${coresOf(m, (n) => !isApi(n)).join(' / ')} | ` +
    `${us(cpuPerPollUs(m.cores.service, m.seconds, polls))} | ${us(cpuPerPollUs(serverCores(m), m.seconds, polls))} | ` +
    `${fixed(m.cores.postgres)} | ${polls === 0 ? '–' : fixed(m.statements.total / polls)} | ` +
    `${mib(m.service.rssPeakBytes)} | ${ms(m.service.loopDelayP99Ms)} / ${ms(m.service.loopDelayMaxMs)} | ${fixed(m.cores.others)} | ${percent(machineCores(m) / cpuCount)} |`
  );
}

/** Every step of every round side by side: what one more API process bought. */
export function comparisonTable(rounds: readonly FleetRound[], cpuCount: number): string[] {
  return [
    '| API processes | users | result | polls answered/s | worst route p99 | answered | comment seen p50 / p99 (seen/posted) | longest X-Poll-Interval (× default) | service cores (all processes) | API processes (cores each) | worker cores | service CPU per poll | service + PostgreSQL CPU per poll | PostgreSQL cores | SQL per poll | service RSS (sum of peaks) | worst event-loop delay p99 / max | other load (cores) | machine busy |',
    '|---:|---:|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|',
    ...rounds.flatMap((r) =>
      r.steps.map((s, i) =>
        comparisonRow(r.apiProcesses, s, r.verdicts[i]?.pass ? 'PASS' : 'FAIL', cpuCount),
      ),
    ),
  ];
}

/** Idle and the writer mix alone, by count: what the processes cost with no pollers. */
export function quietTable(rounds: readonly FleetRound[]): string[] {
  const cells = (m: Measured | null | undefined) =>
    m
      ? `${fixed(m.cores.service)} (${m.processes.map((p) => `${p.name} ${fixed(p.cores, 3)}`).join(', ')}) | ${fixed(serverCores(m))}`
      : '– | –';
  return [
    '| API processes | idle: service cores (each process) | idle: service + PostgreSQL | writer mix: service cores (each process) | writer mix: service + PostgreSQL |',
    '|---:|---|---:|---|---:|',
    ...rounds.map((r) => `| ${r.apiProcesses ?? 1} | ${cells(r.idle)} | ${cells(r.writer?.measured)} |`),
  ];
}

function processesHead(run: FleetRun): string[] {
  const counts = run.rounds.map((r) => r.apiProcesses ?? 1);
  return head(run, {
    title: '# Fleet benchmark: several processes',
    processes:
      `- The service as ${counts.join(', then ')} API processes (\`api-1\` … , each binding one port with SO_REUSEPORT: the kernel spreads the generator's connections) ` +
      'and one worker (projections, processors, the webhook inbox, jobs, push workers; health and metrics only), with the Intercom sandbox in the worker for all of them and their limits, presence, ' +
      `invalidations and Intercom budget shared through Redis; between two counts only the API processes are started again. The generator (undici, ${run.settings.connections} keep-alive ` +
      `connections to the one port, ${sharing(run.settings)}, nice ${run.generatorNice}) and PostgreSQL are processes of their own; the trivial server is another, for the baseline`,
    pool: `pool size ${run.poolSize ?? 'slonik default'} per API process, ${run.workerPoolSize ?? 'slonik default'} in the worker`,
  });
}

export function renderProcessesMarkdown(run: FleetRun): string {
  const lines = [
    ...processesHead(run),
    '',
    ...targetsSection(run.checks),
    '',
    '## API processes compared',
    '',
    ...comparisonTable(run.rounds, run.machine.cpuCount),
    '',
    'Service cores: CPU (from /proc) of every process of the service, summed; CPU per poll: those CPU seconds over the polls answered in the window, in µs (the service alone, then with PostgreSQL). ' +
      "RSS: the sum of each process's peak; event-loop delay: the worst process. Longest X-Poll-Interval: the most any answer asked a client to wait, over its route's default (1 ×: nobody was slowed down). Machine busy: the CPU every process used, over the machine's cores.",
    '',
    ...quietTable(run.rounds),
    '',
    ...capacitySection(run.rounds, run.machine.cpuCount),
    ...run.rounds.flatMap((round) => [
      `## ${apiCount(round.apiProcesses ?? 1)} and the worker`,
      '',
      ...ladderTable(round, null),
      '',
      LADDER_NOTE,
      '',
      ...roundSections(round, run.settings, '###'),
    ]),
    ...(run.baseline ? baselineSection(run.baseline) : []),
    ...seedSection(run),
  ];
  return lines.join('\n');
}
