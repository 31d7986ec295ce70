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

  const handlers = {
    seed: (users: unknown) => seedFleet(service, z.number().int().positive().parse(users), halt.signal),
    open: (quiet: unknown) => {
      watch?.stop();
      watch = watchService(sandbox, z.boolean().parse(quiet));
    },
    close: (): ServiceWindow => {
      if (!watch) throw new Error('close without open');
      const reading = watch.close();
      watch = null;
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
