import { randomBytes } from 'node:crypto';
import { type Child, forkChild } from './fleet-ipc.ts';
import { type SandboxAddress, type ServiceLaunch, serviceReady } from './fleet-messages.ts';
import { temporaryDirectory } from './targets.ts';
import type { Teardown } from './teardown.ts';
import { freePort } from '../src/lib/free-port.ts';

/**
 * The service's processes for the fleet bench: the one process of `npm start` (the single-process mode),
 * or BENCH_FLEET_PROCESSES' API processes on one port (SO_REUSEPORT) and one worker, which runs the
 * Intercom sandbox for all of them, as `API_PROCESSES` does (src/main.ts, docs/scale-out.md).
 */

const ENTRY = new URL('./fleet-service.ts', import.meta.url);

/** The service as the orchestrator measures it. */
export interface ServiceSet {
  /** The one process, or the API processes (`api-1` … `api-K`) and then the worker. */
  readonly children: readonly Child[];
  /** The one origin the generator and the seeding use: the API processes' shared port. */
  readonly base: string;
  readonly sandbox: SandboxAddress;
  /** The pool size of the process that seeds (the one process, or an API process). */
  readonly poolSize: number | null;
  /** The worker's pool size; null when there is no worker of its own. */
  readonly workerPoolSize: number | null;
}

export interface ServiceLauncher {
  /**
   * Starts the service: null, the one process; a count, that many API processes and (the first time)
   * the worker. A later start stops the API processes of the one before and starts new ones on the same
   * port; the worker, its sandbox (which holds the conversations) and the database stay.
   */
  start(apiProcesses: number | null): Promise<ServiceSet>;
}

/** Secrets every process must share: a session minted by one is checked by another, a key wrapped by one opened. */
function sharedSecrets(): Record<string, string> {
  const secret = () => randomBytes(32).toString('base64url');
  return {
    JWT_SECRET: secret(),
    ADMIN_SESSION_SECRET: secret(),
    FILE_URL_SECRET: secret(),
    DATA_KEY_SECRET: secret(),
  };
}

const ready = (child: Child) => serviceReady.parse(child.ready);

export function serviceLauncher(
  databaseUrl: string,
  redisUrl: string | null,
  teardown: Teardown,
  signal: AbortSignal,
): ServiceLauncher {
  // BENCH_FLEET_SERVICE empty: a value the shell may have left must not make the one process a part.
  const fork = (name: string, launch: ServiceLaunch | null) =>
    forkChild(
      name,
      ENTRY,
      { DATABASE_URL: databaseUrl, BENCH_FLEET_SERVICE: launch === null ? '' : JSON.stringify(launch) },
      teardown,
      signal,
    );

  async function single(): Promise<ServiceSet> {
    const child = await fork('service', null);
    const { base, sandbox, poolSize } = ready(child);
    if (sandbox === null) throw new Error('the service runs no Intercom sandbox');
    return { children: [child], base, sandbox, poolSize, workerPoolSize: null };
  }

  let worker: {
    readonly child: Child;
    readonly port: number;
    readonly base: string;
    readonly uploadDir: string;
    readonly env: Record<string, string>;
    readonly sandbox: SandboxAddress;
  } | null = null;
  let apis: readonly Child[] = [];

  /** The worker first: it runs the migrations and the sandbox the API processes are given. */
  async function startWorker(url: string) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { ...sharedSecrets(), REDIS_URL: url };
    const uploadDir = await temporaryDirectory('svc-bench-fleet-uploads-', teardown);
    const launch = { name: 'worker', roles: ['worker' as const], port: 0, publicBase: base, uploadDir, env };
    const child = await fork('worker', launch);
    const { sandbox } = ready(child);
    if (sandbox === null) throw new Error('the worker runs no Intercom sandbox');
    return { child, port, base, uploadDir, env, sandbox };
  }

  async function multi(count: number, url: string): Promise<ServiceSet> {
    worker ??= await startWorker(url);
    const { child, port, base, uploadDir, env, sandbox } = worker;
    await Promise.all(apis.map((c) => c.stop()));
    apis = [];
    const supportEnv = {
      SUPPORT_BASE_URL: sandbox.url,
      SUPPORT_ACCESS_TOKEN: sandbox.accessToken,
      SUPPORT_CLIENT_SECRET: sandbox.webhookSecret,
    };
    const names = Array.from({ length: count }, (_, i) => `api-${i + 1}`);
    apis = await Promise.all(
      names.map((name) =>
        fork(name, {
          name,
          roles: ['api'],
          port,
          publicBase: null,
          uploadDir,
          env: { ...env, ...supportEnv },
        }),
      ),
    );
    const first = apis[0];
    return {
      children: [...apis, child],
      base,
      sandbox,
      poolSize: first ? ready(first).poolSize : null,
      workerPoolSize: ready(child).poolSize,
    };
  }

  return {
    async start(apiProcesses) {
      if (apiProcesses === null) return single();
      if (redisUrl === null) throw new Error('several processes need REDIS_URL');
      return multi(apiProcesses, redisUrl);
    },
  };
}
