import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoadOptions, measureInterleaved } from './load.ts';
import { renderMarkdown, renderSummary, type RunInfo, verdicts } from './report.ts';
import { startHello, startService } from './targets.ts';
import { createTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/settings-read.md', import.meta.url));

function positiveInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function bench(signal: AbortSignal): Promise<number> {
  const load: LoadOptions = {
    connections: positiveInt('BENCH_CONNECTIONS') ?? 50,
    durationS: positiveInt('BENCH_DURATION_S') ?? 5,
    warmupS: positiveInt('BENCH_WARMUP_S') ?? 2,
    signal,
  };
  const rounds = positiveInt('BENCH_ROUNDS') ?? 3;
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
  const poolSize = positiveInt('BENCH_POOL_SIZE');
  const teardown = createTeardown();
  let code = 1;
  try {
    const helloTarget = await startHello(teardown);
    const service = await startService({ logLevel, poolSize }, teardown);
    say(
      `hello and settings: ${load.warmupS} s warm-up each, then ${rounds} alternating rounds of ` +
        `${load.durationS} s at ${load.connections} connections`,
    );
    const { hello, settings } = await measureInterleaved(
      { hello: helloTarget, settings: service.target },
      { ...load, rounds },
    );

    const info: RunInfo = {
      date: new Date(),
      node: process.version,
      cpuCount: availableParallelism(),
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      connections: load.connections,
      durationS: load.durationS,
      rounds,
      warmupS: load.warmupS,
      logLevel,
      database: service.database,
      poolSize: service.poolSize,
    };
    const results = { hello, settings };
    const checks = verdicts(info, results);
    await mkdir(dirname(REPORT_FILE), { recursive: true });
    await writeFile(REPORT_FILE, renderMarkdown(info, results, checks));
    say(`\n${renderSummary(results, checks)}\nreport: ${REPORT_FILE}`);

    // Missed targets are findings, not failures; a non-2xx or a dropped connection means the numbers lie.
    const failures = hello.failures + settings.failures;
    if (failures > 0) {
      process.stderr.write(`bench: ${failures} non-2xx responses, errors or timeouts; the run is invalid\n`);
    } else {
      code = 0;
    }
  } finally {
    if (!(await teardown.run())) code = 1;
  }
  return code;
}

async function main(): Promise<number> {
  // Ctrl-C stops the load and still tears down, so no cluster or temporary directory is left behind.
  const controller = new AbortController();
  for (const s of ['SIGINT', 'SIGTERM'] as const) {
    process.once(s, () => {
      controller.abort();
    });
  }
  try {
    return await bench(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      process.stderr.write('bench: interrupted; no report written\n');
      return 130;
    }
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

process.exitCode = await main();
