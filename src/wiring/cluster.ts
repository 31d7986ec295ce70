import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { z } from 'zod';
import type { ResolvedConfig } from '../config.ts';
import { setTimeout as sleep } from 'node:timers/promises';

// API_PROCESSES (docs/scale-out.md, decision 038): node:cluster starts and watches the processes; each API
// process binds PORT itself with SO_REUSEPORT, so the kernel spreads connections and the supervisor never
// touches a request.

/** What a child tells its supervisor. */
const childMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('listening'), name: z.string() }),
  z.object({ type: z.literal('metrics-request'), id: z.number() }),
]);
const metricsAnswer = z.object({
  type: z.literal('metrics-answer'),
  id: z.number(),
  text: z.string().optional(),
  error: z.string().optional(),
});

export const inCluster = (): boolean => cluster.isWorker;

/** Tells the supervisor this child is up (no-op outside a cluster). */
export function tellListening(name: string): void {
  if (cluster.isWorker) process.send?.({ type: 'listening', name });
}

/**
 * In a cluster child: `/metrics` answers every process's metrics, each series labelled with its process,
 * gathered by the supervisor (prom-client's cluster aggregation); a scrape of PORT reaches any one child.
 */
export function clusterMetrics(registry: Registry): () => Promise<string> {
  // Constructing one installs the child's answer to the supervisor's gathering.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, (answer: z.infer<typeof metricsAnswer>) => void>();
  process.on('message', (message: unknown) => {
    const answer = metricsAnswer.safeParse(message);
    if (answer.success) waiting.get(answer.data.id)?.(answer.data);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the supervisor did not answer'));
      }, 6_000);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (answer.text === undefined) reject(new Error(answer.error ?? 'no metrics'));
        else resolve(answer.text);
      });
      process.send?.({ type: 'metrics-request', id });
    });
}

export interface ProcessPlan {
  readonly name: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The children for API_PROCESSES=N: `api-1` … `api-N` with the api role, and `worker` when ROLES
 * includes it (one process of its own, serving nothing: its metrics go through the others').
 */
export function processPlan(config: Pick<ResolvedConfig, 'API_PROCESSES' | 'ROLES'>): ProcessPlan[] {
  const plan: ProcessPlan[] = Array.from({ length: config.API_PROCESSES }, (_, i) => ({
    name: `api-${i + 1}`,
    env: { ROLES: 'api', PROCESS_NAME: `api-${i + 1}` },
  }));
  if (config.ROLES.includes('worker'))
    plan.push({ name: 'worker', env: { ROLES: 'worker', PROCESS_NAME: 'worker' } });
  return plan;
}

export interface Supervisor {
  /** Resolves once every child has said it listens (the worker: it has started). */
  readonly started: Promise<void>;
  stop(): Promise<void>;
}

const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;

/**
 * Forks the plan's children with `env` on top of this process's environment, restarts one that exits
 * (waiting 1 s, doubling to 30 s while it keeps failing early), answers their metrics requests, and stops
 * them on `stop()`: the API processes first, so they drain while the worker still runs, then the worker.
 * Not the reverse of the forks (the worker is forked last; all start together): a request being drained
 * may wait for the worker's projections (read-your-writes), so the worker must outlive the API processes.
 */
export function superviseChildren(
  plan: readonly ProcessPlan[],
  env: Readonly<Record<string, string>>,
  logger: Logger,
): Supervisor {
  const aggregator = new AggregatorRegistry();
  const children = new Map<string, Worker>();
  const backoff = new Map<string, number>();
  let stopping = false;
  const pending = new Set(plan.map((p) => p.name));
  let allStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    allStarted = resolve;
  });

  const fork = (entry: ProcessPlan) => {
    const child = cluster.fork({ ...env, ...entry.env, API_PROCESSES: '1' });
    const forkedAt = Date.now();
    children.set(entry.name, child);
    child.on('message', (message: unknown) => {
      const parsed = childMessage.safeParse(message);
      if (!parsed.success) return;
      if (parsed.data.type === 'listening') {
        logger.info({ child: entry.name, pid: child.process.pid }, 'process started');
        pending.delete(entry.name);
        if (pending.size === 0) allStarted();
        return;
      }
      const { id } = parsed.data;
      aggregator.clusterMetrics().then(
        (text) => child.send({ type: 'metrics-answer', id, text }),
        (error: unknown) => child.send({ type: 'metrics-answer', id, error: String(error) }),
      );
    });
    child.on('exit', (code, signal) => {
      if (children.get(entry.name) === child) children.delete(entry.name);
      if (stopping) return;
      const ranMs = Date.now() - forkedAt;
      const waitMs =
        ranMs > RESTART_MAX_MS ? RESTART_FIRST_MS : (backoff.get(entry.name) ?? RESTART_FIRST_MS);
      backoff.set(entry.name, Math.min(waitMs * 2, RESTART_MAX_MS));
      logger.error({ child: entry.name, code, signal, restartInMs: waitMs }, 'process exited; restarting it');
      void sleep(waitMs).then(() => {
        if (!stopping) fork(entry);
      });
    });
  };
  for (const entry of plan) fork(entry);

  const stopOne = async (name: string) => {
    const child = children.get(name);
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        resolve();
      }),
    );
    child.process.kill('SIGTERM');
    const late = setTimeout(() => child.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(late);
  };

  return {
    started,
    async stop() {
      stopping = true;
      const apis = plan.filter((p) => p.name !== 'worker').map((p) => p.name);
      await Promise.all(apis.map(stopOne));
      await stopOne('worker');
    },
  };
}
