// The leader-kill check before production on KurrentDB (docs/kurrentdb.md): `npm run check:leader-kill --
// --url 'kurrentdb+discover://…' --duration 120 --kill 'docker restart node1' --kill-at 40`. Appends through
// the service's adapter while the leader goes away, then verifies that every acknowledged event is stored
// exactly once and in order. Exits 0 when it is, 1 when not (or when the run could not finish), 2 on bad
// arguments. Prints counts and event ids, never event bodies.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createLogger } from '../src/http/logger.ts';
import { type LeaderKillOptions, type LeaderKillReport, runLeaderKillCheck } from './leader-kill/run.ts';

const USAGE = `usage: npm run check:leader-kill -- [--url <connection string>] [--duration <s>] [--streams <n>]
       [--batch <n>] [--expected revision|any] [--kill '<shell command>' [--kill-at <s>]]
  --url       the cluster (default: EVENTSTORE_URL), e.g. kurrentdb+discover://n1:2113,n2:2113,n3:2113?nodePreference=leader
  --duration  seconds of appending (60)       --streams  concurrent writers, one stream each (20)
  --batch     up to this many events an append (3)
  --expected  revision (as the service's aggregates, default) or any
  --kill      run this once during the run (e.g. 'docker restart kurrentdb-node1'); else kill the leader by hand
  --kill-at   seconds after the start to run --kill (a third of --duration)`;

const positive = (max: number) => z.coerce.number().int().min(1).max(max);
const argsSchema = z.object({
  url: z
    .string({ error: 'set --url or EVENTSTORE_URL' })
    .regex(/^(kurrentdb|esdb|eventstore)(\+discover)?:\/\//, 'a kurrentdb:// connection string'),
  duration: positive(86_400).default(60),
  streams: positive(1_000).default(20),
  batch: positive(100).default(3),
  expected: z.enum(['revision', 'any']).default('revision'),
  kill: z.string().min(1).optional(),
  'kill-at': z.coerce.number().min(0).optional(),
});

/** The options of a run from the command line and the environment; throws with what is wrong. */
export function parseLeaderKillArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Omit<LeaderKillOptions, 'logger'> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      duration: { type: 'string' },
      streams: { type: 'string' },
      batch: { type: 'string' },
      expected: { type: 'string' },
      kill: { type: 'string' },
      'kill-at': { type: 'string' },
    },
    strict: true,
  });
  const parsed = argsSchema.parse({ ...values, url: values.url ?? env.EVENTSTORE_URL });
  const durationMs = parsed.duration * 1000;
  const atMs = (parsed['kill-at'] ?? parsed.duration / 3) * 1000;
  if (parsed.kill !== undefined && atMs >= durationMs)
    throw new Error('--kill-at must fall within --duration');
  return {
    connectionString: parsed.url,
    durationMs,
    streams: parsed.streams,
    batchMax: parsed.batch,
    expected: parsed.expected,
    ...(parsed.kill === undefined ? {} : { kill: { command: parsed.kill, atMs } }),
  };
}

/** The report as printed: counts, then at most 20 findings by event id. */
export function formatReport(report: LeaderKillReport): string {
  const failures = Object.entries(report.failures)
    .map(([name, count]) => `${name} ${count.toString()}`)
    .join(', ');
  const lines = [
    `streams ${report.category}-*`,
    `appends attempted ${report.attempted.toString()}, acknowledged ${report.acknowledged.toString()} ` +
      `(${report.answeredAsWritten.toString()} answered as already written), failed ${report.failed.toString()}` +
      (failures ? ` (${failures})` : ''),
    `events acknowledged ${report.eventsAcknowledged.toString()}, stored ${report.eventsStored.toString()}`,
    `longest append ${report.longestAppendMs.toString()} ms`,
    report.kill
      ? `kill: ${report.kill.command} (exit ${String(report.kill.exitCode)})`
      : 'kill: by hand (no --kill)',
    ...report.findings
      .slice(0, 20)
      .map((f) => `${f.problem}: ${f.stream} event ${f.eventId}${f.detail ? ` (${f.detail})` : ''}`),
    ...(report.findings.length > 20
      ? [`… and ${(report.findings.length - 20).toString()} more findings`]
      : []),
    report.ok
      ? 'OK: every acknowledged event is stored exactly once, in order'
      : report.acknowledged === 0
        ? 'FAILED: no append was acknowledged'
        : `FAILED: ${report.findings.length.toString()} findings`,
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<number> {
  let options;
  try {
    options = parseLeaderKillArgs(process.argv.slice(2), process.env);
  } catch (error) {
    const why = error instanceof z.ZodError ? z.prettifyError(error) : String(error);
    process.stderr.write(`${why}\n${USAGE}\n`);
    return 2;
  }
  const report = await runLeaderKillCheck({
    ...options,
    // The adapter's retries show as warnings, on stderr with the progress.
    logger: createLogger('warn', process.stderr),
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(formatReport(report));
  return report.ok ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`the leader-kill check could not finish: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
