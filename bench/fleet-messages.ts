import { z } from 'zod';
import { cpuProfileReading } from './cpu-profile.ts';

/** What crosses the IPC channels between the orchestrator and its children, checked on arrival. */

/**
 * How fleet.ts starts a service process of the multi-process mode (BENCH_FLEET_PROCESSES), as JSON in
 * its BENCH_FLEET_SERVICE variable; unset, the process is the one service of the single-process mode.
 * A variable of the bench's own, so a REDIS_URL or ROLES the shell happens to export changes nothing.
 */
export const serviceLaunch = z.object({
  /** PROCESS_NAME: `api-1` … `api-K`, `worker`. */
  name: z.string(),
  roles: z.array(z.enum(['api', 'worker'])).min(1),
  /** The API processes' shared port (SO_REUSEPORT); 0 for the worker, which serves health and metrics only. */
  port: z.number().int().min(0),
  /** Where the API processes listen, for the sandbox's webhooks when this process holds it (the worker). */
  publicBase: z.string().nullable(),
  /** Where uploads go: one directory for every process, as a bucket would be (an upload and its reads may reach different processes). */
  uploadDir: z.string(),
  /** Settings on top of the production ones: the shared secrets, REDIS_URL, the sandbox's address. */
  env: z.record(z.string(), z.string()),
});
export type ServiceLaunch = z.infer<typeof serviceLaunch>;

/** The Intercom sandbox of the process that runs it: its operator route and what clients need. */
export const sandboxAddress = z.object({
  url: z.string(),
  accessToken: z.string(),
  webhookSecret: z.string(),
});
export type SandboxAddress = z.infer<typeof sandboxAddress>;

/** A service process, ready: where it listens and, when it runs the sandbox, the sandbox's address. */
export const serviceReady = z.object({
  base: z.string(),
  sandbox: sandboxAddress.nullable(),
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
  /** HTTP requests the process answered in the window (its http_requests_total): how the kernel spread them. */
  requests: z.number(),
  /** Samples of the poll pace in the window that found each trigger of overload (its poll_pace_overloaded_total). */
  paceTriggers: z.object({ busy: z.number(), late: z.number(), queue: z.number() }),
  /**
   * How long requests spent inside the service in the window (Fastify's elapsed time, from the request's
   * arrival at the router to the answer's end): its http_request_duration_seconds buckets, every route
   * summed, as [upper bound in seconds (null: +Inf), requests at or under it].
   */
  inService: z.array(z.tuple([z.number().nullable(), z.number()])),
});
export type ServiceWindow = z.infer<typeof serviceWindow>;

/**
 * A service process's answer to `close`: its window and, with BENCH_FLEET_CPU_PROFILE, the window's CPU
 * profile summarised where it was taken (the orchestrator need not know the file's name nor read 1 MB of it).
 */
export const serviceClose = serviceWindow.extend({ cpuProfile: cpuProfileReading });
export type ServiceClose = z.infer<typeof serviceClose>;

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
