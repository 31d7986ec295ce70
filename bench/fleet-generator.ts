import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { positiveInt } from './env.ts';
import { createHttp } from './fleet-http.ts';
import { serveOrchestrator } from './fleet-ipc.ts';
import { generatorSetup, type StepPlan, stepPlan } from './fleet-messages.ts';
import { affinityFromEnv } from './fleet-settings.ts';
import { type FleetContext, startPolls, type Window } from './fleet-polls.ts';
import { startScheduler } from './fleet-scheduler.ts';
import type { FleetWorld } from './fleet-shape.ts';
import { type GeneratorSelf, loopMonitor, noPolls, noWrites, type StepResult } from './fleet-stats.ts';
import { type OperatorTarget, startWriters } from './fleet-writers.ts';

/**
 * The load generator's process of the fleet bench (forked by fleet.ts): the users' polls and the writer
 * mix against one origin, steps started, measured and stopped by the orchestrator over IPC.
 */

/** After the stop, how long answers to the polls and writes in flight are waited for. */
const DRAIN_MS = 10_000;

const http = createHttp(positiveInt('BENCH_FLEET_CONNECTIONS') ?? 256, affinityFromEnv());
const loop = loopMonitor();
let target: { origin: string; operator: OperatorTarget; world: FleetWorld } | null = null;

function startStep(plan: StepPlan) {
  if (!target) throw new Error('start before setup');
  const tasks: ((due: number, now: number) => void)[] = [];
  const scheduler = startScheduler((task, due, now) => {
    tasks[task]?.(due, now);
  });
  let active = true;
  const window: Window = { open: Infinity, close: Infinity };
  const ctx: FleetContext = {
    http,
    origin: target.origin,
    world: target.world,
    window,
    active: () => active,
    task: (run) => tasks.push(run) - 1,
    at: (due, task) => {
      scheduler.at(due, task);
    },
    seenByOther: new Map(),
    inFlight: { now: 0, max: 0 },
  };
  const polls = plan.pollers ? startPolls(ctx, plan.users, plan.rampS * 1000) : null;
  const writers = plan.writers ? startWriters(ctx, plan.users, target.operator) : null;
  let self: GeneratorSelf | null = null;
  const close = () => {
    window.close = Math.min(window.close, performance.now());
    self ??= {
      loopDelayP99Ms: loop.p99Ms(),
      loopDelayMaxMs: loop.maxMs(),
      lateP99Ms: scheduler.late.percentile(99) / 1000,
      lateMaxMs: scheduler.late.max / 1000,
      inFlightMax: ctx.inFlight.max,
    };
    return self;
  };
  return {
    open() {
      window.open = performance.now();
      loop.reset();
      scheduler.late.reset();
      ctx.inFlight.max = ctx.inFlight.now;
    },
    close,
    async stop(): Promise<StepResult> {
      active = false;
      scheduler.stop();
      const until = performance.now() + DRAIN_MS;
      while (ctx.inFlight.now > 0 && performance.now() < until) await sleep(20);
      const generator = close();
      return {
        users: plan.users,
        windowS: (window.close - window.open) / 1000,
        polls: polls?.results() ?? noPolls(),
        writes: writers?.results() ?? noWrites(),
        visibility: polls && writers ? writers.visibility() : null,
        generator,
      };
    },
  };
}

let step: ReturnType<typeof startStep> | null = null;
const current = () => {
  if (!step) throw new Error('no step is running');
  return step;
};

serveOrchestrator(
  {
    setup(payload) {
      target = generatorSetup.parse(payload);
    },
    start(payload) {
      if (step) throw new Error('a step is running already');
      step = startStep(stepPlan.parse(payload));
    },
    open: () => {
      current().open();
    },
    close: () => {
      current().close();
    },
    async stop() {
      try {
        return await current().stop();
      } finally {
        step = null;
      }
    },
  },
  { pid: process.pid },
  async () => {
    await http.destroy();
  },
);
