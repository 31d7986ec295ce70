import pg from 'pg';
import type { Logger } from 'pino';
import { retryDelayMs, type RetryPolicy } from '../lib/backoff.ts';
import { describeError } from '../lib/error-text.ts';
import { serial } from './serial.ts';

/**
 * PostgreSQL `LISTEN`/`NOTIFY` between the service's processes, on one connection per process: the read
 * changes of the caches (decision 022) and the support inbox's wake-ups travel here. The connection comes
 * back by itself after a loss, with backoff; a subscriber is told when it does, since whatever was sent
 * meanwhile was lost and it must assume that anything changed.
 */
export interface Notifications {
  /**
   * Hears `channel` from now on: `onMessage` for each notification, `onHeardAgain` each time the
   * connection is (re)established and nothing sent before can be trusted to have been heard.
   */
  listen(channel: string, onMessage: (payload: string) => void, onHeardAgain?: () => void): void;
  /** Sends on `channel`; false when it could not be sent (the connection is down). */
  notify(channel: string, payload: string): Promise<boolean>;
  /** True while the connection is up and every channel is listened to. */
  listening(): boolean;
  /** Resolves true once the connection is up, or false after `timeoutMs` without it. */
  whenListening(timeoutMs: number): Promise<boolean>;
  /** Connections made since start: 1 while it never dropped. */
  connections(): number;
  close(): Promise<void>;
}

export interface NotificationsOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  /** How the connection is named in `pg_stat_activity` (the heartbeat finds live processes by it). */
  readonly applicationName?: string;
  /** Waits between reconnection attempts (default 0.2 s doubling to 10 s, with jitter). */
  readonly reconnect?: RetryPolicy;
}

const DEFAULT_RECONNECT: RetryPolicy = {
  maxAttempts: Number.MAX_SAFE_INTEGER,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
};

interface Channel {
  readonly messages: ((payload: string) => void)[];
  readonly heardAgain: (() => void)[];
}

export function createNotifications(options: NotificationsOptions): Notifications {
  const { logger } = options;
  const policy = options.reconnect ?? DEFAULT_RECONNECT;
  const channels = new Map<string, Channel>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client | undefined> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let made = 0;
  let closed = false;

  // One query at a time on the connection; a new one starts a new queue.
  let queue = serial();
  const listenTo = (c: pg.Client, channel: string) =>
    queue(() => c.query(`LISTEN ${pg.escapeIdentifier(channel)}`));

  const scheduleReconnect = () => {
    if (closed || retry !== undefined) return;
    failures += 1;
    const waitMs = retryDelayMs(failures, policy);
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, waitMs);
    retry.unref();
  };

  const connect = (): Promise<pg.Client | undefined> => {
    if (client !== undefined) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new pg.Client({
        connectionString: options.connectionString,
        application_name: options.applicationName ?? 'support-channel-service:notifications',
      });
      queue = serial();
      const lost = () => {
        if (client !== c) return;
        client = undefined;
        scheduleReconnect();
      };
      c.on('error', (error) => {
        logger.warn({ reason: describeError(error) }, 'notifications: connection lost; reconnecting');
        lost();
        c.end().catch(() => undefined);
      });
      c.on('end', lost);
      c.on('notification', (n) => {
        for (const hear of channels.get(n.channel)?.messages ?? []) hear(n.payload ?? '');
      });
      try {
        await c.connect();
        for (const channel of channels.keys()) await listenTo(c, channel);
        if (closed) {
          await c.end();
          return undefined;
        }
        client = c;
        failures = 0;
        made += 1;
        for (const { heardAgain } of channels.values()) for (const told of heardAgain) told();
        return c;
      } catch (error) {
        logger.warn({ reason: describeError(error) }, 'notifications: cannot listen; retrying');
        await c.end().catch(() => undefined);
        scheduleReconnect();
        return undefined;
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  };

  return {
    listen(channel, onMessage, onHeardAgain) {
      let entry = channels.get(channel);
      if (entry === undefined) {
        entry = { messages: [], heardAgain: [] };
        channels.set(channel, entry);
        // Already connected: this channel is added to the session now.
        if (client !== undefined) {
          const c = client;
          listenTo(c, channel).then(
            () => onHeardAgain?.(),
            () => c.end().catch(() => undefined),
          );
        }
      }
      entry.messages.push(onMessage);
      if (onHeardAgain !== undefined) entry.heardAgain.push(onHeardAgain);
      if (client === undefined) void connect();
    },
    async notify(channel, payload) {
      const c = client ?? (await connect());
      if (c === undefined) return false;
      return queue(() => c.query('SELECT pg_notify($1, $2)', [channel, payload])).then(
        () => true,
        (error: unknown) => {
          logger.warn({ reason: describeError(error), channel }, 'notifications: cannot notify');
          return false;
        },
      );
    },
    listening: () => client !== undefined,
    async whenListening(timeoutMs) {
      if (client !== undefined) return true;
      const late = new Promise<undefined>((done) => {
        setTimeout(() => {
          done(undefined);
        }, timeoutMs).unref();
      });
      return (await Promise.race([connect(), late])) !== undefined;
    },
    connections: () => made,
    async close() {
      closed = true;
      clearTimeout(retry);
      await connecting;
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
