import type { Series } from './load.ts';

export interface RunInfo {
  readonly date: Date;
  readonly node: string;
  readonly cpuCount: number;
  readonly cpuModel: string;
  readonly connections: number;
  readonly durationS: number;
  readonly rounds: number;
  readonly warmupS: number;
  readonly logLevel: string;
  readonly database: string;
  readonly poolSize: number | undefined;
}

export interface Results {
  readonly hello: Series;
  readonly settings: Series;
}

export interface Verdict {
  readonly target: string;
  readonly actual: string;
  readonly pass: boolean;
}

/** The targets as a Markdown section, for every benchmark's report. */
export const targetsSection = (checks: readonly Verdict[]): string[] => [
  '## Targets',
  '',
  '| Target | Actual | Result |',
  '|---|---:|---|',
  ...checks.map((c) => `| ${c.target} | ${c.actual} | ${c.pass ? 'PASS' : 'FAIL'} |`),
];

/** One line per target, for the summary printed at the end of a run. */
export const targetLines = (checks: readonly Verdict[]): string[] =>
  checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.target}: ${c.actual}`);

const MIN_THROUGHPUT_SHARE = 0.25;
const MAX_SETTINGS_P99_MS = 25;

const fixed = (n: number, digits = 2) => n.toFixed(digits);
const tailRatio = (m: Series) => m.p99Ms / m.p50Ms;

export function verdicts(info: RunInfo, { hello, settings }: Results): Verdict[] {
  const share = settings.requestsPerSecond / hello.requestsPerSecond;
  return [
    {
      target: `settings req/s >= ${MIN_THROUGHPUT_SHARE * 100} % of the bare route's`,
      actual: `${fixed(share * 100, 1)} %`,
      pass: share >= MIN_THROUGHPUT_SHARE,
    },
    {
      target: `settings p99 < ${MAX_SETTINGS_P99_MS} ms at ${info.connections} connections`,
      actual: `${fixed(settings.p99Ms)} ms`,
      pass: settings.p99Ms < MAX_SETTINGS_P99_MS,
    },
  ];
}

function targetTable(m: Series): string[] {
  return [
    '| Metric | Value |',
    '|---|---:|',
    `| req/s (median round) | ${fixed(m.requestsPerSecond, 0)} |`,
    `| req/s by round | ${m.rounds.map((r) => fixed(r, 0)).join(', ')} |`,
    `| latency p50 | ${fixed(m.p50Ms)} ms |`,
    `| latency p99 | ${fixed(m.p99Ms)} ms |`,
    `| p99 / p50 | ${fixed(tailRatio(m))} |`,
    `| 2xx responses | ${m.okResponses} |`,
    `| non-2xx, errors, timeouts (incl. warm-up) | ${m.failures} |`,
  ];
}

export function renderMarkdown(info: RunInfo, results: Results, checks: readonly Verdict[]): string {
  const { hello, settings } = results;
  const failures = hello.failures + settings.failures;
  const lines = [
    '# Benchmark: settings read vs. bare fastify',
    '',
    'Written by `npm run bench` (bench/run.ts); overwritten on every run.',
    '',
    `- Date: ${info.date.toISOString()}`,
    `- Node: ${info.node}`,
    `- CPU: ${info.cpuCount} × ${info.cpuModel}`,
    `- Connections: ${info.connections}; ${info.warmupS} s warm-up per target, then ${info.rounds} alternating rounds of ${info.durationS} s (hello, settings, hello, …); req/s is the median round, latencies pool all rounds`,
    `- Service: LOG_LEVEL ${info.logLevel}; database: ${info.database}; pool size ${info.poolSize ?? 'slonik default'}`,
    '- autocannon, both servers and the service run in one Node process, so the load generator shares',
    '  the event loop with the server under test (and PostgreSQL shares the machine).',
    failures === 0
      ? '- Every response was 2xx.'
      : `- **INVALID RUN: ${failures} non-2xx responses, errors or timeouts.**`,
    '',
    '## Bare fastify: `GET /hello`',
    '',
    ...targetTable(hello),
    '',
    '## Service: `GET /api/settings/notifications` (JWT auth, rate limit, database read)',
    '',
    ...targetTable(settings),
    '',
    '## Ratios',
    '',
    `- settings req/s / hello req/s: ${fixed((settings.requestsPerSecond / hello.requestsPerSecond) * 100, 1)} % (medians); by round: ${settings.rounds
      .map((r, i) => `${fixed((r / (hello.rounds[i] ?? r)) * 100, 1)} %`)
      .join(', ')}`,
    `- p99 / p50: hello ${fixed(tailRatio(hello))}, settings ${fixed(tailRatio(settings))}`,
    '',
    ...targetsSection(checks),
    '',
  ];
  return lines.join('\n');
}

export function renderSummary(results: Results, checks: readonly Verdict[]): string {
  const row = (name: string, m: Series) =>
    `${name.padEnd(10)} ${fixed(m.requestsPerSecond, 0).padStart(8)} req/s  p50 ${fixed(m.p50Ms)} ms  ` +
    `p99 ${fixed(m.p99Ms)} ms  p99/p50 ${fixed(tailRatio(m))}  failures ${m.failures}`;
  return [row('hello', results.hello), row('settings', results.settings), ...targetLines(checks)].join('\n');
}
