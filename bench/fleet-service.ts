import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { sandboxOf } from './chat-seed.ts';
import { positiveInt } from './env.ts';
import { serveOrchestrator } from './fleet-ipc.ts';
import { type ServiceWindow, type serviceReady } from './fleet-messages.ts';
import { seedFleet } from './fleet-seed.ts';
import { type ServiceWatch, watchService } from './fleet-service-window.ts';
import { startService } from './targets.ts';
import { createTeardown } from './teardown.ts';

/**
 * The service's process of the fleet bench (forked by fleet.ts): the real app from startService with
 * production settings, on the orchestrator's PostgreSQL (DATABASE_URL), with the Intercom sandbox in
 * the same process. It seeds through the API when asked and reports what only it can see.
 */

async function main(): Promise<void> {
  const teardown = createTeardown();
  const halt = new AbortController();
  teardown.add('seeding', async () => {
    halt.abort();
  });
  const service = await startService(
    { logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn', poolSize: positiveInt('BENCH_POOL_SIZE') },
    teardown,
  );
  const sandbox = sandboxOf(service);
  // Operator replies go to the sandbox's own operator route, as devtools' do.
  const operator = { url: sandbox.url, token: sandbox.accessToken };
  let watch: ServiceWatch | null = null;
  // BENCH_FLEET_CPU_PROFILE=<dir>: a CPU profile of each measured window (not idle), for Chrome's DevTools.
  const profileDir = process.env.BENCH_FLEET_CPU_PROFILE;
  let profiler: Session | null = null;
  let windows = 0;

  const handlers = {
    seed: (users: unknown) => seedFleet(service, z.number().int().positive().parse(users), halt.signal),
    open: async (quiet: unknown) => {
      watch?.stop();
      const isQuiet = z.boolean().parse(quiet);
      if (profileDir && !isQuiet) {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      watch = watchService(sandbox, isQuiet);
    },
    close: async (): Promise<ServiceWindow> => {
      if (!watch) throw new Error('close without open');
      const reading = watch.close();
      watch = null;
      if (profiler && profileDir) {
        const { profile } = await profiler.post('Profiler.stop');
        profiler.disconnect();
        profiler = null;
        windows += 1;
        await writeFile(join(profileDir, `service-window-${windows}.cpuprofile`), JSON.stringify(profile));
      }
      return reading;
    },
  };
  const ready: z.input<typeof serviceReady> = {
    base: service.base,
    operator,
    poolSize: service.poolSize ?? null,
  };
  serveOrchestrator(handlers, ready, async () => {
    watch?.stop();
    if (!(await teardown.run())) process.exitCode = 1;
  });
}

try {
  await main();
} catch (error) {
  process.stderr.write(
    `fleet service: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
