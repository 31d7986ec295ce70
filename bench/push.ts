import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { createLogger } from '../src/http/logger.ts';
import { writeReport } from './against-hello.ts';
import { call } from './channel-seed.ts';
import { positiveInt, say } from './env.ts';
import { type Child, forkChild } from './fleet-ipc.ts';
import { settleDatabase } from './fleet-log.ts';
import { startCluster } from './fleet-postgres.ts';
import { processCpuSeconds } from './fleet-proc.ts';
import { machine } from './machine.ts';
import {
  fakesReady,
  fcmTrace,
  latency,
  pollRound,
  type PollRound,
  prepared,
  pushWindow,
  serviceReady,
  telegramTrace,
} from './push-messages.ts';
import {
  type BroadcastResult,
  type CpuWindow,
  type FanoutRun,
  type JobStats,
  type PollPhase,
  type PushRun,
  pushFailures,
  pushSummary,
  pushVerdicts,
  renderPushMarkdown,
} from './push-report.ts';
import { type DevicePlan, seedDevices } from './push-seed.ts';
import { otherWork, snapshotProcesses } from './push-proc.ts';
import { readStatementTimes, statementWindow } from './push-sql.ts';
import { machineTimes } from './push-stats.ts';
import { deliveryCurve, medianOf, telegramWindow } from './push-stats.ts';
import { sourceVersion } from './source.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/push.md', import.meta.url));

export interface PushSettings {
  readonly plan: DevicePlan;
  readonly tmaWindowS: number;
  readonly roundS: number;
  readonly warmupS: number;
  readonly idleRounds: number;
  readonly maxPairs: number;
  readonly timeoutS: number;
  readonly fakes: 'process' | 'inline';
  readonly logLevel: string;
}

function settingsFromEnv(): PushSettings {
  const fakes = process.env.BENCH_PUSH_FAKES ?? 'process';
  if (fakes !== 'process' && fakes !== 'inline') {
    throw new Error(`BENCH_PUSH_FAKES must be 'process' or 'inline', got '${fakes}'`);
  }
  return {
    plan: {
      mobile: positiveInt('BENCH_PUSH_MOBILE') ?? 100_000,
      tma: positiveInt('BENCH_PUSH_TMA') ?? 5_000,
    },
    tmaWindowS: positiveInt('BENCH_PUSH_TMA_WINDOW_S') ?? 60,
    roundS: positiveInt('BENCH_PUSH_ROUND_S') ?? 2,
    warmupS: positiveInt('BENCH_WARMUP_S') ?? 2,
    idleRounds: positiveInt('BENCH_PUSH_IDLE_ROUNDS') ?? 3,
    maxPairs: positiveInt('BENCH_PUSH_MAX_PAIRS') ?? 60,
    timeoutS: positiveInt('BENCH_PUSH_TIMEOUT_S') ?? 600,
    fakes,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  };
}

interface CpuReading {
  readonly at: number;
  readonly service: number;
  readonly fakes: number;
  readonly postgres: number;
  readonly orchestrator: number;
  readonly machine: number;
  readonly softirq: number;
  readonly steal: number;
}

function cpuWindow(a: CpuReading, b: CpuReading): CpuWindow {
  const seconds = (b.at - a.at) / 1000;
  const cores = (key: keyof Omit<CpuReading, 'at'>) => (b[key] - a[key]) / seconds;
  const service = cores('service');
  const fakes = cores('fakes');
  const postgres = cores('postgres');
  const orchestrator = cores('orchestrator');
  const busy = cores('machine');
  const known = service + (Number.isNaN(fakes) ? 0 : fakes) + postgres + orchestrator;
  return {
    seconds,
    service,
    fakes,
    postgres,
    orchestrator,
    machine: busy,
    softirq: cores('softirq'),
    steal: cores('steal'),
    other: busy - known,
  };
}

// pg-boss keeps every job of a queue in pgboss.job (partitioned by queue); data carries the source id.
const JOB_STATS = `
  SELECT name, count(*)::int AS jobs,
    COALESCE(sum(jsonb_array_length(data->'devices')), 0)::int AS devices,
    COALESCE(min(jsonb_array_length(data->'devices')), 0)::int AS min_devices,
    COALESCE(max(jsonb_array_length(data->'devices')), 0)::int AS max_devices,
    count(*) FILTER (WHERE state = 'completed')::int AS completed,
    (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_on - started_on)) * 1000)::float8 AS run_p50_ms,
    (percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM completed_on - started_on)) * 1000)::float8 AS run_p90_ms,
    (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_on - created_on)) * 1000)::float8 AS wait_p50_ms,
    (percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM started_on - created_on)) * 1000)::float8 AS wait_p90_ms,
    (extract(epoch FROM min(created_on)) * 1000)::float8 AS first_created,
    (extract(epoch FROM max(created_on)) * 1000)::float8 AS last_created,
    (extract(epoch FROM max(completed_on)) * 1000)::float8 AS last_completed
  FROM pgboss.job WHERE data->>'sourceId' = $1 GROUP BY name ORDER BY name`;

async function jobStats(client: pg.Client, sourceId: string): Promise<JobStats[]> {
  const { rows } = await client.query<{
    name: string;
    jobs: number;
    devices: number;
    min_devices: number;
    max_devices: number;
    completed: number;
    run_p50_ms: number | null;
    run_p90_ms: number | null;
    wait_p50_ms: number | null;
    wait_p90_ms: number | null;
    first_created: number | null;
    last_created: number | null;
    last_completed: number | null;
  }>(JOB_STATS, [sourceId]);
  return rows.map((r) => ({
    queue: r.name,
    jobs: r.jobs,
    devices: r.devices,
    minDevices: r.min_devices,
    maxDevices: r.max_devices,
    completed: r.completed,
    runP50Ms: r.run_p50_ms,
    runP90Ms: r.run_p90_ms,
    waitP50Ms: r.wait_p50_ms,
    waitP90Ms: r.wait_p90_ms,
    firstCreatedAt: r.first_created,
    lastCreatedAt: r.last_created,
    lastCompletedAt: r.last_completed,
  }));
}

const FANOUT_RUNS = `
  SELECT id::text AS id, state::text AS state, retry_count,
    (extract(epoch FROM created_on) * 1000)::float8 AS created,
    (extract(epoch FROM started_on) * 1000)::float8 AS started,
    (extract(epoch FROM completed_on) * 1000)::float8 AS completed,
    left(COALESCE(output::text, ''), 300) AS output
  FROM pgboss.job WHERE name = 'push-fanout' AND data->>'sourceId' = $1 ORDER BY created_on, started_on`;

async function fanoutRuns(client: pg.Client, sourceId: string): Promise<FanoutRun[]> {
  const { rows } = await client.query<{
    id: string;
    state: string;
    retry_count: number;
    created: number;
    started: number | null;
    completed: number | null;
    output: string;
  }>(FANOUT_RUNS, [sourceId]);
  return rows.map((r) => ({
    id: r.id,
    state: r.state,
    retries: r.retry_count,
    createdAt: r.created,
    startedAt: r.started,
    completedAt: r.completed,
    output: r.output,
  }));
}

async function outcomes(client: pg.Client, sourceId: string): Promise<[string, number][]> {
  const { rows } = await client.query<{ key: string; n: number }>(
    `SELECT platform || ' ' || outcome AS key, count(*)::int AS n FROM push_deliveries
     WHERE source_id = $1 GROUP BY 1 ORDER BY 1`,
    [sourceId],
  );
  return rows.map((r) => [r.key, r.n]);
}

/**
 * `npm run bench -- push`: a post published with `notify` to 100,000 mobile devices and 5,000 mini-app
 * chats, through the real queue and workers, against the loopback FCM and Telegram in a process of their
 * own; then the same again while the chat poll and the bare route are measured.
 */
export async function benchPush(signal: AbortSignal): Promise<number> {
  const settings = settingsFromEnv();
  const { plan } = settings;
  return withTeardown(async (teardown) => {
    const logger = createLogger(settings.logLevel);
    say("push: an embedded PostgreSQL of the bench's own, with pg_stat_statements");
    const cluster = await startCluster(teardown, logger);
    // Read before the service loads the code, and again at the end: work going on in src meanwhile is not
    // what ran.
    const sourceAtStart = await sourceVersion(['src']);

    let fakesChild: Child | null = null;
    let fakesEnv: Record<string, string> = {};
    if (settings.fakes === 'process') {
      fakesChild = await forkChild(
        'push fakes',
        new URL('./push-fakes-process.ts', import.meta.url),
        {},
        teardown,
        signal,
      );
      fakesEnv = { BENCH_PUSH_FAKES_ENV: JSON.stringify(fakesReady.parse(fakesChild.ready).env) };
    }
    say(
      `push: the service (fakes: ${settings.fakes === 'process' ? 'their own process' : "the service's process"})`,
    );
    const serviceChild = await forkChild(
      'push service',
      new URL('./push-service-process.ts', import.meta.url),
      { DATABASE_URL: cluster.url, BENCH_PUSH_FAKES: settings.fakes, ...fakesEnv },
      teardown,
      signal,
    );
    const { base } = serviceReady.parse(serviceChild.ready);
    const fakes = (kind: string) => (fakesChild ? fakesChild.call(kind) : serviceChild.call(`fakes.${kind}`));

    const cpu = (): CpuReading => {
      const own = process.cpuUsage();
      return {
        at: performance.now(),
        service: processCpuSeconds(serviceChild.pid),
        fakes: fakesChild ? processCpuSeconds(fakesChild.pid) : Number.NaN,
        postgres: cluster.cpuSeconds(),
        orchestrator: (own.user + own.system) / 1e6,
        ...machineTimes(),
      };
    };

    say(`push: seeding ${plan.mobile} mobile and ${plan.tma} mini-app devices through the event store`);
    const seed = await seedDevices(cluster.url, cluster.client, plan, logger, signal);
    if (seed.rows.mobile !== plan.mobile || seed.rows.tma !== plan.tma) {
      throw new Error(`the devices view holds ${JSON.stringify(seed.rows)}, not ${JSON.stringify(plan)}`);
    }
    const settleS = await settleDatabase(cluster.client);
    say(
      `push: ${seed.users} registrations appended in ${seed.appendSeconds.toFixed(1)} s, projected within ` +
        `${seed.catchUpSeconds.toFixed(1)} s more; VACUUM (ANALYZE) and CHECKPOINT ${settleS.toFixed(1)} s`,
    );
    say('push: a support conversation to poll, a channel with two draft posts');
    const prep = prepared.parse(await serviceChild.call('prepare', 2));

    const round = async (key: string, target: 'hello' | 'poll304', seconds: number): Promise<PollRound> =>
      pollRound.parse(await serviceChild.call('round', { key, target, seconds }));
    const pair = async (key: string) => ({
      hello: await round(key, 'hello', settings.roundS),
      poll304: await round(key, 'poll304', settings.roundS),
    });
    const phaseOf = async (
      key: string,
      pairs: { hello: PollRound; poll304: PollRound }[],
      counted: boolean[],
      warmupFailures = 0,
    ): Promise<PollPhase> => ({
      pairs,
      counted,
      hello: latency.parse(await serviceChild.call('latency', { key, target: 'hello' })),
      poll304: latency.parse(await serviceChild.call('latency', { key, target: 'poll304' })),
      share: medianOf(
        pairs
          .filter((_, i) => counted[i])
          .map((p) => p.poll304.requestsPerSecond / p.hello.requestsPerSecond),
      ),
      failures: warmupFailures + pairs.reduce((sum, p) => sum + p.hello.failures + p.poll304.failures, 0),
    });

    say(
      `push: the bare route and the chat poll 304, idle: ${settings.warmupS} s warm-up each, ${settings.idleRounds} pairs of ${settings.roundS} s rounds`,
    );
    await serviceChild.call('windowOpen');
    const warmups = [
      await round('warmup', 'hello', settings.warmupS),
      await round('warmup', 'poll304', settings.warmupS),
    ];
    const idlePairs = [];
    for (let i = 0; i < settings.idleRounds; i++) idlePairs.push(await pair('idle'));
    const idle = await phaseOf(
      'idle',
      idlePairs,
      idlePairs.map(() => true),
      warmups.reduce((s, w) => s + w.failures, 0),
    );

    const idleMemory = pushWindow.parse(await serviceChild.call('windowClose'));
    const admin = { ...prep.admin, 'content-type': 'application/json' };
    const broadcast = async (postId: string, withPolls: boolean): Promise<BroadcastResult> => {
      await serviceChild.call('windowOpen');
      await fakes('begin');
      const statementsBefore = await readStatementTimes(cluster.client);
      const cpuBefore = cpu();
      const processesBefore = snapshotProcesses();
      const publishedAt = Date.now();
      await call(
        `${base}/admin/posts/${postId}/publish`,
        { method: 'POST', headers: admin, body: JSON.stringify({ notify: true }), signal },
        200,
      );
      const answeredAt = Date.now();
      const pairs: { hello: PollRound; poll304: PollRound }[] = [];
      let complete = false;
      for (;;) {
        if (Number(await fakes('fcmCount')) >= plan.mobile) {
          complete = true;
          break;
        }
        if (Date.now() - publishedAt > settings.timeoutS * 1000) break;
        if (withPolls && pairs.length < settings.maxPairs) pairs.push(await pair('during'));
        else await sleep(100, undefined, { signal });
      }
      const cpuAfter = cpu();
      const processesAfter = snapshotProcesses();
      const statementsAfter = await readStatementTimes(cluster.client);
      const memory = pushWindow.parse(await serviceChild.call('windowClose'));
      const trace = fcmTrace.parse(await fakes('fcmTrace'));
      const curve = deliveryCurve(trace.samples, plan.mobile, publishedAt);
      const doneAt = curve.doneAt;
      const counted = pairs.map((p) => doneAt !== null && p.poll304.endedAt <= doneAt);
      return {
        postId,
        sourceId: `post:${postId}`,
        publishedAt,
        answeredAt,
        complete,
        fcm: { firstAt: trace.firstAt, count: trace.count, curve },
        cpu: cpuWindow(cpuBefore, cpuAfter),
        others: otherWork(
          processesBefore,
          processesAfter,
          [process.pid],
          (cpuAfter.at - cpuBefore.at) / 1000,
        ),
        statements: statementWindow(statementsBefore, statementsAfter),
        memory,
        polls: withPolls ? await phaseOf('during', pairs, counted) : null,
      };
    };

    const [firstPost, secondPost] = prep.postIds;
    if (firstPost === undefined || secondPost === undefined) throw new Error('prepare made no posts');
    say(
      `push: broadcast 1 (nothing else running): publishing with notify to ${plan.mobile + plan.tma} devices`,
    );
    const quiet = await broadcast(firstPost, false);
    say(
      `push: broadcast 1: ${quiet.fcm.count} FCM sends, steady ${quiet.fcm.curve.steadyPerSecond?.toFixed(0) ?? '-'} /s, ` +
        `first after ${quiet.fcm.firstAt === null ? '-' : quiet.fcm.firstAt - quiet.publishedAt} ms`,
    );
    const windowEnd = quiet.publishedAt + settings.tmaWindowS * 1000;
    if (Date.now() < windowEnd) {
      say(`push: waiting for the end of the ${settings.tmaWindowS} s mini-app window`);
      await sleep(windowEnd - Date.now(), undefined, { signal });
    }
    const telegramAtWindow = telegramTrace.parse(await fakes('telegramTrace'));

    say(
      'push: broadcast 2, with the bare route and the chat poll 304 measured in alternating rounds while it runs',
    );
    const loaded = await broadcast(secondPost, true);
    say(
      `push: broadcast 2: ${loaded.fcm.count} FCM sends, steady ${loaded.fcm.curve.steadyPerSecond?.toFixed(0) ?? '-'} /s, ` +
        `${loaded.polls?.pairs.length ?? 0} pairs of rounds`,
    );
    const telegram = telegramTrace.parse(await fakes('telegramTrace'));
    const run: PushRun = {
      date: new Date(),
      machine: machine(),
      source: sourceAtStart,
      sourceChanged: (await sourceVersion(['src'])).digest !== sourceAtStart.digest,
      postgres: cluster.version,
      settings,
      prep,
      seed: { ...seed, settleSeconds: settleS },
      idle,
      idleMemory,
      quiet,
      loaded,
      jobs: {
        quiet: await jobStats(cluster.client, quiet.sourceId),
        loaded: await jobStats(cluster.client, loaded.sourceId),
      },
      fanouts: {
        quiet: await fanoutRuns(cluster.client, quiet.sourceId),
        loaded: await fanoutRuns(cluster.client, loaded.sourceId),
      },
      outcomes: {
        quiet: await outcomes(cluster.client, quiet.sourceId),
        loaded: await outcomes(cluster.client, loaded.sourceId),
      },
      telegram: {
        window: telegramWindow(telegramAtWindow.messages, quiet.publishedAt, windowEnd),
        whole: telegramWindow(telegram.messages, quiet.publishedAt, Date.now() + 1),
        fakePeak: telegram.peak,
      },
    };
    const checks = pushVerdicts(run);
    await writeReport(REPORT_FILE, renderPushMarkdown(run, checks), pushSummary(run, checks));
    const problems = pushFailures(run);
    for (const problem of problems) process.stderr.write(`bench: ${problem}\n`);
    return problems.length === 0 ? 0 : 1;
  });
}
