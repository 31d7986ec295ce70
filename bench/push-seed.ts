import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Logger } from 'pino';
import { appendEvents } from '../src/commands/handler.ts';
import {
  type DeviceEvent,
  deviceCodec,
  devicesStream,
  type Platform,
  providerOf,
} from '../src/events/devices.ts';
import type { EventStore } from '../src/events/store/port.ts';
import { createPostgresEventStore } from '../src/events/store/postgres.ts';
import { waitForProjections } from './fleet-log.ts';

/**
 * The push bench's audience, written through the event store as registrations would write it: one
 * `deviceRegistered` event (the same event, metadata and ids as `registerDevice`'s) on each user's new
 * `userDevices-<user>` stream, many appends at once (the store sends up to 64 of them as one statement),
 * then the service's devices projection catches up. No HTTP call per device, and no row written around
 * the projection.
 */

export interface DevicePlan {
  readonly mobile: number;
  readonly tma: number;
}

export interface DeviceSeed {
  readonly users: number;
  readonly appendSeconds: number;
  readonly catchUpSeconds: number;
  /** Rows of the devices view afterwards, by platform. */
  readonly rows: Readonly<Record<Platform, number>>;
}

/** Appends started together: the store groups them 64 a statement, one group per pool connection. */
const IN_FLIGHT = 4_096;

export const pushUserId = (i: number): string => `push-user-${String(i).padStart(7, '0')}`;

/**
 * Whether user `i` of `total` has the mini-app (tma) rather than the mobile app: the tma users are spread
 * evenly through the user ids (1 in 21 by default), so every fan-out page holds both kinds.
 */
export const isTmaUser = (i: number, plan: DevicePlan): boolean => {
  const total = plan.mobile + plan.tma;
  return Math.floor(((i + 1) * plan.tma) / total) > Math.floor((i * plan.tma) / total);
};

/**
 * A device's token: a mobile one shaped like an FCM registration token (about 160 characters), a
 * Telegram chat id for the mini-app.
 */
export function deviceToken(i: number, platform: Platform): string {
  if (platform === 'tma') return String(7_000_000_000 + i);
  const digest = createHash('sha256').update(`push-bench-${i}`).digest('base64url');
  return `${digest.slice(0, 11)}:APA91b${digest}${digest}${digest}`.slice(0, 163);
}

function register(store: EventStore, i: number, plan: DevicePlan, occurredAt: string): Promise<unknown> {
  const userId = pushUserId(i);
  const platform: Platform = isTmaUser(i, plan) ? 'tma' : 'mobile';
  const event: DeviceEvent = {
    type: 'deviceRegistered',
    data: { platform, token: deviceToken(i, platform), provider: providerOf(platform) },
  };
  return appendEvents(store, devicesStream(userId), [event], {
    context: {
      actor: { type: 'user', id: userId },
      commandId: `push-bench-register:${userId}`,
      correlationId: randomUUID(),
      causationId: null,
    },
    codec: deviceCodec,
    expected: 'no_stream',
    occurredAt,
  });
}

export async function seedDevices(
  url: string,
  client: pg.Client,
  plan: DevicePlan,
  logger: Logger,
  signal: AbortSignal,
): Promise<DeviceSeed> {
  const users = plan.mobile + plan.tma;
  const store = createPostgresEventStore({ connectionString: url, logger, poolSize: 10 });
  const started = performance.now();
  const occurredAt = new Date().toISOString();
  let appendSeconds: number;
  let catchUpSeconds: number;
  try {
    for (let from = 0; from < users; from += IN_FLIGHT) {
      signal.throwIfAborted();
      const appends: Promise<unknown>[] = [];
      for (let i = from; i < Math.min(users, from + IN_FLIGHT); i++)
        appends.push(register(store, i, plan, occurredAt));
      await Promise.all(appends);
    }
    appendSeconds = (performance.now() - started) / 1000;
    catchUpSeconds = await waitForProjections(client, 600_000, signal);
  } finally {
    // Closed once the service has caught up: the store's last NOTIFY goes out after a short gap, and a
    // close right after the last append would end the pool under it (the service would then find the
    // last events only at its timed re-read).
    await store.close();
  }
  const { rows } = await client.query<{ platform: Platform; n: string }>(
    'SELECT platform, count(*)::text AS n FROM devices GROUP BY platform',
  );
  const count = (p: Platform) => Number(rows.find((r) => r.platform === p)?.n ?? 0);
  return { users, appendSeconds, catchUpSeconds, rows: { mobile: count('mobile'), tma: count('tma') } };
}
