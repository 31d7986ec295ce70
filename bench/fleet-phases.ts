import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuProfileReading } from './cpu-profile.ts';
import type { Child } from './fleet-ipc.ts';
import {
  type Cluster,
  readStatements,
  type StatementDelta,
  statementDelta,
  type Statements,
} from './fleet-postgres.ts';
import { machineBusySeconds, processCpuSeconds } from './fleet-proc.ts';
import { serviceClose, type ServiceWindow, type StepPlan } from './fleet-messages.ts';
import { type StepResult, stepResult } from './fleet-stats.ts';
import { z } from 'zod';

/** A measured window as the orchestrator sees it: CPU by process, SQL statements, the service's own view. */

export interface Processes {
  readonly cluster: Cluster;
  /** The service's processes: the one of `npm start`, or the API processes and the worker. */
  readonly services: readonly Child[];
  readonly serviceBase: string;
  readonly generator: Child;
}

/** Why a process of the run is gone, when one left before being stopped. */
export const deathOf = (p: Processes): string | null =>
  [...p.services, p.generator].map((c) => c.died()).find((d) => d !== null) ?? null;

/** Cores used over the window (CPU seconds / wall seconds). */
export interface Cores {
  /** Every process of the service together. */
  readonly service: number;
  readonly postgres: number;
  readonly generator: number;
  /** The trivial server, in the baseline only. */
  readonly baseline: number | null;
  /** Everything else on the machine (other people's work, the orchestrator): what disturbed the window. */
  readonly others: number;
}

/** One process of the service over a window: its CPU from /proc and what it saw from inside. */
export interface ProcessWindow {
  /** `service` alone; `api-1` … `api-K` and `worker` in the multi-process mode. */
  readonly name: string;
  readonly cores: number;
  readonly window: ServiceWindow;
  /** Where its CPU time went, with BENCH_FLEET_CPU_PROFILE; null when no profile was taken. */
  readonly cpuProfile: CpuProfileReading;
}

export interface Measured {
  readonly seconds: number;
  readonly cores: Cores;
  readonly statements: StatementDelta;
  /** The service's processes together (combineWindows); the one process's own reading when it is alone. */
  readonly service: ServiceWindow;
  /** Each process of the service, in the order of Processes.services. */
  readonly processes: readonly ProcessWindow[];
  /** One `GET /metrics` at the end of the window: its time and size; null when not taken. */
  readonly scrape: { readonly ms: number; readonly bytes: number } | null;
}

interface Snapshot {
  readonly at: number;
  readonly cpu: Record<Exclude<keyof Cores, 'others' | 'service'> | 'machine', number>;
  /** CPU seconds of each service process, in the order of Processes.services. */
  readonly services: readonly number[];
  readonly statements: Statements;
}

async function snapshot(p: Processes, baseline: Child | null): Promise<Snapshot> {
  const statements = await readStatements(p.cluster.client);
  return {
    at: performance.now(),
    services: p.services.map((c) => processCpuSeconds(c.pid)),
    cpu: {
      postgres: p.cluster.cpuSeconds(),
      generator: processCpuSeconds(p.generator.pid),
      baseline: baseline ? processCpuSeconds(baseline.pid) : 0,
      machine: machineBusySeconds(),
    },
    statements,
  };
}

async function scrape(base: string, signal: AbortSignal) {
  const started = performance.now();
  const response = await fetch(`${base}/metrics`, { signal });
  const bytes = (await response.arrayBuffer()).byteLength;
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return { ms: performance.now() - started, bytes };
}

const maxOrNull = (values: readonly (number | null)[]) => {
  const known = values.filter((v) => v !== null);
  return known.length === 0 ? null : Math.max(...known);
};

/**
 * The service's processes as one: memory and counts add up, the event loops' delays take the worst
 * process (each process has its own loop; a client waits on the one its connection reached). The peak
 * RSS is the sum of each process's own peak, which may not all fall at the same moment: an upper bound.
 */
export function combineWindows(windows: readonly ServiceWindow[]): ServiceWindow {
  const [only] = windows;
  if (windows.length === 1 && only) return only;
  const sum = (pick: (w: ServiceWindow) => number) => windows.reduce((n, w) => n + pick(w), 0);
  const kinds = new Map<string, number>();
  for (const w of windows)
    for (const [kind, n] of w.providerByKind) kinds.set(kind, (kinds.get(kind) ?? 0) + n);
  return {
    rssBytes: sum((w) => w.rssBytes),
    rssPeakBytes: sum((w) => w.rssPeakBytes),
    heapUsedBytes: sum((w) => w.heapUsedBytes),
    loopDelayP99Ms: maxOrNull(windows.map((w) => w.loopDelayP99Ms)),
    loopDelayMaxMs: maxOrNull(windows.map((w) => w.loopDelayMaxMs)),
    // One lost count (a trimmed call list) makes the total unknown.
    providerCalls: windows.some((w) => w.providerCalls === null) ? null : sum((w) => w.providerCalls ?? 0),
    providerByKind: [...kinds].sort((a, b) => b[1] - a[1]),
    requests: sum((w) => w.requests),
    paceTriggers: {
      busy: sum((w) => w.paceTriggers.busy),
      late: sum((w) => w.paceTriggers.late),
      queue: sum((w) => w.paceTriggers.queue),
    },
    inService: sumBuckets(windows.map((w) => w.inService)),
  };
}

/** Every process's request-duration buckets added up (they share the metric's bounds). */
function sumBuckets(all: readonly ServiceWindow['inService'][]): ServiceWindow['inService'] {
  const counts = new Map<number | null, number>();
  for (const buckets of all) for (const [le, n] of buckets) counts.set(le, (counts.get(le) ?? 0) + n);
  return [...counts].sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity));
}

/** Measures `seconds` of whatever runs now; `around` is told when the window opens and closes. */
export async function measureWindow(
  p: Processes,
  seconds: number,
  signal: AbortSignal,
  options: {
    readonly scrape: boolean;
    /** The idle window: the service's own samplers stay off. */
    readonly quiet?: boolean;
    readonly baseline?: Child | null;
    readonly edge?: (e: 'open' | 'close') => Promise<unknown>;
  },
): Promise<Measured> {
  const baseline = options.baseline ?? null;
  await options.edge?.('open');
  await Promise.all(p.services.map((c) => c.call('open', options.quiet === true)));
  const before = await snapshot(p, baseline);
  await sleep(seconds * 1000, undefined, { signal });
  const scraped = options.scrape ? await scrape(p.serviceBase, signal) : null;
  const after = await snapshot(p, baseline);
  await options.edge?.('close');
  const wall = (after.at - before.at) / 1000;
  const cores = (k: keyof Snapshot['cpu']) => (after.cpu[k] - before.cpu[k]) / wall;
  const cpuOf = (s: Snapshot, i: number) => s.services[i] ?? Number.NaN;
  const processes: ProcessWindow[] = await Promise.all(
    p.services.map(async (c, i) => {
      const { cpuProfile, ...window } = serviceClose.parse(await c.call('close'));
      return { name: c.name, cores: (cpuOf(after, i) - cpuOf(before, i)) / wall, window, cpuProfile };
    }),
  );
  const service = processes.reduce((n, w) => n + w.cores, 0);
  const ours = service + cores('postgres') + cores('generator') + cores('baseline');
  return {
    seconds: wall,
    cores: {
      service,
      postgres: cores('postgres'),
      generator: cores('generator'),
      baseline: baseline ? cores('baseline') : null,
      others: Math.max(0, cores('machine') - ours),
    },
    statements: statementDelta(before.statements, after.statements),
    service: combineWindows(processes.map((w) => w.window)),
    processes,
    scrape: scraped,
  };
}

/** How long the pace is watched after the load stops for its return to factor 1. */
const CALM_WATCH_MS = 60_000;

/** Seconds until every service process's pace factor is 1 again; Infinity past the watch. */
async function untilCalm(p: Processes, signal: AbortSignal): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < CALM_WATCH_MS) {
    const factors = await Promise.all(p.services.map(async (c) => z.number().parse(await c.call('pace'))));
    if (factors.every((f) => f <= 1)) return (performance.now() - started) / 1000;
    await sleep(250, undefined, { signal });
  }
  return Number.POSITIVE_INFINITY;
}

/** How long pollers keep going after the window, so a comment posted at its end can still be seen. */
const VISIBILITY_GRACE_MS = 7_000;

/**
 * One step of the fleet: the generator starts `plan` (its ramp not measured), then `durationS` are
 * measured; the generator's window opens and closes with the orchestrator's.
 */
export async function runStep(
  p: Processes,
  plan: StepPlan,
  durationS: number,
  signal: AbortSignal,
  baseline: Child | null = null,
): Promise<{ readonly step: StepResult; readonly measured: Measured; readonly calmAfterS: number | null }> {
  await p.generator.call('start', plan);
  try {
    await sleep(plan.rampS * 1000, undefined, { signal });
    const measured = await measureWindow(p, durationS, signal, {
      scrape: baseline === null,
      baseline,
      edge: (e) => p.generator.call(e),
    });
    if (plan.pollers && plan.writers) await sleep(VISIBILITY_GRACE_MS, undefined, { signal });
    const step = stepResult.parse(await p.generator.call('stop'));
    const calmAfterS = baseline === null && plan.pollers ? await untilCalm(p, signal) : null;
    return { step, measured, calmAfterS };
  } catch (error) {
    // Leaves the generator ready for another step; after Ctrl-C the teardown stops it instead.
    if (!signal.aborted) await p.generator.call('stop').catch(() => undefined);
    throw error;
  }
}
