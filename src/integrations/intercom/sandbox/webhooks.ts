import { createHmac, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { notFound } from './errors.ts';

/** `X-Hub-Signature` as Intercom sends it: HMAC-SHA1 of the exact body bytes, keyed by the client secret. */
export function signWebhook(body: string, clientSecret: string): string {
  return `sha1=${createHmac('sha1', clientSecret).update(body, 'utf8').digest('hex')}`;
}

export interface Notification {
  readonly id: string;
  readonly topic: string;
  readonly item: unknown;
  readonly createdAt: number;
  /** Unix seconds of the first attempt, 0 before it. */
  firstSentAt: number;
  attempts: number;
}

export interface Delivery {
  readonly notificationId: string;
  readonly topic: string;
  /** `delivery_attempts` in the envelope that was sent. */
  readonly attempt: number;
  /** The exact bytes signed and sent. */
  readonly body: string;
  readonly signature: string;
  /** The receiver's HTTP status, or null when it did not answer (refused, timed out). */
  readonly status: number | null;
  readonly ok: boolean;
  readonly error?: string;
}

export interface WebhookOptions {
  /** Where to deliver; settable later (`deliverTo`), since a service often learns its own port last. */
  url: string | undefined;
  readonly clientSecret: string;
  readonly appIdCode: string;
  /** How long a receiver has to answer 2xx (Intercom: 5 s). */
  readonly timeoutMs: number;
  /** The wait before the one retry of a failed delivery (Intercom: about a minute). */
  readonly retryDelayMs: number;
  readonly now: () => number;
}

export type ReleaseOrder = 'sent' | 'reverse';

export interface Webhooks {
  /** Records a notification and makes its first attempt (a failure schedules the one retry). */
  notify(topic: string, item: unknown): Promise<Notification>;
  /** Sends a notification again under the same id, as Intercom may. */
  redeliver(id: string): Promise<Delivery>;
  /** Queue notifications instead of sending them, until release. */
  hold(): void;
  /** Send what was held, in order or reversed (Intercom does not promise order). */
  release(order?: ReleaseOrder): Promise<void>;
  /** Resolves once no attempt or retry is pending. */
  idle(): Promise<void>;
  readonly notifications: readonly Notification[];
  readonly deliveries: readonly Delivery[];
  /** Sends later notifications to `url` (undefined: record them only). */
  deliverTo(url: string | undefined): void;
  close(): void;
}

export function createWebhooks(given: WebhookOptions): Webhooks {
  const options = { ...given };
  const notifications: Notification[] = [];
  const deliveries: Delivery[] = [];
  const pending = new Set<Promise<unknown>>();
  const closing = new AbortController();
  let held: Notification[] | null = null;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };

  async function attempt(notification: Notification): Promise<Delivery> {
    const nowSeconds = Math.floor(options.now() / 1000);
    notification.attempts += 1;
    if (notification.firstSentAt === 0) notification.firstSentAt = nowSeconds;
    const body = JSON.stringify(envelope(notification, options.appIdCode));
    const signature = signWebhook(body, options.clientSecret);
    const base = {
      notificationId: notification.id,
      topic: notification.topic,
      attempt: notification.attempts,
    };
    const delivery = await post(options, body, signature);
    const recorded: Delivery = { ...base, body, signature, ...delivery };
    deliveries.push(recorded);
    return recorded;
  }

  async function send(notification: Notification): Promise<void> {
    if (!options.url) return;
    const first = await attempt(notification);
    if (first.ok) return;
    // Intercom retries a failed delivery once; the retry runs on its own, as Intercom's would.
    void track(
      sleep(options.retryDelayMs, undefined, { signal: closing.signal }).then(
        () => attempt(notification),
        () => undefined,
      ),
    );
  }

  return {
    notifications,
    deliveries,
    async notify(topic, item) {
      const now = Math.floor(options.now() / 1000);
      const notification: Notification = {
        id: `notif_${randomUUID()}`,
        topic,
        item,
        createdAt: now,
        firstSentAt: 0,
        attempts: 0,
      };
      notifications.push(notification);
      if (held) held.push(notification);
      else await track(send(notification));
      return notification;
    },
    async redeliver(id) {
      const notification = notifications.find((candidate) => candidate.id === id);
      if (!notification) throw notFound('Notification not found');
      if (!options.url) throw new Error('the sandbox has no webhook URL');
      return track(attempt(notification));
    },
    hold() {
      held ??= [];
    },
    async release(order = 'sent') {
      const queued = held ?? [];
      held = null;
      for (const notification of order === 'reverse' ? queued.toReversed() : queued) {
        await track(send(notification));
      }
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    deliverTo(url) {
      options.url = url;
    },
    close() {
      closing.abort();
    },
  };
}

function envelope(notification: Notification, appIdCode: string): Record<string, unknown> {
  return {
    type: 'notification_event',
    app_id: appIdCode,
    data: { type: 'notification_event_data', item: notification.item },
    links: {},
    id: notification.id,
    topic: notification.topic,
    delivery_status: 'pending',
    delivery_attempts: notification.attempts,
    first_sent_at: notification.firstSentAt,
    created_at: notification.createdAt,
    self: null,
  };
}

async function post(
  options: WebhookOptions,
  body: string,
  signature: string,
): Promise<Pick<Delivery, 'status' | 'ok' | 'error'>> {
  if (!options.url) return { status: null, ok: false, error: 'no webhook URL' };
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': signature,
        'user-agent': 'Intercom-Webhooks-Sandbox',
      },
      body,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    // Drain the answer so the connection can be reused; its content does not matter.
    await response.arrayBuffer();
    return { status: response.status, ok: response.ok };
  } catch (error) {
    return { status: null, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
