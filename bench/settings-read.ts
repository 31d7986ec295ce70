import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { positiveInt, say } from './env.ts';
import { type LoadOptions, measureInterleaved } from './load.ts';
import { machine } from './machine.ts';
import { renderMarkdown, renderSummary, type RunInfo, verdicts } from './report.ts';
import { startHello, startService } from './targets.ts';
import { createTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/settings-read.md', import.meta.url));

/** `npm run bench [-- settings-read]`: the settings read against bare fastify; resolves the exit code. */
export async function benchSettingsRead(signal: AbortSignal): Promise<number> {
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

    const { node, cpuCount, cpuModel } = machine();
    const info: RunInfo = {
      date: new Date(),
      node,
      cpuCount,
      cpuModel,
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
