import type { Machine } from './machine.ts';
import type { PollRound, Prepared, PushWindow } from './push-messages.ts';
import type { OtherWork } from './push-proc.ts';
import type { PushSettings } from './push.ts';
import type { StatementUse, StatementWindow } from './push-sql.ts';
import type { DeliveryCurve, TelegramWindow } from './push-stats.ts';
import { fixed, percent, targetLines, targetsSection, type Verdict } from './report.ts';
import type { SourceVersion } from './source.ts';

export interface CpuWindow {
  readonly seconds: number;
  /** Cores (CPU seconds per wall second) of each. */
  readonly service: number;
  /** NaN when the fakes run in the service's process. */
  readonly fakes: number;
  readonly postgres: number;
  readonly orchestrator: number;
  readonly machine: number;
  /** Of `machine`: the kernel's softirq time (loopback networking, mostly; counted to no process). */
  readonly softirq: number;
  /** Time the hypervisor gave to other guests (not in `machine`). */
  readonly steal: number;
  /** The machine's busy time less the processes above: softirq, kernel threads, other processes. */
  readonly other: number;
}

export interface PollPhase {
  readonly pairs: readonly { readonly hello: PollRound; readonly poll304: PollRound }[];
  /** Whether each pair counts (during a broadcast: both its rounds ended before the last mobile delivery). */
  readonly counted: readonly boolean[];
  readonly hello: { readonly p50Ms: number; readonly p99Ms: number };
  readonly poll304: { readonly p50Ms: number; readonly p99Ms: number };
  /** Median over the counted pairs of poll 304 req/s / hello req/s. */
  readonly share: number;
  readonly failures: number;
}

export interface BroadcastResult {
  readonly postId: string;
  readonly sourceId: string;
  readonly publishedAt: number;
  readonly answeredAt: number;
  /** Every mobile device reached the FCM fake before the timeout. */
  readonly complete: boolean;
  readonly fcm: { readonly firstAt: number | null; readonly count: number; readonly curve: DeliveryCurve };
  readonly cpu: CpuWindow;
  /** Processes outside the bench's during the window (tests, builds; kernel threads). */
  readonly others: OtherWork;
  readonly statements: StatementWindow;
  readonly memory: PushWindow;
  readonly polls: PollPhase | null;
}

export interface JobStats {
  readonly queue: string;
  readonly jobs: number;
  readonly devices: number;
  readonly minDevices: number;
  readonly maxDevices: number;
  readonly completed: number;
  readonly runP50Ms: number | null;
  readonly runP90Ms: number | null;
  readonly waitP50Ms: number | null;
  readonly waitP90Ms: number | null;
  readonly firstCreatedAt: number | null;
  readonly lastCreatedAt: number | null;
  readonly lastCompletedAt: number | null;
}

/** One row of the fan-out queue for the source. */
export interface FanoutRun {
  readonly id: string;
  readonly state: string;
  readonly retries: number;
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly completedAt: number | null;
  readonly output: string;
}

export interface PushRun {
  readonly date: Date;
  readonly machine: Machine;
  /** The code as the run started. */
  readonly source: SourceVersion;
  /** src changed on disk during the run (the service had loaded it at the start). */
  readonly sourceChanged: boolean;
  readonly postgres: string;
  readonly settings: PushSettings;
  readonly prep: Prepared;
  readonly seed: {
    readonly users: number;
    readonly appendSeconds: number;
    readonly catchUpSeconds: number;
    readonly settleSeconds: number;
  };
  readonly idle: PollPhase;
  /** The service's memory over the idle poll rounds (warm-up included). */
  readonly idleMemory: PushWindow;
  /** Broadcast 1: nothing else running. */
  readonly quiet: BroadcastResult;
  /** Broadcast 2: the poll rounds running. */
  readonly loaded: BroadcastResult;
  readonly jobs: { readonly quiet: readonly JobStats[]; readonly loaded: readonly JobStats[] };
  readonly fanouts: { readonly quiet: readonly FanoutRun[]; readonly loaded: readonly FanoutRun[] };
  readonly outcomes: {
    readonly quiet: readonly (readonly [string, number])[];
    readonly loaded: readonly (readonly [string, number])[];
  };
  readonly telegram: {
    /** Broadcast 1's first `tmaWindowS` seconds. */
    readonly window: TelegramWindow;
    /** From broadcast 1's publish to the end of the run (both broadcasts' chats). */
    readonly whole: TelegramWindow;
    /** The fake's own `peakRates()` over everything it answered 200. */
    readonly fakePeak: { readonly overall: number; readonly perChat: number };
  };
}

const FCM_PER_SECOND = 5_000;
const TELEGRAM_OVERALL = 30;
const TELEGRAM_PER_CHAT = 1;
const RSS_GROWTH_MIB = 150;
const FIRST_MS = 2_000;
const POLL_SHARE = 0.5;

const MiB = 2 ** 20;
const mib = (bytes: number) => `${fixed(bytes / MiB, 0)} MiB`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number | null) => (n === null ? '–' : `${fixed(n, 0)} ms`);
const seconds = (n: number | null) => (n === null ? '–' : `${fixed(n / 1000, 1)} s`);
const firstMs = (b: BroadcastResult) => (b.fcm.firstAt === null ? null : b.fcm.firstAt - b.publishedAt);
const totalMs = (b: BroadcastResult) =>
  b.fcm.curve.doneAt === null ? null : b.fcm.curve.doneAt - b.publishedAt;
const growth = (b: BroadcastResult) => b.memory.peakRssBytes - b.memory.baselineRssBytes;
const mobileJobs = (jobs: readonly JobStats[]) => jobs.find((j) => j.queue === 'push-mobile');
const sent = (outcomes: readonly (readonly [string, number])[], key: string) =>
  outcomes.find(([k]) => k === key)?.[1] ?? 0;

export function pushVerdicts(run: PushRun): Verdict[] {
  const steady = run.quiet.fcm.curve.steadyPerSecond;
  const first = firstMs(run.quiet);
  const { whole } = run.telegram;
  const during = run.loaded.polls;
  const counted = during?.counted.filter(Boolean).length ?? 0;
  return [
    {
      target: `FCM deliveries >= ${int(FCM_PER_SECOND)}/s sustained (10 %–90 % of the ${int(run.settings.plan.mobile)} mobile devices, broadcast 1)`,
      actual: steady === null ? 'not reached' : `${int(steady)}/s`,
      pass: steady !== null && steady >= FCM_PER_SECOND,
    },
    {
      target: `Telegram <= ${TELEGRAM_OVERALL} messages in any second overall, <= ${TELEGRAM_PER_CHAT} per chat (the whole run)`,
      actual: `${whole.peakOverall} overall, ${whole.peakPerChat} per chat`,
      pass: whole.peakOverall <= TELEGRAM_OVERALL && whole.peakPerChat <= TELEGRAM_PER_CHAT && whole.sent > 0,
    },
    {
      target: `service RSS growth < ${RSS_GROWTH_MIB} MiB during broadcast 1 (peak − baseline after a full GC)`,
      actual: mib(growth(run.quiet)),
      pass: growth(run.quiet) < RSS_GROWTH_MIB * MiB,
    },
    {
      target: `first device notified < ${fixed(FIRST_MS / 1000, 0)} s after the publish request (broadcast 1)`,
      actual: ms(first),
      pass: first !== null && first < FIRST_MS,
    },
    {
      target: `chat poll 304 req/s >= ${POLL_SHARE * 100} % of the bare route's while the broadcast runs (broadcast 2, median of ${counted} pairs)`,
      actual: during && counted > 0 ? percent(during.share) : 'no pair inside the broadcast',
      pass: during !== null && counted > 0 && during.share >= POLL_SHARE,
    },
  ];
}

/** What makes the run's numbers untrustworthy: each makes the command exit 1. */
export function pushFailures(run: PushRun): string[] {
  const problems: string[] = [];
  const { mobile } = run.settings.plan;
  for (const [name, b, outcomes] of [
    ['broadcast 1', run.quiet, run.outcomes.quiet],
    ['broadcast 2', run.loaded, run.outcomes.loaded],
  ] as const) {
    if (!b.complete)
      problems.push(`${name}: ${b.fcm.count} of ${mobile} mobile devices reached FCM within the timeout`);
    const mobileSent = sent(outcomes, 'mobile sent');
    if (mobileSent !== mobile)
      problems.push(`${name}: ${mobileSent} mobile deliveries recorded as sent, not ${mobile}`);
  }
  const pollFailures = run.idle.failures + (run.loaded.polls?.failures ?? 0);
  if (pollFailures > 0)
    problems.push(
      `${pollFailures} unexpected poll responses (not 304; non-2xx for hello), errors or timeouts`,
    );
  if ((run.loaded.polls?.counted.filter(Boolean).length ?? 0) === 0)
    problems.push('no pair of poll rounds fell inside broadcast 2');
  return problems;
}

const othersText = (o: OtherWork) =>
  o.top.length === 0 ? 'none' : o.top.map(([comm, cores]) => `${comm} ${fixed(cores)}`).join(', ');

function cpuRows(label: string, b: BroadcastResult): string {
  const c = b.cpu;
  const f = (n: number) => (Number.isNaN(n) ? '(in the service)' : fixed(n));
  return `| ${label} | ${fixed(c.seconds, 1)} s | ${fixed(c.service)} | ${f(c.fakes)} | ${fixed(c.postgres)} | ${fixed(c.orchestrator)} | ${fixed(c.machine)} | ${fixed(b.others.cores)} (${othersText(b.others)}) | ${fixed(c.other - b.others.cores)} | ${fixed(c.softirq)} | ${fixed(c.steal)} |`;
}

function broadcastRows(b: BroadcastResult, mobile: number, jobs: readonly JobStats[]): string[] {
  const c = b.fcm.curve;
  const total = totalMs(b);
  const batches = mobileJobs(jobs)?.jobs ?? 0;
  return [
    `| publish request answered | ${ms(b.answeredAt - b.publishedAt)} |`,
    `| publish → first message at the FCM fake | ${ms(firstMs(b))} |`,
    `| FCM deliveries, steady state (10 % → 90 %) | ${c.steadyPerSecond === null ? '–' : `${int(c.steadyPerSecond)}/s`} (${seconds(c.at10 === null ? null : c.at10 - b.publishedAt)} → ${seconds(c.at90 === null ? null : c.at90 - b.publishedAt)} after the publish) |`,
    `| publish → all ${int(mobile)} mobile devices at the fake | ${seconds(total)} (${total === null ? '–' : `${int(mobile / (total / 1000))}/s`} on average) |`,
    `| busiest second | ${int(c.peakSecond)} |`,
    `| send requests at the FCM fake | ${int(b.fcm.count)} |`,
    `| mobile jobs (FCM batches) | ${batches} |`,
    `| service RSS: baseline (after a full GC) → peak (growth) | ${mib(b.memory.baselineRssBytes)} → ${mib(b.memory.peakRssBytes)} (${mib(growth(b))}) |`,
    `| service RSS at the end; heap used baseline → end (→ after a full GC) | ${mib(b.memory.endRssBytes)}; ${mib(b.memory.baselineHeapUsedBytes)} → ${mib(b.memory.endHeapUsedBytes)} (→ ${mib(b.memory.endHeapAfterGcBytes)}) |`,
    `| service event loop delay p99 / max | ${b.memory.loopDelayP99Ms === null ? '–' : `${fixed(b.memory.loopDelayP99Ms, 1)} ms / ${fixed(b.memory.loopDelayMaxMs ?? 0, 1)} ms`} |`,
  ];
}

const perSecondLine = (b: BroadcastResult) =>
  `FCM deliveries in each second after the publish: ${b.fcm.curve.perSecond.map(int).join(', ')}`;

function jobsTable(jobs: readonly JobStats[], publishedAt: number): string[] {
  const opt = (n: number | null) => (n === null ? '–' : fixed(n, 0));
  return [
    '| queue | jobs | devices | per job min–max | completed | run p50 / p90 (ms) | wait p50 / p90 (ms) | last created / last completed (after the publish) |',
    '|---|---:|---:|---|---:|---|---|---|',
    ...jobs.map(
      (j) =>
        `| ${j.queue} | ${j.jobs} | ${int(j.devices)} | ${j.minDevices}–${j.maxDevices} | ${j.completed} | ${opt(j.runP50Ms)} / ${opt(j.runP90Ms)} | ${opt(j.waitP50Ms)} / ${opt(j.waitP90Ms)} | ${seconds(j.lastCreatedAt === null ? null : j.lastCreatedAt - publishedAt)} / ${seconds(j.lastCompletedAt === null ? null : j.lastCompletedAt - publishedAt)} |`,
    ),
  ];
}

function fanoutLines(runs: readonly FanoutRun[], publishedAt: number): string[] {
  const at = (t: number | null) => (t === null ? '–' : `${fixed((t - publishedAt) / 1000, 1)} s`);
  return [
    `Fan-out jobs of the source (${runs.length}; id, state, retries, created / started / completed after the publish, output):`,
    '',
    ...runs.map(
      (r) =>
        `- \`${r.id.slice(0, 8)}\` ${r.state}, ${r.retries} retries, ${at(r.createdAt)} / ${at(r.startedAt)} / ${at(r.completedAt)}${r.output === '' ? '' : `: \`${r.output.replace(/\s+/g, ' ')}\``}`,
    ),
  ];
}

function statementsSection(b: BroadcastResult, jobs: readonly JobStats[]): string[] {
  const batches = mobileJobs(jobs)?.jobs ?? 0;
  const per = (n: number) => (batches === 0 ? '–' : fixed(n / batches, 1));
  const row = (s: StatementUse) =>
    `| ${int(s.calls)} | ${per(s.calls)} | ${fixed(s.ms, 0)} | ${fixed(s.ms / s.calls, 2)} | \`${s.query.replace(/\|/g, '\\|')}\` |`;
  const header = [
    '| calls | per mobile batch | total ms | ms per call | statement |',
    '|---:|---:|---:|---:|---|',
  ];
  return [
    `Every top-level statement of the service's database in pg_stat_statements (the bench's own readings excluded) from the publish until the last mobile device reached the fake: ${int(b.statements.total)} statements, ${per(b.statements.total)} per mobile batch (${batches} batches), ${fixed(b.statements.totalMs / 1000, 1)} s of execution inside PostgreSQL. The fan-out, the messenger jobs of that window, pg-boss's own fetches and maintenance, and the projections are in the total.`,
    '',
    'Most called:',
    '',
    ...header,
    ...b.statements.top.map(row),
    '',
    'Most execution time:',
    '',
    ...header,
    ...b.statements.slowest.map(row),
  ];
}

function pollTable(idle: PollPhase, during: PollPhase): string[] {
  const rps = (p: PollPhase, t: 'hello' | 'poll304') =>
    p.pairs.map((pair, i) => `${fixed(pair[t].requestsPerSecond, 0)}${p.counted[i] ? '' : '*'}`).join(', ');
  const median = (p: PollPhase, t: 'hello' | 'poll304') => {
    const values = p.pairs.filter((_, i) => p.counted[i]).map((pair) => pair[t].requestsPerSecond);
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length === 0
      ? Number.NaN
      : sorted.length % 2
        ? (sorted[mid] ?? 0)
        : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  };
  const shares = (p: PollPhase) =>
    p.pairs
      .map(
        (pair, i) =>
          `${percent(pair.poll304.requestsPerSecond / pair.hello.requestsPerSecond)}${p.counted[i] ? '' : '*'}`,
      )
      .join(', ');
  return [
    '| | idle (before any broadcast) | during broadcast 2 |',
    '|---|---:|---:|',
    `| hello req/s (median round) | ${fixed(median(idle, 'hello'), 0)} | ${fixed(median(during, 'hello'), 0)} |`,
    `| poll 304 req/s (median round) | ${fixed(median(idle, 'poll304'), 0)} | ${fixed(median(during, 'poll304'), 0)} |`,
    `| poll 304 / hello (median of the pairs' ratios) | ${percent(idle.share)} | ${percent(during.share)} |`,
    `| hello req/s by round | ${rps(idle, 'hello')} | ${rps(during, 'hello')} |`,
    `| poll 304 req/s by round | ${rps(idle, 'poll304')} | ${rps(during, 'poll304')} |`,
    `| share by pair | ${shares(idle)} | ${shares(during)} |`,
    `| hello latency p50 / p99 | ${fixed(idle.hello.p50Ms)} / ${fixed(idle.hello.p99Ms)} ms | ${fixed(during.hello.p50Ms)} / ${fixed(during.hello.p99Ms)} ms |`,
    `| poll 304 latency p50 / p99 | ${fixed(idle.poll304.p50Ms)} / ${fixed(idle.poll304.p99Ms)} ms | ${fixed(during.poll304.p50Ms)} / ${fixed(during.poll304.p99Ms)} ms |`,
    `| unexpected responses, errors, timeouts | ${idle.failures} (warm-up included) | ${during.failures} |`,
  ];
}

function telegramRows(run: PushRun): string[] {
  const { window: w, whole } = run.telegram;
  const rate = (t: TelegramWindow) => (t.ratePerSecond === null ? '–' : `${fixed(t.ratePerSecond, 1)}/s`);
  return [
    '| | broadcast 1, first window | whole run (both broadcasts) |',
    '|---|---:|---:|',
    `| messages answered 200 | ${int(w.sent)} | ${int(whole.sent)} |`,
    `| other answers | ${w.other} | ${whole.other} |`,
    `| publish → first message | ${ms(w.firstAt === null ? null : w.firstAt - run.quiet.publishedAt)} | |`,
    `| rate, first to last message | ${rate(w)} | ${rate(whole)} |`,
    `| most messages in any 1,000 ms | ${w.peakOverall} | ${whole.peakOverall} |`,
    `| most messages to one chat in any 1,000 ms | ${w.peakPerChat} | ${whole.peakPerChat} |`,
    `| chats messaged more than once | ${w.chatsMessagedTwice} | ${whole.chatsMessagedTwice} |`,
    `| longest time without a message (first to last) | ${ms(w.longestGapMs)} | ${ms(whole.longestGapMs)} |`,
    '',
    `Broadcast 1's messages in each 5 s after its publish: ${w.perFiveSeconds.join(', ')}.`,
  ];
}

export function renderPushMarkdown(run: PushRun, checks: readonly Verdict[]): string {
  const { settings, prep, machine: m, quiet, loaded } = run;
  const { mobile, tma } = settings.plan;
  const problems = pushFailures(run);
  const during = loaded.polls;
  const window = `${settings.tmaWindowS} s`;
  return [
    '# Push broadcast benchmark',
    '',
    'Written by `npm run bench -- push` (bench/run.ts); overwritten on every run. How it works: bench/README.md, "Push broadcast".',
    '',
    `- Date: ${run.date.toISOString()}`,
    `- Machine: ${m.cpuCount} × ${m.cpuModel}, ${m.memoryGiB} GiB; Node ${m.node}`,
    `- Code: commit ${run.source.commit}, src digest ${run.source.digest}` +
      (run.sourceChanged
        ? ' **(src changed on disk during the run; the digest is the one the service loaded)**'
        : '') +
      (run.source.uncommitted.length > 0
        ? ` (${run.source.uncommitted.length} uncommitted files under src measured)`
        : ''),
    `- PostgreSQL ${run.postgres}, embedded, the bench's own cluster with pg_stat_statements; service pool size ${prep.poolSize ?? 'slonik default'}, LOG_LEVEL ${settings.logLevel}`,
    `- Service: the real app with production settings (push-service.ts, as startService): PUSH_WORKERS ${prep.pushWorkers}, MESSENGER_MESSAGES_PER_SECOND ${prep.messengerPerSecond}, pg-boss queue on the same database, no Redis`,
    `- Processes: the orchestrator (seeding, publishing, readings), the service (with the bare route, the Intercom sandbox and the poll's autocannon, as in the chat bench), ${settings.fakes === 'process' ? 'the loopback FCM and Telegram in a process of their own' : "the loopback FCM and Telegram **inside the service's process** (BENCH_PUSH_FAKES=inline)"}, PostgreSQL`,
    `- Audience: ${int(mobile)} users with one mobile device each and ${int(tma)} with one mini-app (tma) device each, spread through the user ids; ${int(run.seed.users)} \`deviceRegistered\` events appended through the event store in ${fixed(run.seed.appendSeconds, 1)} s, projected ${fixed(run.seed.catchUpSeconds, 1)} s later, then VACUUM (ANALYZE) and CHECKPOINT (${fixed(run.seed.settleSeconds, 1)} s)`,
    `- Two broadcasts, each a post published through \`POST /admin/posts/:id/publish\` \`{ "notify": true }\`: broadcast 1 with nothing else running (FCM rate, first device, RSS, CPU, SQL; its mini-app sends are read over its first ${window}, then the bench moves on while they go on at their pace); broadcast 2 while the bare route and the chat poll 304 are measured in alternating rounds of ${settings.roundS} s at ${prep.pollConnections} connections`,
    quiet.others.cores > 0.1 || loaded.others.cores > 0.1
      ? `- **Other work shared the machine: ${fixed(quiet.others.cores)} cores during broadcast 1 (${othersText(quiet.others)}), ${fixed(loaded.others.cores)} during broadcast 2 (${othersText(loaded.others)}); the numbers are low by that much.**`
      : `- Other processes on the machine stayed under 0.1 cores (${fixed(quiet.others.cores)} during broadcast 1, ${fixed(loaded.others.cores)} during broadcast 2).`,
    problems.length === 0
      ? '- The run is valid: every mobile device was reached and recorded as sent, every poll answered as expected.'
      : `- **INVALID RUN: ${problems.join('; ')}.**`,
    '',
    ...targetsSection(checks),
    '',
    '## Broadcast 1: nothing else running',
    '',
    '| Metric | Value |',
    '|---|---:|',
    ...broadcastRows(quiet, mobile, run.jobs.quiet),
    '',
    perSecondLine(quiet),
    '',
    '### Jobs (pg-boss, this source)',
    '',
    ...jobsTable(run.jobs.quiet, quiet.publishedAt),
    '',
    "Run: from a worker taking the job to its completion. Wait: from the job's creation to a worker taking it.",
    '',
    ...fanoutLines(run.fanouts.quiet, quiet.publishedAt),
    '',
    "### CPU (cores: CPU seconds over the window's wall time, from /proc)",
    '',
    '| window | length | service | fakes | PostgreSQL | orchestrator | machine busy | other processes (busiest) | kernel, unattributed | of which softirq | steal |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|',
    cpuRows('broadcast 1: publish → last mobile device', quiet),
    cpuRows('broadcast 2 (with the poll rounds)', loaded),
    '',
    "Machine busy: user, system, irq and softirq time of both CPUs from /proc/stat (2.00 is everything). Other processes: every process outside the bench's (kernel threads included), by command; a process that ended meanwhile is counted through its parent. Kernel, unattributed: the busy time no process accounts for (softirq, the loopback TCP of every FCM request and query, among it).",
    '',
    '### SQL',
    '',
    ...statementsSection(quiet, run.jobs.quiet),
    '',
    `## Mini-app (Telegram): broadcast 1's first ${window}, and the whole run`,
    '',
    `${int(tma)} chats at MESSENGER_MESSAGES_PER_SECOND ${prep.messengerPerSecond} take about ${fixed(tma / prep.messengerPerSecond / 60, 1)} min, longer than the bench waits: the first column reads broadcast 1's first ${window}; the second everything the fake answered from broadcast 1's publish to the end of the run (broadcast 2's chats queue behind broadcast 1's). The fake's own \`peakRates()\` over everything it answered 200: ${run.telegram.fakePeak.overall} overall, ${run.telegram.fakePeak.perChat} per chat.`,
    '',
    ...telegramRows(run),
    '',
    '## Broadcast 2: the chat poll while the broadcast runs',
    '',
    `\`GET /api/conversations/:id\` with \`If-None-Match\` (every answer a 304; one user's conversation of ${prep.chat.messages} messages, warm cache) against the bare \`GET /hello\`, both in the service's process with autocannon, as in the chat bench. Idle: ${settings.warmupS} s warm-up each, then ${settings.idleRounds} pairs of rounds before any broadcast. During: pairs of rounds (hello, then poll 304) from the publish until the last mobile device reached the fake; a pair counts when it ended before that (rounds marked * did not and are left out of the medians and the share).`,
    '',
    ...(during ? pollTable(run.idle, during) : ['(no rounds)']),
    '',
    `Service RSS over the idle rounds (warm-up included): ${mib(run.idleMemory.baselineRssBytes)} after a full GC → peak ${mib(run.idleMemory.peakRssBytes)} (${mib(run.idleMemory.peakRssBytes - run.idleMemory.baselineRssBytes)}): what autocannon and the polls alone take, for comparison with broadcast 2's growth below.`,
    '',
    'The broadcast under that load:',
    '',
    '| Metric | Value |',
    '|---|---:|',
    ...broadcastRows(loaded, mobile, run.jobs.loaded),
    '',
    perSecondLine(loaded),
    '',
    ...jobsTable(run.jobs.loaded, loaded.publishedAt),
    '',
    '## Delivery outcomes (push_deliveries, at the end of the run)',
    '',
    '| source | outcomes |',
    '|---|---|',
    `| broadcast 1 (${quiet.sourceId}) | ${run.outcomes.quiet.map(([k, n]) => `${k}: ${int(n)}`).join(', ')} |`,
    `| broadcast 2 (${loaded.sourceId}) | ${run.outcomes.loaded.map(([k, n]) => `${k}: ${int(n)}`).join(', ')} |`,
    '',
    `Mini-app deliveries still \`queued\` at the end are the ones the bench did not wait for (${window} window).`,
    '',
  ].join('\n');
}

export function pushSummary(run: PushRun, checks: readonly Verdict[]): string[] {
  return [
    `broadcast 1: first FCM message ${ms(firstMs(run.quiet))} after the publish, steady ${run.quiet.fcm.curve.steadyPerSecond === null ? '-' : int(run.quiet.fcm.curve.steadyPerSecond)}/s, all mobile in ${seconds(totalMs(run.quiet))}; RSS growth ${mib(growth(run.quiet))}; cores: service ${fixed(run.quiet.cpu.service)}, fakes ${fixed(run.quiet.cpu.fakes)}, PostgreSQL ${fixed(run.quiet.cpu.postgres)}`,
    `telegram: ${run.telegram.window.sent} messages in the first ${run.settings.tmaWindowS} s (${run.telegram.window.ratePerSecond === null ? '-' : fixed(run.telegram.window.ratePerSecond, 1)}/s), peak ${run.telegram.whole.peakOverall}/s overall, ${run.telegram.whole.peakPerChat}/s per chat`,
    `broadcast 2: steady ${run.loaded.fcm.curve.steadyPerSecond === null ? '-' : int(run.loaded.fcm.curve.steadyPerSecond)}/s under the poll rounds; poll 304 / hello ${run.loaded.polls ? percent(run.loaded.polls.share) : '-'} (idle ${percent(run.idle.share)})`,
    ...targetLines(checks),
  ];
}
