import { z } from 'zod';

/** What crosses the IPC channels between the orchestrator and its children, checked on arrival. */

/** The service, ready: where it listens and where operator replies go. */
export const serviceReady = z.object({
  base: z.string(),
  operator: z.object({ url: z.string(), token: z.string() }),
  poolSize: z.number().nullable(),
});

/** What the service saw between the orchestrator's `open` and `close`. */
export const serviceWindow = z.object({
  rssBytes: z.number(),
  rssPeakBytes: z.number(),
  heapUsedBytes: z.number(),
  /** null when not sampled (the idle window). */
  loopDelayP99Ms: z.number().nullable(),
  loopDelayMaxMs: z.number().nullable(),
  /** API calls the sandbox received (null when its call list was trimmed mid-window). */
  providerCalls: z.number().nullable(),
  providerByKind: z.array(z.tuple([z.string(), z.number()])),
});
export type ServiceWindow = z.infer<typeof serviceWindow>;

export const fleetWorld = z.object({
  channelId: z.string(),
  postIds: z.array(z.string()),
  users: z.array(z.object({ id: z.string(), token: z.string(), conversationId: z.string().nullable() })),
});

export const generatorSetup = z.object({
  origin: z.string(),
  operator: z.object({ url: z.string(), token: z.string() }),
  world: fleetWorld,
});

/** One step of the generator: how many users, whether they poll, whether the writers run. */
export const stepPlan = z.object({
  users: z.number().int().positive(),
  pollers: z.boolean(),
  writers: z.boolean(),
  rampS: z.number().min(0),
});
export type StepPlan = z.infer<typeof stepPlan>;

export const trivialReady = z.object({ url: z.string() });
