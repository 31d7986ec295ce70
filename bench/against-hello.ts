import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { positiveInt, say } from './env.ts';
import { type LoadOptions, measureInterleaved, type Series, type Target } from './load.ts';
import { machine } from './machine.ts';
import type { Results, RunInfo, Subject } from './report.ts';
import type { Service } from './targets.ts';

/** The run of a service route against the bare one, shared by the settings read and the admin read. */
export interface Settings {
  readonly load: LoadOptions;
  readonly rounds: number;
  readonly logLevel: string;
  readonly poolSize: number | undefined;
}

export function settingsFromEnv(signal: AbortSignal): Settings {
  return {
    load: {
      connections: positiveInt('BENCH_CONNECTIONS') ?? 50,
      durationS: positiveInt('BENCH_DURATION_S') ?? 5,
      warmupS: positiveInt('BENCH_WARMUP_S') ?? 2,
      signal,
    },
    rounds: positiveInt('BENCH_ROUNDS') ?? 5,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    poolSize: positiveInt('BENCH_POOL_SIZE'),
  };
}

/** Both targets warmed up, then measured in alternating rounds (hello, the route, hello, …). */
export async function measureAgainstHello(
  { load, rounds }: Settings,
  hello: Target,
  service: Target,
  subject: Subject,
): Promise<Results> {
  say(
    `hello and ${subject.name}: ${load.warmupS} s warm-up each, then ${rounds} alternating rounds of ` +
      `${load.durationS} s at ${load.connections} connections`,
  );
  return measureInterleaved({ hello, service }, { ...load, rounds });
}

/** The bare route and a route's targets (`what` names them), warmed up, then measured in alternating rounds. */
export async function measureWithHello<K extends string>(
  { load, rounds }: Settings,
  hello: Target,
  targets: Readonly<Record<K, Target>>,
  what: string,
): Promise<Record<K | 'hello', Series>> {
  say(
    `hello, ${what}: ${load.warmupS} s warm-up each, then ${rounds} alternating rounds of ` +
      `${load.durationS} s at ${load.connections} connections`,
  );
  return measureInterleaved<K | 'hello'>({ hello, ...targets }, { ...load, rounds });
}

export function runInfo(settings: Settings, service: Service): RunInfo {
  const { node, cpuCount, cpuModel } = machine();
  return {
    date: new Date(),
    node,
    cpuCount,
    cpuModel,
    connections: settings.load.connections,
    durationS: settings.load.durationS,
    rounds: settings.rounds,
    warmupS: settings.load.warmupS,
    logLevel: settings.logLevel,
    database: service.database,
    poolSize: service.poolSize,
  };
}

/** Writes the report and prints the summary. */
export async function writeReport(file: string, markdown: string, summary: readonly string[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, markdown);
  say(`\n${summary.join('\n')}\nreport: ${file}`);
}

/** Missed targets are findings, not failures; a non-2xx or a dropped connection means the numbers lie. */
export function exitCode(failures: number, what = 'non-2xx responses, errors or timeouts'): number {
  if (failures === 0) return 0;
  process.stderr.write(`bench: ${failures} ${what}; the run is invalid\n`);
  return 1;
}
