import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { describeError } from '../lib/error-text.ts';

/**
 * Who has the app open (decision 026): every authenticated client poll marks its user as seen, and a chat
 * or ticket push waits while its user polls, since the poll delivers what the push is about. A mark is a
 * map write (no I/O per poll); with Redis the marks of the last second go out in one pipeline, so every
 * replica (and the push workers) sees users polling anywhere.
 */
export interface Presence {
  seen(userId: string): void;
  /** When the user was last seen polling, in ms since the epoch; 0 when not within the kept horizon. */
  lastSeen(userId: string): Promise<number>;
  close(): Promise<void>;
}

export interface PresenceOptions {
  readonly redis?: Redis | undefined;
  readonly logger: Logger;
  /** PUSH_ONLINE_WINDOW_MS: marks are kept a few windows, then forgotten. */
  readonly windowMs: number;
  /** How often marks are shared through Redis and old ones forgotten (1 s). */
  readonly flushMs?: number;
  readonly now?: () => number;
}

const KEY_PREFIX = 'push:seen:';

export function createPresence(options: PresenceOptions): Presence {
  const now = options.now ?? Date.now;
  const keepMs = Math.max(options.windowMs * 4, 60_000);
  const local = new Map<string, number>();
  let unshared = new Set<string>();

  const flush = async () => {
    const cutoff = now() - keepMs;
    for (const [userId, at] of local) if (at < cutoff) local.delete(userId);
    const { redis } = options;
    if (redis === undefined || unshared.size === 0) return;
    const batch = unshared;
    unshared = new Set();
    const pipeline = redis.pipeline();
    for (const userId of batch)
      pipeline.set(`${KEY_PREFIX}${userId}`, String(local.get(userId) ?? now()), 'PX', keepMs);
    try {
      await pipeline.exec();
    } catch (error) {
      options.logger.warn(
        { error: describeError(error) },
        'presence: cannot share polling users through Redis',
      );
    }
  };
  const timer = setInterval(() => void flush(), options.flushMs ?? 1_000);
  timer.unref();

  return {
    seen(userId) {
      local.set(userId, now());
      if (options.redis !== undefined) unshared.add(userId);
    },
    async lastSeen(userId) {
      const here = local.get(userId) ?? 0;
      if (options.redis === undefined) return here;
      try {
        const shared = Number((await options.redis.get(`${KEY_PREFIX}${userId}`)) ?? 0);
        return Math.max(here, Number.isFinite(shared) ? shared : 0);
      } catch (error) {
        options.logger.warn(
          { error: describeError(error) },
          'presence: cannot read polling users from Redis',
        );
        return here;
      }
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
