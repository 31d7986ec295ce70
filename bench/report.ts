import { median, type Series } from './load.ts';

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

/** A route of the real service, measured against the bare fastify route. */
export interface Subject {
  /** Its short name in the tables, ratios and targets: `settings`. */
  readonly name: string;
  /** The request and what it goes through, for its section's heading. */
  readonly route: string;
}

export interface Results {
  readonly hello: Series;
  readonly service: Series;
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
const MAX_SERVICE_P99_MS = 25;

export const fixed = (n: number, digits = 2) => n.toFixed(digits);
const tailRatio = (m: Series) => m.p99Ms / m.p50Ms;
/** Each round's req/s as a share of the bare route's in the same round. */
const roundShares = (m: Series, hello: Series) => m.rounds.map((r, i) => r / (hello.rounds[i] ?? r));
/**
 * A target's req/s as a share of the bare route's: the median of the rounds' ratios (decision 006). Each
 * round pairs the target with the bare route measured just before it, under the same drift of the machine;
 * a ratio of the two medians would divide rounds measured minutes apart.
 */
export const share = (m: Series, hello: Series) => median(roundShares(m, hello));
/** The ratio of the two medians, shown next to the share for comparison with older reports. */
const shareOfMedians = (m: Series, hello: Series) => m.requestsPerSecond / hello.requestsPerSecond;
export const percent = (n: number) => `${fixed(n * 100, 1)} %`;

/**
 * The head of a report whose targets ran in alternating rounds with the bare route: the machine, the
 * run (`order`: the targets as they alternate, hello first) and whether every response was expected.
 */
export function interleavedHead(
  title: string,
  command: string,
  info: RunInfo,
  order: readonly string[],
  failures: number,
): string[] {
  return [
    `# ${title}`,
    '',
    `Written by \`${command}\` (bench/run.ts); overwritten on every run.`,
    '',
    `- Date: ${info.date.toISOString()}`,
    `- Node: ${info.node}`,
    `- CPU: ${info.cpuCount} × ${info.cpuModel}`,
    `- Connections: ${info.connections}; ${info.warmupS} s warm-up per target, then ${info.rounds} alternating rounds of ${info.durationS} s (${order.join(', ')}, hello, …); req/s is the median round, a share of hello the median of the rounds' ratios, latencies pool all rounds`,
    `- Service: LOG_LEVEL ${info.logLevel}; database: ${info.database}; pool size ${info.poolSize ?? 'slonik default'}`,
    '- autocannon, both servers and the service run in one Node process, so the load generator shares',
    '  the event loop with the server under test (and PostgreSQL shares the machine).',
    failures === 0
      ? '- Every response had the expected status.'
      : `- **INVALID RUN: ${failures} unexpected responses, errors or timeouts.**`,
  ];
}

/** Targets measured in alternating rounds with the bare route, a column each after hello's. */
export function interleavedTable(
  hello: Series,
  targets: Readonly<Record<string, Series>>,
  expected: string,
): string[] {
  const columns: [string, Series][] = [['hello', hello], ...Object.entries(targets)];
  const row = (label: string, value: (m: Series) => string) =>
    `| ${label} | ${columns.map(([, m]) => value(m)).join(' | ')} |`;
  return [
    `| | ${columns.map(([name]) => name).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    row('req/s (median round)', (m) => fixed(m.requestsPerSecond, 0)),
    row('req/s by round', (m) => m.rounds.map((r) => fixed(r, 0)).join(', ')),
    row('share of hello (median of the rounds)', (m) => percent(share(m, hello))),
    row('share of hello by round', (m) => roundShares(m, hello).map(percent).join(', ')),
    row('ratio of the medians', (m) => percent(shareOfMedians(m, hello))),
    row('latency p50', (m) => `${fixed(m.p50Ms)} ms`),
    row('latency p99', (m) => `${fixed(m.p99Ms)} ms`),
    row(`expected responses (${expected})`, (m) => String(m.okResponses)),
    row('other responses, errors, timeouts (incl. warm-up)', (m) => String(m.failures)),
  ];
}

/** Summary lines of the bare route and the targets measured with it, one each. */
export const shareLines = (hello: Series, targets: Readonly<Record<string, Series>>): string[] =>
  Object.entries({ hello, ...targets }).map(
    ([name, m]) =>
      `${name.padEnd(9)} ${fixed(m.requestsPerSecond, 0).padStart(8)} req/s  ${percent(share(m, hello)).padStart(7)} of hello  ` +
      `p50 ${fixed(m.p50Ms)} ms  p99 ${fixed(m.p99Ms)} ms  failures ${m.failures}`,
  );

/** The same two targets for every route measured against the bare one. */
export function verdicts(info: RunInfo, { hello, service }: Results, subject: Subject): Verdict[] {
  const ratio = share(service, hello);
  return [
    {
      target: `${subject.name} req/s >= ${MIN_THROUGHPUT_SHARE * 100} % of the bare route's`,
      actual: percent(ratio),
      pass: ratio >= MIN_THROUGHPUT_SHARE,
    },
    {
      target: `${subject.name} p99 < ${MAX_SERVICE_P99_MS} ms at ${info.connections} connections`,
      actual: `${fixed(service.p99Ms)} ms`,
      pass: service.p99Ms < MAX_SERVICE_P99_MS,
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

export interface Report {
  /** The report's heading, without the `#`. */
  readonly title: string;
  /** The command that writes it: `npm run bench`. */
  readonly command: string;
  readonly info: RunInfo;
  readonly subject: Subject;
  readonly results: Results;
  readonly checks: readonly Verdict[];
  /** Sections of the benchmark's own, between the ratios and the targets. */
  readonly sections?: readonly string[];
}

/** The report of a route against the bare one, with the benchmark's own sections if any. */
export function renderMarkdown(report: Report): string {
  const { info, subject, results, checks } = report;
  const { hello, service } = results;
  const name = subject.name;
  const failures = hello.failures + service.failures;
  const lines = [
    `# ${report.title}`,
    '',
    `Written by \`${report.command}\` (bench/run.ts); overwritten on every run.`,
    '',
    `- Date: ${info.date.toISOString()}`,
    `- Node: ${info.node}`,
    `- CPU: ${info.cpuCount} × ${info.cpuModel}`,
    `- Connections: ${info.connections}; ${info.warmupS} s warm-up per target, then ${info.rounds} alternating rounds of ${info.durationS} s (hello, ${name}, hello, …); req/s is the median round, a share of hello the median of the rounds' ratios, latencies pool all rounds`,
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
    `## Service: ${subject.route}`,
    '',
    ...targetTable(service),
    '',
    '## Ratios',
    '',
    `- ${name} req/s / hello req/s: ${percent(share(service, hello))} (median of the rounds); by round: ${roundShares(service, hello).map(percent).join(', ')}; ratio of the medians ${percent(shareOfMedians(service, hello))}`,
    `- p99 / p50: hello ${fixed(tailRatio(hello))}, ${name} ${fixed(tailRatio(service))}`,
    '',
    ...(report.sections ?? []),
    ...targetsSection(checks),
    '',
  ];
  return lines.join('\n');
}

/** One line per target of the load run, for the summary printed at the end of a run. */
export function summaryRows(results: Results, subject: Subject): string[] {
  const row = (name: string, m: Series) =>
    `${name.padEnd(10)} ${fixed(m.requestsPerSecond, 0).padStart(8)} req/s  p50 ${fixed(m.p50Ms)} ms  ` +
    `p99 ${fixed(m.p99Ms)} ms  p99/p50 ${fixed(tailRatio(m))}  failures ${m.failures}`;
  return [row('hello', results.hello), row(subject.name, results.service)];
}

/** A poll route answered 200 and 304, next to the bare route of the same run. */
export interface PollResults {
  readonly hello: Series;
  readonly poll200: Series;
  readonly poll304: Series;
}

export const pollColumns = (poll: PollResults) => ({ 'poll 200': poll.poll200, 'poll 304': poll.poll304 });
