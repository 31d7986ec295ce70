import type { ServiceWindow } from './fleet-messages.ts';
import type { Measured } from './fleet-phases.ts';
import { DEFAULT_INTERVAL_MS, nominalPollRate, POLL_ROUTES, WRITES } from './fleet-shape.ts';
import type { Latency, StepResult } from './fleet-stats.ts';
import { pollsAnswered, serverCores, type Step, type StepVerdict } from './fleet-verdicts.ts';
import { fixed, percent } from './report.ts';

/** Markdown tables of one measured window: per route, per write, resources, statements. */

export const ms = (n: number | null) => (n === null ? '–' : `${fixed(n, n < 10 ? 2 : 1)} ms`);
export const mib = (bytes: number) => `${fixed(bytes / 2 ** 20, 0)} MiB`;
const counts = (statuses: Readonly<Record<string, number>>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ') || '–';
const lat = (l: Latency) => `${ms(l.p50Ms)} | ${ms(l.p95Ms)} | ${ms(l.p99Ms)} | ${ms(l.maxMs)}`;

export function pollTable(step: StepResult): string[] {
  const rows = POLL_ROUTES.filter((r) => step.polls[r].scheduled > 0).map((route) => {
    const p = step.polls[route];
    const share = p.scheduled === 0 ? 1 : p.answered / p.scheduled;
    return (
      `| ${route} | ${p.scheduled} | ${p.answered} (${percent(share)}) | ${p.skipped} | ${p.unanswered} | ` +
      `${counts(p.statuses)}${p.errorsOutside > 0 ? `; outside the window: ${p.errorsOutside} errors` : ''} | ` +
      `${p.slowed}${p.slowed > 0 ? ` (up to ${p.maxIntervalMs} ms)` : ''} | ${lat(p.latency)} |`
    );
  });
  return [
    '| poll | scheduled | answered 200/304 | skipped (previous in flight) | unanswered | statuses | answers raising X-Poll-Interval | p50 | p95 | p99 | max |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

export function writeTable(step: StepResult): string[] {
  const rows = WRITES.filter((w) => step.writes[w].sent > 0).map((kind) => {
    const w = step.writes[kind];
    return (
      `| ${kind} | ${w.sent} (${fixed(w.sent / step.windowS, 1)}/s) | ${counts(w.statuses)}` +
      `${w.errorsOutside > 0 ? `; outside the window: ${w.errorsOutside} errors` : ''} | ${lat(w.latency)} |`
    );
  });
  return [
    '| write | sent | statuses | p50 | p95 | p99 | max |',
    '|---|---:|---|---:|---:|---:|---:|',
    ...rows,
  ];
}

/** Provider calls per minute of the window; null when the sandbox trimmed its list. */
export const providerPerMinute = (m: Measured) =>
  m.service.providerCalls === null ? null : (m.service.providerCalls / m.seconds) * 60;

function sqlLine(m: Measured, polls: number | null): string {
  const parts = [
    `- SQL statements: ${m.statements.total} (${fixed((m.statements.total / m.seconds) * 60, 0)}/min)`,
  ];
  if (polls !== null && polls > 0) {
    parts.push(`${fixed(m.statements.total / polls)} per answered poll (${polls} polls)`);
  }
  return parts.join(', ');
}

/**
 * The bound under which a share `q` of the window's requests stayed inside the service: the first bucket
 * that holds it, so "≤ 25 ms" means between the bucket below and 25 ms. Null without requests.
 */
function inServiceBound(buckets: ServiceWindow['inService'], q: number): string | null {
  const total = buckets.find(([le]) => le === null)?.[1] ?? 0;
  if (total === 0) return null;
  const hit = buckets.find(([, n]) => n >= q * total);
  const le = hit?.[0] ?? null;
  return le === null ? `over ${ms(1000 * Math.max(...buckets.map(([b]) => b ?? 0)))}` : `≤ ${ms(le * 1000)}`;
}

function inServiceLine(m: Measured): string[] {
  const p50 = inServiceBound(m.service.inService, 0.5);
  const p99 = inServiceBound(m.service.inService, 0.99);
  if (p50 === null || p99 === null) return [];
  return [
    `- Time inside the service (Fastify's elapsed time, every route, from the service's own histogram): ` +
      `p50 ${p50}, p99 ${p99}; a client's wait beyond that was spent before its request reached the service's ` +
      `router (a free connection of the generator, the sockets, the event loop's turn)`,
  ];
}

export function resourceLines(m: Measured, polls: number | null): string[] {
  const perMinute = providerPerMinute(m);
  const kinds = m.service.providerByKind
    .slice(0, 6)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return [
    `- CPU (cores over ${fixed(m.seconds, 1)} s): service ${fixed(m.cores.service)}, PostgreSQL ${fixed(m.cores.postgres)} ` +
      `(service + PostgreSQL ${fixed(serverCores(m))}), generator ${fixed(m.cores.generator)}` +
      (m.cores.baseline === null ? '' : `, trivial server ${fixed(m.cores.baseline)}`) +
      `; everything else on the machine ${fixed(m.cores.others)}`,
    sqlLine(m, polls),
    `- Provider calls: ${perMinute === null ? 'unknown (the sandbox trimmed its call list)' : `${m.service.providerCalls ?? 0} (${fixed(perMinute, 0)}/min)`}` +
      (kinds === '' ? '' : `; ${kinds}`),
    `- Service memory: RSS ${mib(m.service.rssBytes)} at the end (peak ${mib(m.service.rssPeakBytes)}), heap used ${mib(m.service.heapUsedBytes)}`,
    (m.service.loopDelayMaxMs === null
      ? '- Service event loop: not sampled in this window (the sampler would cost more than idle may)'
      : `- Service event loop: delay p99 ${ms(m.service.loopDelayP99Ms)}, max ${ms(m.service.loopDelayMaxMs)}`) +
      (m.scrape === null
        ? ''
        : `; one GET /metrics took ${ms(m.scrape.ms)} (${fixed(m.scrape.bytes / 1024, 0)} KiB)`),
    ...inServiceLine(m),
  ];
}

export function statementTable(m: Measured): string[] {
  return [
    '| calls | statement |',
    '|---:|---|',
    ...m.statements.top.map(
      (s) => `| ${s.calls} | \`${s.query.replace(/\|/g, '\\|').replace(/`/g, "'")}\` |`,
    ),
  ];
}

export function generatorLine(step: StepResult): string {
  const g = step.generator;
  return (
    `- Generator: event-loop delay p99 ${ms(g.loopDelayP99Ms)}, max ${ms(g.loopDelayMaxMs)}; ` +
    `sends late by p99 ${ms(g.lateP99Ms)}, max ${ms(g.lateMaxMs)} (5 ms tick included); at most ${g.inFlightMax} requests open`
  );
}

/** The slowest poll route's p99, in milliseconds. */
export const worstP99 = (step: StepResult) =>
  Math.max(...POLL_ROUTES.map((r) => step.polls[r].latency.p99Ms));

/** Polls answered over polls scheduled in the window. */
export function answeredShare(step: StepResult): number {
  const scheduled = POLL_ROUTES.reduce((n, r) => n + step.polls[r].scheduled, 0);
  return scheduled === 0 ? 1 : pollsAnswered(step) / scheduled;
}

/** A new comment seen by another user: p50 / p99 (seen/posted). */
export function seenCell(step: StepResult): string {
  const v = step.visibility;
  return v === null || v.posted === 0
    ? '–'
    : `${ms(v.p50Ms)} / ${v.p99Ms === null ? 'over 1 % unseen' : ms(v.p99Ms)} (${v.seen}/${v.posted})`;
}

/** The summary row of a ladder step (or the baseline). */
export function ladderRow(s: Step, result: string): string {
  const { step, measured } = s;
  const polls = pollsAnswered(step);
  const perMinute = providerPerMinute(measured);
  return (
    `| ${step.users} | ${result} | ${fixed(nominalPollRate(step.users), 0)} | ${fixed(polls / step.windowS, 0)} | ${ms(worstP99(step))} | ${percent(answeredShare(step))} | ` +
    `${seenCell(step)} | ${fixed(measured.cores.service)} | ${fixed(measured.cores.postgres)} | ${fixed(measured.cores.generator)} | ` +
    `${polls === 0 ? '–' : fixed(measured.statements.total / polls)} | ` +
    `${perMinute === null ? '?' : fixed(perMinute, 0)} | ` +
    `${mib(measured.service.rssPeakBytes)} | ${ms(measured.service.loopDelayMaxMs)} | ${ms(step.generator.loopDelayP99Ms)} | ` +
    `${fixed(measured.cores.others)} |`
  );
}

export const LADDER_HEAD = [
  '| users | result | polls/s at default intervals | polls answered/s | worst route p99 | answered | comment seen p50 / p99 (seen/posted) | service cores | PostgreSQL cores | generator cores | SQL per poll | provider calls/min | service RSS peak | service loop delay max | generator loop delay p99 | other load (cores) |',
  '|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];

/** One line of a step for the console. */
export function ladderLine(s: Step, verdict: StepVerdict | null): string {
  const { step, measured } = s;
  const worst = worstP99(step);
  const outcome = verdict === null ? 'baseline' : verdict.pass ? 'PASS' : 'FAIL';
  const why = verdict === null ? [] : [...verdict.misses, ...verdict.distrust];
  return (
    `${String(step.users).padStart(6)} users  ${outcome}  ${fixed(pollsAnswered(step) / step.windowS, 0)} polls/s ` +
    `(${fixed(nominalPollRate(step.users), 0)} at the default intervals)  ` +
    `worst p99 ${ms(worst)}  cores: service ${fixed(measured.cores.service)}, PostgreSQL ${fixed(measured.cores.postgres)}, ` +
    `generator ${fixed(measured.cores.generator)}, others ${fixed(measured.cores.others)}` +
    (why.length > 0 ? `  (${why.join(', ')})` : '')
  );
}

/**
 * The longest X-Poll-Interval an answer of the window asked for, as a multiple of its route's default
 * (1: no answer slowed its client down); null when no answer carried the header.
 */
export function paceFactor(step: StepResult): number | null {
  const factor = Math.max(...POLL_ROUTES.map((r) => step.polls[r].maxIntervalMs / DEFAULT_INTERVAL_MS[r]));
  return factor > 0 ? factor : null;
}

/** When the service slowed its clients down (X-Poll-Interval above the defaults): how much. */
export function slowDownLine(step: StepResult): string | null {
  const slowed = POLL_ROUTES.reduce((n, r) => n + step.polls[r].slowed, 0);
  if (slowed === 0) return null;
  const answers = POLL_ROUTES.reduce((n, r) => n + step.polls[r].answered, 0);
  const factor = paceFactor(step) ?? 0;
  return (
    `- The service asked clients to slow down on ${slowed} of ${answers} answers (X-Poll-Interval up to ${fixed(factor, 0)} × the default): ` +
    `${fixed(answers / step.windowS, 0)} polls/s answered against ${fixed(nominalPollRate(step.users), 0)} at the default intervals`
  );
}

/** CPU time per answered poll, in µs: `cores` over the window's seconds, divided by the polls answered. */
export const cpuPerPollUs = (cores: number, seconds: number, polls: number | null) =>
  polls === null || polls === 0 ? null : ((cores * seconds) / polls) * 1e6;

const us = (n: number | null) => (n === null ? '–' : `${fixed(n, 0)} µs`);
const delay = (n: number | null) => (n === null ? 'not sampled' : ms(n));

/**
 * Each process of the service over a window, and all of them: what the multi-process mode adds. CPU per
 * poll divides a process's CPU by every poll the service answered (which process answered which poll is
 * the kernel's choice), so the rows add up to the total. Nothing when the service is one process.
 */
export function processTable(m: Measured, polls: number | null): string[] {
  if (m.processes.length <= 1) return [];
  const row = (name: string, cores: number, w: Measured['service']) =>
    `| ${name} | ${fixed(cores)} | ${us(cpuPerPollUs(cores, m.seconds, polls))} | ${w.requests} | ` +
    `${mib(w.rssBytes)} | ${mib(w.rssPeakBytes)} | ${mib(w.heapUsedBytes)} | ${delay(w.loopDelayP99Ms)} | ${delay(w.loopDelayMaxMs)} | ` +
    `${w.providerCalls ?? '?'} | ${w.paceTriggers.busy} / ${w.paceTriggers.late} / ${w.paceTriggers.queue} |`;
  return [
    '| process | CPU (cores) | CPU per answered poll | requests served | RSS at the end | RSS peak | heap used | event-loop delay p99 | event-loop delay max | provider calls | pace: overloaded samples busy / late / queue |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...m.processes.map((p) => row(p.name, p.cores, p.window)),
    row('**all**', m.cores.service, m.service),
    '',
  ];
}
