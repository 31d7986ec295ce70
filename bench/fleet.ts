import { getPriority, setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/http/logger.ts';
import { writeReport } from './against-hello.ts';
import { say } from './env.ts';
import { type Child, forkChild, untilAborted } from './fleet-ipc.ts';
import { seedViewLog, settleDatabase, waitForProjections } from './fleet-log.ts';
import { fleetWorld, trivialReady } from './fleet-messages.ts';
import { deathOf, measureWindow, type Processes, runStep } from './fleet-phases.ts';
import { type Cluster, startCluster } from './fleet-postgres.ts';
import { renderProcessesMarkdown } from './fleet-processes-report.ts';
import { type ServiceLauncher, type ServiceSet, serviceLauncher } from './fleet-processes.ts';
import { overloadVerdict } from './fleet-overload.ts';
import { type FleetRound, type FleetRun, renderFleetMarkdown } from './fleet-report.ts';
import { fleetSettings, type FleetSettings } from './fleet-settings.ts';
import { ladderLine } from './fleet-tables.ts';
import {
  generatorSaturated,
  judgeStep,
  type Step,
  type StepVerdict,
  summaryVerdicts,
} from './fleet-verdicts.ts';
import { machine } from './machine.ts';
import { targetLines, type Verdict } from './report.ts';
import { sourceVersion } from './source.ts';
import type { Teardown } from './teardown.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/fleet.md', import.meta.url));
/** The multi-process mode's report, beside the single-process one, which it leaves alone. */
const PROCESSES_REPORT_FILE = fileURLToPath(new URL('./results/fleet-processes.md', import.meta.url));
const entry = (name: string) => new URL(`./fleet-${name}.ts`, import.meta.url);
/** The writer-only phase starts this long before it is measured. */
const WRITER_START_S = 5;
const CATCH_UP_TIMEOUT_MS = 15 * 60_000;
const GENERATOR_NICE = -10;

/**
 * Real clients do not share the server's CPUs. On this machine they do, and when the service and
 * PostgreSQL keep both cores busy the generator's timers and answers wait their turn, which would show
 * as the service's latency. A higher priority (nice -10; root only) keeps the generator on time; it
 * takes little from the others, since it uses a fraction of a core. Answers the nice value it runs at.
 */
function favour(pid: number): number {
  try {
    setPriority(pid, GENERATOR_NICE);
  } catch {
    // Not allowed (not root): it runs at the default priority, which the report says.
  }
  return getPriority(pid);
}

/** The ladder: each step a fleet of `n` users, climbing until one fails; `invalid` collects why a run lies. */
async function climb(p: Processes, s: FleetSettings, invalid: string[], signal: AbortSignal) {
  const steps: Step[] = [];
  const verdicts: StepVerdict[] = [];
  for (const users of s.ladder) {
    say(`fleet of ${users} users: ${s.rampS} s ramp, then ${s.durationS} s measured`);
    let step: Step;
    try {
      step = await runStep(p, { users, pollers: true, writers: true, rampS: s.rampS }, s.durationS, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      invalid.push(deathOf(p) ?? `the step of ${users} users failed: ${String(error)}`);
      break;
    }
    const verdict = judgeStep(step);
    steps.push(step);
    verdicts.push(verdict);
    say(ladderLine(step, verdict));
    if (generatorSaturated(step)) invalid.push(`the generator saturated its core at ${users} users`);
    if (!verdict.pass) break;
  }
  return { steps, verdicts };
}

/** The same fleet against the trivial server: the ceiling of the machine and the generator. */
async function baseline(
  p: Processes,
  s: FleetSettings,
  world: unknown,
  teardown: Teardown,
  signal: AbortSignal,
) {
  const server: Child = await forkChild('trivial server', entry('baseline'), {}, teardown, signal);
  const { url } = trivialReady.parse(server.ready);
  await p.generator.call('setup', { origin: url, operator: { url, token: 'baseline' }, world });
  say(
    `baseline: ${s.baselineUsers} users against the trivial 304 server, ${s.rampS} s ramp, ${s.durationS} s measured`,
  );
  const plan = { users: s.baselineUsers, pollers: true, writers: true, rampS: s.rampS };
  return runStep(p, plan, s.durationS, signal, server);
}

/**
 * `npm run bench -- fleet`: many users polling on their real schedules and a writer mix, from a
 * generator in its own process against the service in another; idle and writer-only phases; a
 * trivial server as the baseline. Writes results/fleet.md.
 */
export async function benchFleet(signal: AbortSignal): Promise<number> {
  const settings = fleetSettings();
  // Ctrl-C reaches this process twice (from the terminal and forwarded by scripts/node24.mjs), and
  // run.ts listens once: without a listener of its own the second would kill it before the teardown
  // has stopped the children. run.ts's listener still turns the first into the abort.
  const stay = () => undefined;
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, stay);
  try {
    return await runFleet(settings, signal);
  } finally {
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.off(s, stay);
  }
}

/** What a round of the multi-process mode is called in targets and on the console. */
const roundName = (apiProcesses: number | null) =>
  apiProcesses === null ? null : `${apiProcesses} API process${apiProcesses === 1 ? '' : 'es'} + worker`;

/** Idle, the writer mix alone and the ladder, on the service's processes of the moment. */
async function runRound(
  p: Processes,
  s: FleetSettings,
  apiProcesses: number | null,
  invalid: string[],
  signal: AbortSignal,
): Promise<FleetRound> {
  const users = Math.max(...s.ladder, s.baselineUsers);
  say(`idle: ${s.idleS} s with no clients`);
  const idle = await measureWindow(p, s.idleS, signal, { scrape: true, quiet: true });
  say(`writer mix alone: ${s.writerS} s`);
  const writerPlan = { users, pollers: false, writers: true, rampS: WRITER_START_S };
  const writer = await runStep(p, writerPlan, s.writerS, signal);
  const { steps, verdicts } = await climb(p, s, invalid, signal);
  const name = roundName(apiProcesses);
  const top = steps.at(-1);
  const checks: Verdict[] = [
    ...summaryVerdicts(s.ladder, verdicts, idle, writer.measured),
    ...(top ? [overloadVerdict(top)] : []),
  ].map((c) => (name === null ? c : { ...c, target: `${name}: ${c.target}` }));
  return { apiProcesses, idle, writer, steps, verdicts, checks };
}

/**
 * The rounds, one per count of API processes (one round on the one process without
 * BENCH_FLEET_PROCESSES): the first on the processes that seeded, each later one on API processes
 * started again. A round that cannot start, or a process that died, ends the rounds.
 */
async function runRounds(
  base: Omit<Processes, 'services' | 'serviceBase'>,
  first: ServiceSet,
  launcher: ServiceLauncher,
  s: FleetSettings,
  invalid: string[],
  signal: AbortSignal,
) {
  const counts = s.processes ?? [null];
  const rounds: FleetRound[] = [];
  let p: Processes = { ...base, services: first.children, serviceBase: first.base };
  for (const [i, count] of counts.entries()) {
    if (i > 0) {
      say(`starting ${roundName(count) ?? 'the service'} again`);
      try {
        const set = await launcher.start(count);
        p = { ...base, services: set.children, serviceBase: set.base };
      } catch (error) {
        if (signal.aborted) throw error;
        invalid.push(`${roundName(count) ?? 'the service'} could not start: ${String(error)}`);
        break;
      }
    }
    const name = roundName(count);
    if (name !== null) say(`--- ${name} ---`);
    rounds.push(await runRound(p, s, count, invalid, signal));
    if (deathOf(p) !== null) break;
  }
  return { rounds, last: p };
}

/** The seeding: through the API, then the log straight into the event store, then a settled database. */
async function seed(cluster: Cluster, set: ServiceSet, s: FleetSettings, signal: AbortSignal) {
  const users = Math.max(...s.ladder, s.baselineUsers);
  const seeder = set.children[0];
  if (!seeder) throw new Error('no service process to seed through');
  say(`seeding through the API: a channel with its posts, conversations and tokens for ${users} users`);
  const mark = performance.now();
  const world = fleetWorld.parse(await untilAborted(seeder.call('seed', users), signal));
  const apiSeconds = (performance.now() - mark) / 1000;
  say(`seeding ${s.logEvents} view events straight into the event store`);
  const log = await seedViewLog(cluster.client, world.channelId, world.postIds, s.logEvents);
  say(`  ${log.events} events in ${log.seconds.toFixed(1)} s; waiting for the projections to catch up`);
  const catchUpSeconds = await waitForProjections(cluster.client, CATCH_UP_TIMEOUT_MS, signal);
  say(`  caught up in ${catchUpSeconds.toFixed(1)} s; VACUUM (ANALYZE) and CHECKPOINT`);
  const settleSeconds = await settleDatabase(cluster.client);
  const conversations = world.users.filter((u) => u.conversationId).length;
  return { world, seed: { users, conversations, apiSeconds, log, catchUpSeconds, settleSeconds } };
}

async function runFleet(settings: FleetSettings, signal: AbortSignal): Promise<number> {
  return withTeardown(async (teardown) => {
    const started = new Date();
    say('starting PostgreSQL (embedded, with pg_stat_statements)');
    const cluster = await startCluster(teardown, createLogger(settings.logLevel));
    const launcher = serviceLauncher(cluster.url, settings.redisUrl, teardown, signal);
    const firstCount = settings.processes?.[0] ?? null;
    say(`starting ${roundName(firstCount) ?? 'the service in its own process'}`);
    const first = await launcher.start(firstCount);
    const { world, seed: seeded } = await seed(cluster, first, settings, signal);

    const generator = await forkChild('generator', entry('generator'), {}, teardown, signal);
    const generatorNice = favour(generator.pid);
    const operator = { url: first.sandbox.url, token: first.sandbox.accessToken };
    await generator.call('setup', { origin: first.base, operator, world });

    const invalid: string[] = [];
    const { rounds, last } = await runRounds(
      { cluster, generator },
      first,
      launcher,
      settings,
      invalid,
      signal,
    );
    const base = deathOf(last) === null ? await baseline(last, settings, world, teardown, signal) : null;
    if (base && generatorSaturated(base))
      invalid.push('the generator saturated its core against the trivial server');
    if (base) say(ladderLine(base, null));

    const run: FleetRun = {
      date: started,
      machine: machine(),
      source: await sourceVersion(['src']),
      postgres: cluster.version,
      settings,
      generatorNice,
      poolSize: first.poolSize,
      workerPoolSize: first.workerPoolSize,
      seed: seeded,
      rounds,
      baseline: base,
      invalid,
      checks: rounds.flatMap((r) => r.checks),
    };
    const multi = settings.processes !== null;
    await writeReport(
      multi ? PROCESSES_REPORT_FILE : REPORT_FILE,
      multi ? renderProcessesMarkdown(run) : renderFleetMarkdown(run),
      targetLines(run.checks),
    );
    if (invalid.length === 0) return 0;
    process.stderr.write(`bench: ${invalid.join('; ')}; the run is invalid\n`);
    return 1;
  });
}
