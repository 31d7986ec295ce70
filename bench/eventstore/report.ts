import { DEFAULT_BATCH_SIZE } from '../../src/projections/runner.ts';
import type { Machine } from '../machine.ts';
import type { SourceVersion } from '../source.ts';
import { targetLines, targetsSection, type Verdict } from '../report.ts';
import type { AppendSeries } from './appends.ts';
import type { CatchUp, Rebuild, Seeded } from './catch-up.ts';
import type { BenchDatabase } from './database.ts';
import type { Lag } from './live-lag.ts';

export interface Parameters {
  readonly writers: number;
  readonly streamLength: number;
  readonly warmupS: number;
  readonly durationS: number;
  readonly rounds: number;
  readonly catchUpEvents: number;
  readonly projectionBatch: number | undefined;
  readonly lagRate: number;
  readonly lagDurationS: number;
  readonly lagWriters: number;
  readonly logLevel: string;
  readonly rebuild: boolean;
  readonly analyze: boolean;
}

export interface Results {
  readonly date: Date;
  readonly machine: Machine;
  readonly source: SourceVersion;
  readonly database: BenchDatabase;
  readonly appends: { readonly ours: AppendSeries; readonly emmett: AppendSeries };
  readonly seeded: Seeded;
  readonly catchUp: CatchUp;
  readonly lag: Lag;
  readonly rebuild: Rebuild | undefined;
  /** Rows the devices table must hold at the end of the catch-up, and at the end of the run. */
  readonly expectedRows: { readonly caughtUp: number; readonly end: number };
}

export type { Verdict };

export const TARGETS = {
  appendsPerSecond: 3_000,
  catchUpEventsPerSecond: 20_000,
  lagP99Ms: 100,
  emmettRatio: 1.0,
} as const;

const fixed = (n: number, digits = 2) => n.toFixed(digits);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const appendRatio = (r: Results): number =>
  r.appends.ours.appendsPerSecond / r.appends.emmett.appendsPerSecond;

export function verdicts(p: Parameters, r: Results): Verdict[] {
  const ratio = appendRatio(r);
  return [
    {
      target: `appends/s >= ${int(TARGETS.appendsPerSecond)} (${p.writers} writers, single events, expected revision)`,
      actual: int(r.appends.ours.appendsPerSecond),
      pass: r.appends.ours.appendsPerSecond >= TARGETS.appendsPerSecond,
    },
    {
      target: `projection catch-up >= ${int(TARGETS.catchUpEventsPerSecond)} events/s over ${int(r.seeded.events)} events`,
      actual: `${int(r.catchUp.eventsPerSecond)} events/s`,
      pass: r.catchUp.eventsPerSecond >= TARGETS.catchUpEventsPerSecond,
    },
    {
      target: `live lag p99 < ${TARGETS.lagP99Ms} ms at ${int(r.lag.achievedRatePerSecond)} events/s`,
      actual: `${fixed(r.lag.p99Ms, 1)} ms`,
      pass: r.lag.p99Ms < TARGETS.lagP99Ms,
    },
    {
      target: `append ratio ours / Emmett >= ${fixed(TARGETS.emmettRatio, 1)}`,
      actual: fixed(ratio),
      pass: ratio >= TARGETS.emmettRatio,
    },
  ];
}

/** What makes the numbers meaningless (a wrong read model), as opposed to a missed target. */
export function invalidities(r: Results): string[] {
  const problems: string[] = [];
  if (r.catchUp.rows !== r.expectedRows.caughtUp)
    problems.push(
      `after the catch-up the devices table held ${r.catchUp.rows} rows, not ${r.expectedRows.caughtUp}`,
    );
  if (r.rebuild && r.rebuild.rows !== r.expectedRows.end)
    problems.push(
      `after the rebuild the devices table held ${r.rebuild.rows} rows, not ${r.expectedRows.end}`,
    );
  return problems;
}

function appendsTable({ ours, emmett }: Results['appends']): string[] {
  const row = (name: string, pick: (s: AppendSeries) => string) =>
    `| ${name} | ${pick(ours)} | ${pick(emmett)} |`;
  return [
    '| | ours (`createEventStore`: PostgreSQL, sealed) | Emmett (`getPostgreSQLEventStore`) |',
    '|---|---:|---:|',
    row('appends/s (median round)', (s) => int(s.appendsPerSecond)),
    row('appends/s by round', (s) => s.rounds.map(int).join(', ')),
    row('append latency p50', (s) => `${fixed(s.p50Ms)} ms`),
    row('append latency p99', (s) => `${fixed(s.p99Ms)} ms`),
    row('Node CPU per append (bench process)', (s) => `${int(s.nodeCpuUsPerAppend)} µs`),
    row('appends measured', (s) => int(s.appends)),
  ];
}

export function renderMarkdown(p: Parameters, r: Results, checks: readonly Verdict[]): string {
  const { ours, emmett } = r.appends;
  const s = r.database.settings;
  const problems = invalidities(r);
  const lines = [
    '# Benchmark: event store (PostgreSQL adapter)',
    '',
    'Written by `npm run bench -- eventstore` (bench/eventstore/); overwritten on every run.',
    '',
    '## Machine',
    '',
    `- Date: ${r.date.toISOString()}`,
    `- Node: ${r.machine.node}; CPU: ${r.machine.cpuCount} × ${r.machine.cpuModel}; memory ${r.machine.memoryGiB} GiB`,
    `- PostgreSQL ${s.server_version ?? '?'} (${r.database.server}), fresh database \`${r.database.name}\`; ` +
      `fsync ${s.fsync ?? '?'}, synchronous_commit ${s.synchronous_commit ?? '?'}, shared_buffers ${s.shared_buffers ?? '?'}`,
    `- Code: commit ${r.source.commit}, ` +
      (r.source.uncommitted.length === 0
        ? 'no uncommitted changes'
        : `uncommitted changes in ${r.source.uncommitted.map((f) => `\`${f}\``).join(', ')}`) +
      `; digest of src/events, src/projections, src/db/migrations: \`${r.source.digest}\``,
    '- The bench, the store, the projection runner, Emmett and PostgreSQL share the same machine, and the',
    '  bench, store, runner and Emmett share one Node event loop.',
    problems.length === 0
      ? '- The devices read table held the expected rows after the catch-up' +
        (r.rebuild ? ' and after the rebuild.' : '.')
      : `- **INVALID RUN: ${problems.join('; ')}.**`,
    '',
    ...targetsSection(checks),
    '',
    '## Appends: ours vs. Emmett',
    '',
    `${p.writers} concurrent writers, each appending one \`deviceRegistered\` event per call to streams of its own ` +
      `(\`appendBench-…\`, ${p.streamLength} events per stream, then a new stream) with the expected revision ` +
      `(ours: \`no_stream\`, then the last revision; Emmett: \`expectedStreamVersion\` 0n, then the stream's version). ` +
      `${p.warmupS} s warm-up per store, then ${p.rounds} rounds of ${p.durationS} s per store, alternating and ` +
      'flipping the order each round (ours, Emmett; Emmett, ours; …). Both stores run on the same database ' +
      '(their tables do not overlap) with a pool of 10 connections each.',
    '',
    ...appendsTable(r.appends),
    '',
    `Ratio ours / Emmett: **${fixed(appendRatio(r))}** (medians); by round: ${ours.rounds
      .map((o, i) => fixed(o / (emmett.rounds[i] ?? o)))
      .join(', ')}.`,
    '',
    '## Projection catch-up',
    '',
    `- Seeded ${int(r.seeded.events)} events (${int(r.seeded.users)} \`userDevices-…\` streams, one append of ` +
      `${int(r.seeded.events / r.seeded.users)} events each, ${p.writers} writers) in ${fixed(r.seeded.seconds, 1)} s: ` +
      `${int(r.seeded.events / r.seeded.seconds)} events/s (not a target).`,
    `- \`startProjectionRunner\` with \`devicesProjection\` from an empty checkpoint, batch size ` +
      `${p.projectionBatch ?? `the runner default (${DEFAULT_BATCH_SIZE.toLocaleString('en-US')})`}: caught up in ${fixed(r.catchUp.seconds, 1)} s, ` +
      `**${int(r.catchUp.eventsPerSecond)} events/s**, ${int(r.catchUp.batches)} batches; ` +
      `${int(r.catchUp.rows)} rows in \`devices\` (expected ${int(r.expectedRows.caughtUp)}).`,
    `- Meanwhile PostgreSQL read the \`devices\` table with ${int(r.catchUp.scans.seqScans)} sequential scans ` +
      `(${int(r.catchUp.scans.seqRowsRead)} rows) and ${int(r.catchUp.scans.indexScans)} index scans; it had ` +
      `${r.catchUp.scans.analyzed ? 'been analysed' : 'no statistics (never analysed)'} ` +
      '(`pg_stat_user_tables`, which may be a second behind).',
    r.rebuild
      ? `- \`rebuildProjection\` (new generation from position zero, batches of 1,000, then the switch): ` +
        `${int(r.rebuild.applied)} events in ${fixed(r.rebuild.seconds, 1)} s, **${int(r.rebuild.eventsPerSecond)} events/s**; ` +
        `${int(r.rebuild.rows)} rows after the switch (expected ${int(r.expectedRows.end)}).`
      : '- Rebuild: skipped (`BENCH_REBUILD=0`).',
    '',
    '## Live lag',
    '',
    `- ${p.lagWriters} writers append single \`deviceRegistered\` events (expected revision, ${p.streamLength} per ` +
      `stream) paced at ${int(p.lagRate)} events/s for ${p.warmupS} s (warm-up, not counted) + ${p.lagDurationS} s; ` +
      `achieved ${int(r.lag.achievedRatePerSecond)} events/s over ${int(r.lag.events)} measured events.`,
    '',
    '| Metric | p50 | p99 | max |',
    '|---|---:|---:|---:|',
    `| append start -> visible in the read table | ${fixed(r.lag.p50Ms)} ms | ${fixed(r.lag.p99Ms)} ms | ${fixed(r.lag.maxMs)} ms |`,
    `| append call alone | ${fixed(r.lag.appendP50Ms)} ms | ${fixed(r.lag.appendP99Ms)} ms | |`,
    `| append returned -> visible | ${fixed(r.lag.afterAppendP50Ms)} ms | ${fixed(r.lag.afterAppendP99Ms)} ms | |`,
    '',
    `The runner committed ${int(r.lag.batches)} batches meanwhile (${fixed(r.lag.events / Math.max(1, r.lag.batches), 1)} events per batch on average).`,
    '',
    '## How each number is measured',
    '',
    "- **Appends/s**: appends completed in a round divided by the round's wall time (from its start until",
    '  the last in-flight append returns); the median of the rounds. Latency is each append call (hrtime),',
    '  pooled over the rounds. A conflict or any other error aborts the run.',
    "- **Ratio**: our median appends/s divided by Emmett's. Ours is `store.append` as the service calls it,",
    "  device tokens sealed with their user's data key (decision 048); Emmett stores them plain.",
    '  Emmett (`@event-driven-io/emmett-postgresql` 0.42, a dev dependency) gets its schema up front',
    '  (`schema.migrate()`), so no append pays for it; per append it runs BEGIN, `emt_append_to_stream(…)` with',
    "  the values inlined as literals, COMMIT: three round trips. It runs with pg's default type parsers, like",
    '  ours (see `bench/eventstore/emmett.ts`).',
    '- **Catch-up**: the seeded events are appended before the runner starts, and `events` is then',
    p.analyze
      ? '  analysed (`ANALYZE events`, as autovacuum would have on a log that old; `BENCH_ANALYZE=0` skips it).'
      : '  **not** analysed (`BENCH_ANALYZE=0`): the planner has no statistics for `events`.',
    '  The read table starts empty and without statistics, as it does for a new projection or a rebuild. Timed from',
    '  `startProjectionRunner` (so it includes taking the leader lock and creating generation 1) until',
    "  the first `progress` event whose position reaches `store.headPosition(['userDevices'])`; events/s is",
    '  the seeded count over that time. The row count of the `devices` view is checked afterwards.',
    '- **Live lag**: each event is due at start + i / rate, the writers take turns; the clock starts just',
    '  before its `store.append` call and stops at the first runner `progress` event whose position covers',
    "  the event's position. The runner emits `progress` after the batch's transaction (read-table rows and",
    '  checkpoint) has committed, so the row is visible to any reader from then on.',
    '- **Rebuild** (not a target): `rebuildProjection` wall time, events applied over seconds.',
    '',
    '## Settings',
    '',
    `\`BENCH_WRITERS\`=${p.writers}, \`BENCH_APPEND_STREAM_LENGTH\`=${p.streamLength}, \`BENCH_WARMUP_S\`=${p.warmupS}, ` +
      `\`BENCH_DURATION_S\`=${p.durationS}, \`BENCH_ROUNDS\`=${p.rounds}, \`BENCH_CATCHUP_EVENTS\`=${p.catchUpEvents}, ` +
      `\`BENCH_PROJECTION_BATCH\`=${p.projectionBatch ?? '(runner default)'}, \`BENCH_LAG_RATE\`=${p.lagRate}, ` +
      `\`BENCH_LAG_DURATION_S\`=${p.lagDurationS}, \`BENCH_LAG_WRITERS\`=${p.lagWriters}, ` +
      `\`BENCH_REBUILD\`=${p.rebuild ? 1 : 0}, \`BENCH_ANALYZE\`=${p.analyze ? 1 : 0}, \`BENCH_LOG_LEVEL\`=${p.logLevel}.`,
    '',
  ];
  return lines.join('\n');
}

export function renderSummary(r: Results, checks: readonly Verdict[]): string {
  const { ours, emmett } = r.appends;
  return [
    `appends   ours ${int(ours.appendsPerSecond)}/s (p99 ${fixed(ours.p99Ms)} ms)  ` +
      `Emmett ${int(emmett.appendsPerSecond)}/s (p99 ${fixed(emmett.p99Ms)} ms)  ratio ${fixed(appendRatio(r))}`,
    `catch-up  ${int(r.catchUp.eventsPerSecond)} events/s (${int(r.seeded.events)} events in ${fixed(r.catchUp.seconds, 1)} s)` +
      (r.rebuild ? `  rebuild ${int(r.rebuild.eventsPerSecond)} events/s` : ''),
    `live lag  p50 ${fixed(r.lag.p50Ms, 1)} ms  p99 ${fixed(r.lag.p99Ms, 1)} ms  max ${fixed(r.lag.maxMs, 1)} ms ` +
      `at ${int(r.lag.achievedRatePerSecond)} events/s`,
    ...targetLines(checks),
    ...invalidities(r).map((p) => `INVALID  ${p}`),
  ].join('\n');
}
