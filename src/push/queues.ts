import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { JobQueue } from '../db/job-queue.ts';
import { pushContentSchema } from './content.ts';

// The three push queues (decision 025): a fan-out job per source turns "these users" (or everyone) into
// devices, page by page; send jobs carry up to 500 mobile devices or a second's worth of messenger chats.

export const PUSH_QUEUES = {
  fanout: 'push-fanout',
  mobile: 'push-mobile',
  messenger: 'push-messenger',
} as const;

export const fanoutJobSchema = z.object({
  sourceId: z.string(),
  content: pushContentSchema,
  /** The users to reach; null: every user with a device. */
  userIds: z.array(z.string()).nullable(),
  /** When the source came in (ms since the epoch): a user seen polling after it has seen it. */
  createdAt: z.number(),
  /** Set on the one re-run after waiting for a polling user to leave. */
  waited: z.boolean().optional(),
});
export type FanoutJob = z.infer<typeof fanoutJobSchema>;

export const queuedDeviceSchema = z.object({ userId: z.string(), token: z.string(), key: z.string() });
export type QueuedDevice = z.infer<typeof queuedDeviceSchema>;

export const sendJobSchema = z.object({
  sourceId: z.string(),
  content: pushContentSchema,
  devices: z.array(queuedDeviceSchema),
  /** 1 for the first try of these devices, then 2, 3, … (each retry is a job of its own). */
  attempt: z.number().int().min(1),
});
export type SendJob = z.infer<typeof sendJobSchema>;

/** How often a device is tried before its delivery counts as failed. */
export const MAX_SEND_ATTEMPTS = 5;

/** Names a device without its token (a token is a credential of sorts): logs, tables and metrics use this. */
export const deviceKey = (token: string): string =>
  createHash('sha256').update(token).digest('hex').slice(0, 32);

const NAMESPACE = Buffer.from('6f1f4a1c9b3e4d2a8c5e7f0a1b2c3d4e', 'hex');

/**
 * A job id derived from what the job is (an RFC 4122 version-5 UUID of `name`): the queue keeps one job
 * per id, so a fan-out that runs again after a crash queues nothing twice.
 */
export function jobId(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const DAY = 24 * 3600;

/**
 * Creates the queues, or brings an existing one's settings up to these (createQueue leaves an existing
 * queue as it is): what every replica does before it sends or works.
 */
export async function createPushQueues(boss: JobQueue): Promise<void> {
  // A worker that dies (a crash, a lost replica) stops its jobs' heartbeats: after 10 s without one the
  // queue offers the job again, instead of waiting out its expiry.
  const common = {
    retryBackoff: true,
    retryDelay: 1,
    retryDelayMax: 300,
    deleteAfterSeconds: DAY,
    heartbeatSeconds: 10,
    // A new job wakes the workers at once (LISTEN/NOTIFY), so they need not poll often.
    notify: true,
  };
  const settings = {
    [PUSH_QUEUES.fanout]: { ...common, retryLimit: 20, expireInSeconds: 600 },
    [PUSH_QUEUES.mobile]: { ...common, retryLimit: 10, expireInSeconds: 120 },
    [PUSH_QUEUES.messenger]: { ...common, retryLimit: 10, expireInSeconds: 300 },
  };
  for (const [name, options] of Object.entries(settings)) {
    // One messenger job at a time across every replica: Telegram's overall limit is the whole bot's.
    // (A queue's policy is fixed when it is created.)
    await boss.createQueue(
      name,
      name === PUSH_QUEUES.messenger ? { ...options, policy: 'singleton' } : options,
    );
    await boss.updateQueue(name, options);
  }
}
