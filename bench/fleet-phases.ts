import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Child } from './fleet-ipc.ts';
import {
  type Cluster,
  readStatements,
  type StatementDelta,
  statementDelta,
  type Statements,
} from './fleet-postgres.ts';
import { machineBusySeconds, processCpuSeconds } from './fleet-proc.ts';
import { serviceWindow, type ServiceWindow, type StepPlan } from './fleet-messages.ts';
import { type StepResult, stepResult } from './fleet-stats.ts';

/** A measured window as the orchestrator sees it: CPU by process, SQL statements, the service's own view. */

export interface Processes {
  readonly cluster: Cluster;
  readonly service: Child;
  readonly serviceBase: string;
  readonly generator: Child;
}

/** Cores used over the window (CPU seconds / wall seconds). */
export interface Cores {
  readonly service: number;
  readonly postgres: number;
  readonly generator: number;
  /** The trivial server, in the baseline only. */
  readonly baseline: number | null;
  /** Everything else on the machine (other people's work, the orchestrator): what disturbed the window. */
  readonly others: number;
}

export interface Measured {
  readonly seconds: number;
  readonly cores: Cores;
  readonly statements: StatementDelta;
  readonly service: ServiceWindow;
  /** One `GET /metrics` at the end of the window: its time and size; null when not taken. */
  readonly scrape: { readonly ms: number; readonly bytes: number } | null;
}

interface Snapshot {
  readonly at: number;
  readonly cpu: Record<Exclude<keyof Cores, 'others'> | 'machine', number>;
  readonly statements: Statements;
}

async function snapshot(p: Processes, baseline: Child | null): Promise<Snapshot> {
  const statements = await readStatements(p.cluster.client);
  return {
    at: performance.now(),
    cpu: {
      service: processCpuSeconds(p.service.pid),
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
  await p.service.call('open', options.quiet === true);
  const before = await snapshot(p, baseline);
  await sleep(seconds * 1000, undefined, { signal });
  const scraped = options.scrape ? await scrape(p.serviceBase, signal) : null;
  const after = await snapshot(p, baseline);
  await options.edge?.('close');
  const service = serviceWindow.parse(await p.service.call('close'));
  const wall = (after.at - before.at) / 1000;
  const cores = (k: keyof Snapshot['cpu']) => (after.cpu[k] - before.cpu[k]) / wall;
  const ours = cores('service') + cores('postgres') + cores('generator') + cores('baseline');
  return {
    seconds: wall,
    cores: {
      service: cores('service'),
      postgres: cores('postgres'),
      generator: cores('generator'),
      baseline: baseline ? cores('baseline') : null,
      others: Math.max(0, cores('machine') - ours),
    },
    statements: statementDelta(before.statements, after.statements),
    service,
    scrape: scraped,
  };
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
): Promise<{ readonly step: StepResult; readonly measured: Measured }> {
  await p.generator.call('start', plan);
  try {
    await sleep(plan.rampS * 1000, undefined, { signal });
    const measured = await measureWindow(p, durationS, signal, {
      scrape: baseline === null,
      baseline,
      edge: (e) => p.generator.call(e),
    });
    if (plan.pollers && plan.writers) await sleep(VISIBILITY_GRACE_MS, undefined, { signal });
    return { step: stepResult.parse(await p.generator.call('stop')), measured };
  } catch (error) {
    // Leaves the generator ready for another step; after Ctrl-C the teardown stops it instead.
    if (!signal.aborted) await p.generator.call('stop').catch(() => undefined);
    throw error;
  }
}
