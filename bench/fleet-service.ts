import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { localStorage } from '../src/integrations/storage/local.ts';
import { poolSizesOf } from '../src/wiring/service.ts';
import { summariseCpuProfile } from './cpu-profile.ts';
import { positiveInt } from './env.ts';
import { serveOrchestrator } from './fleet-ipc.ts';
import {
  type SandboxAddress,
  type ServiceClose,
  type ServiceLaunch,
  serviceLaunch,
  type serviceReady,
} from './fleet-messages.ts';
import { seedFleet } from './fleet-seed.ts';
import { type ServiceWatch, watchService } from './fleet-service-window.ts';
import { type ServiceOptions, startService } from './targets.ts';
import { createTeardown } from './teardown.ts';

/**
 * A service process of the fleet bench (forked by fleet.ts): the real app from startService with
 * production settings, on the orchestrator's PostgreSQL (DATABASE_URL). Alone (no BENCH_FLEET_SERVICE),
 * it is the whole service with the Intercom sandbox in the same process. In the multi-process mode it is
 * one of several: an API process on the shared port, or the worker, which runs the sandbox for all. It
 * seeds through the API when asked and reports what only it can see.
 */

/** BENCH_FLEET_SERVICE: this process's part in the multi-process mode; null when it is the only one. */
function launchOf(): ServiceLaunch | null {
  const raw = process.env.BENCH_FLEET_SERVICE;
  return raw === undefined || raw === '' ? null : serviceLaunch.parse(JSON.parse(raw));
}

function serviceOptions(launch: ServiceLaunch | null): ServiceOptions {
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
  const poolSize = positiveInt('BENCH_POOL_SIZE');
  if (launch === null) return { logLevel, poolSize };
  return {
    logLevel,
    // What main.ts gives a process of these roles (docs/scale-out.md), unless the bench says otherwise.
    poolSize: poolSize ?? poolSizesOf(launch.roles).pool,
    env: { ...launch.env, ROLES: launch.roles.join(','), PROCESS_NAME: launch.name },
    storage: localStorage(launch.uploadDir),
    listen: { port: launch.port, reusePort: launch.port !== 0 },
    ...(launch.publicBase === null ? {} : { publicBase: launch.publicBase }),
  };
}

async function main(): Promise<void> {
  const launch = launchOf();
  const teardown = createTeardown();
  const halt = new AbortController();
  teardown.add('seeding', async () => {
    halt.abort();
  });
  const service = await startService(serviceOptions(launch), teardown);
  const { sandbox } = service.support;
  // Operator replies go to the sandbox's own operator route, as devtools' do; the other processes of the
  // multi-process mode use it as their Intercom.
  const address: SandboxAddress | null =
    sandbox === null
      ? null
      : {
          url: sandbox.url,
          accessToken: sandbox.accessToken,
          webhookSecret: service.support.webhookSecret ?? '',
        };
  let watch: ServiceWatch | null = null;
  // BENCH_FLEET_CPU_PROFILE=<dir>: a CPU profile of each measured window (not idle), for Chrome's DevTools.
  const profileDir = process.env.BENCH_FLEET_CPU_PROFILE;
  // With the pid: API processes started again for the next count would overwrite the last count's.
  const profileName = launch === null ? 'service' : `${launch.name}-${process.pid}`;
  let profiler: Session | null = null;
  let windows = 0;

  const handlers = {
    /** The poll pace's factor now (1 in a process that answers no poll). */
    pace: async () =>
      (await service.registry.getSingleMetric('poll_pace_factor')?.get())?.values[0]?.value ?? 1,
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
      watch = await watchService(sandbox, service.registry, isQuiet);
    },
    close: async (): Promise<ServiceClose> => {
      if (!watch) throw new Error('close without open');
      const reading = await watch.close();
      watch = null;
      if (!profiler || !profileDir) return { ...reading, cpuProfile: null };
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      profiler = null;
      windows += 1;
      await writeFile(
        join(profileDir, `${profileName}-window-${windows}.cpuprofile`),
        JSON.stringify(profile),
      );
      // Summarised here, after the window's CPU was read, so the summary's own work is not measured.
      return { ...reading, cpuProfile: summariseCpuProfile(profile) ?? 'unreadable' };
    },
  };
  const ready: z.input<typeof serviceReady> = {
    base: service.base,
    sandbox: address,
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
