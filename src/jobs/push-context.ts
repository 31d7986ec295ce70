import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Counter, Histogram } from 'prom-client';
import { rejectDevice } from '../commands/devices.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { JobQueue } from '../db/job-queue.ts';
import type { PushProvider } from '../events/devices.ts';
import type { EventStore } from '../events/store/port.ts';
import type { MessengerSender, MobileSender } from '../integrations/push/port.ts';
import type { PushContent } from '../push/content.ts';
import type { MessengerLinkOptions } from '../push/messages.ts';
import type { Presence } from '../push/presence.ts';
import { dropQueuedDeliveries, stillQueued } from '../push/push-log.ts';
import type { QueuedDevice, SendJob } from '../push/queues.ts';
import { holdersOfTokens } from '../queries/devices.ts';
import type { RetryPolicy } from '../lib/backoff.ts';

/** What the push workers share: the database, the queue, the senders (null: not configured) and metrics. */
export interface PushWorkerDeps {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly boss: JobQueue;
  readonly logger: Logger;
  readonly presence: Presence;
  /** PUSH_ONLINE_WINDOW_MS. */
  readonly onlineWindowMs: number;
  readonly mobile: MobileSender | null;
  readonly messenger: MessengerSender | null;
  readonly wording: MessengerLinkOptions;
  /** MESSENGER_MESSAGES_PER_SECOND, for the whole process group. */
  readonly messengerPerSecond: number;
  /** Waits between tries of a device (FCM quota and 5xx, Telegram 5xx). */
  readonly retry: RetryPolicy;
  readonly metrics: PushMetrics;
  /**
   * Wakes this replica's worker of `queue` at `at`, for a job it just deferred to then (a retry, a push
   * waiting for a polling user): NOTIFY announces only new jobs, and the workers' own polls are rare.
   */
  readonly wakeAt: (queue: string, at: number) => void;
  /**
   * With PUSH_SHOW_PREVIEW: the start of the text a chat push is about (the newest message, read through
   * the support cache). Absent, or without previews, no text is read.
   */
  readonly previewOf?: ((content: PushContent) => Promise<string | undefined>) | undefined;
}

export interface PushMetrics {
  /** Deliveries by platform and outcome. */
  readonly deliveries: Counter<'platform' | 'outcome'>;
  /** How long a provider call took (one sendEach, one sendMessage). */
  readonly providerSeconds: Histogram<'provider'>;
}

/** A device its service refused for good leaves through its device stream (decision 025). */
export async function removeRejectedDevice(
  deps: Pick<PushWorkerDeps, 'store' | 'logger'>,
  sourceId: string,
  device: QueuedDevice,
  provider: PushProvider,
  code: string,
): Promise<void> {
  await rejectDevice(
    { store: deps.store },
    { userId: device.userId, token: device.token, provider, reason: code },
    {
      actor: { type: 'system', id: 'push' },
      commandId: `push-rejected:${sourceId}:${device.key}`,
      correlationId: randomUUID(),
      causationId: null,
    },
  );
  deps.logger.info(
    { deviceKey: device.key, provider, code },
    'push: device removed after its service refused it',
  );
}

/**
 * A send job's devices to send to now: their delivery still queued (an earlier run of the job may have
 * sent some; an erasure deletes the user's), and the device still registered to its user. A device that
 * left the devices table since the fan-out (unregistered, or gone with an erased user, decision 048) gets
 * nothing, and its delivery row goes: the row would name a user who may have been erased.
 */
export async function stillToSend(
  deps: Pick<PushWorkerDeps, 'pool' | 'logger'>,
  job: SendJob,
): Promise<QueuedDevice[]> {
  const pending = await stillQueued(
    deps.pool,
    job.sourceId,
    job.devices.map((d) => d.key),
  );
  const queued = job.devices.filter((d) => pending.has(d.key));
  const holders = await holdersOfTokens(
    deps.pool,
    queued.map((d) => d.token),
  );
  const left = queued.filter((d) => holders.get(d.token) !== d.userId);
  if (left.length > 0) {
    await dropQueuedDeliveries(
      deps.pool,
      job.sourceId,
      left.map((d) => d.key),
    );
    deps.logger.info(
      { sourceId: job.sourceId, devices: left.length },
      'push: devices no longer registered were left out',
    );
  }
  return queued.filter((d) => holders.get(d.token) === d.userId);
}
