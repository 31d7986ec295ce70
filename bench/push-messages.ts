import { z } from 'zod';

/** What crosses the IPC channels between the push bench's orchestrator and its children, checked on arrival. */

export const fakesEnvSchema = z.object({
  FCM_BASE_URL: z.string(),
  MESSENGER_API_ROOT: z.string(),
  MESSENGER_BOT_TOKEN: z.string(),
});

export const fakesReady = z.object({ env: fakesEnvSchema });
export const serviceReady = z.object({ base: z.string(), inline: z.boolean() });

export const prepared = z.object({
  channelId: z.string(),
  postIds: z.array(z.string()),
  admin: z.record(z.string(), z.string()),
  chat: z.object({ messages: z.number(), bodyBytes: z.number() }),
  poolSize: z.number().nullable(),
  pushWorkers: z.number(),
  messengerPerSecond: z.number(),
  pollConnections: z.number(),
});
export type Prepared = z.infer<typeof prepared>;

/** One autocannon run of the bare route or the chat poll, in the service's process. */
export const pollRound = z.object({
  startedAt: z.number(),
  endedAt: z.number(),
  requestsPerSecond: z.number(),
  ok: z.number(),
  failures: z.number(),
});
export type PollRound = z.infer<typeof pollRound>;

export const latency = z.object({ p50Ms: z.number(), p99Ms: z.number() });

/** The service's memory and event loop over a broadcast. */
export const pushWindow = z.object({
  baselineRssBytes: z.number(),
  baselineHeapUsedBytes: z.number(),
  peakRssBytes: z.number(),
  sampledPeakRssBytes: z.number(),
  kernelPeakRssBytes: z.number().nullable(),
  endRssBytes: z.number(),
  endHeapUsedBytes: z.number(),
  /** Heap used after a full GC at the end: what the window left alive. */
  endHeapAfterGcBytes: z.number(),
  loopDelayP99Ms: z.number().nullable(),
  loopDelayMaxMs: z.number().nullable(),
  profile: z.string().nullable(),
});
export type PushWindow = z.infer<typeof pushWindow>;

export const fcmTrace = z.object({
  firstAt: z.number().nullable(),
  count: z.number(),
  samples: z.array(z.tuple([z.number(), z.number()])),
});
export type FcmTraceReading = z.infer<typeof fcmTrace>;

export const telegramTrace = z.object({
  messages: z.array(z.tuple([z.number(), z.string(), z.number()])),
  peak: z.object({ overall: z.number(), perChat: z.number() }),
});
export type TelegramTraceReading = z.infer<typeof telegramTrace>;
