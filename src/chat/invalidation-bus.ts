import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';

const CHANNEL = 'support-cache:invalidate';
/** Keys per message, within what a receiver accepts. */
const MAX_KEYS = 1_000;
const message = z.object({
  origin: z.string(),
  keys: z.array(z.string()).max(MAX_KEYS).optional(),
  /** Everything: the sender could not share some invalidations while Redis was away from it. */
  all: z.literal(true).optional(),
  /** Drop the keys' copies rather than make them old (an erasure); older replicas just invalidate them. */
  forget: z.literal(true).optional(),
});

export interface InvalidationBus {
  /** Runs `apply` here at once and, through Redis, on every other replica. */
  publish(keys: readonly string[]): Promise<void>;
  /** Runs `forget` here at once and, through Redis, on every other replica. */
  forget(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface InvalidationTargets {
  /** Makes these keys' copies old. */
  apply(keys: readonly string[]): void;
  /** Drops these keys' copies. */
  forget(keys: readonly string[]): void;
  /** Makes every copy old: invalidations may have been missed. */
  applyAll(): void;
}

/**
 * Fans cache invalidations out to every replica over Redis pub/sub, or stays local without Redis (one
 * replica). A replica skips its own messages: it applied them when it published. Pub/sub keeps nothing
 * for a subscriber that is away, so nothing is lost by pretending it was not:
 * - a subscriber that comes back (ioredis subscribes again by itself) takes every copy as old;
 * - a replica that could not publish tells the others "everything" once Redis is back with it.
 * Copies stay as the fallback while Intercom is re-read (decision 020), so a Redis outage costs reads,
 * paced by the Intercom budget, never a failed request.
 */
export async function createInvalidationBus(
  targets: InvalidationTargets,
  redis: Redis | undefined,
  logger: Logger,
): Promise<InvalidationBus> {
  if (!redis) {
    return {
      publish(keys) {
        targets.apply(keys);
        return Promise.resolve();
      },
      forget(keys) {
        targets.forget(keys);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
  }
  const origin = randomUUID();
  // A subscribed connection can run no other command: it needs one of its own.
  const subscriber = redis.duplicate();
  let subscribedOnce = false;
  let owed = false;
  subscriber.on('error', (error: Error) => {
    logger.warn({ err: error }, 'support cache invalidation: redis subscriber error');
  });
  subscriber.on('ready', () => {
    // Each reconnection after the first: whatever was published meanwhile never came.
    if (subscribedOnce) {
      logger.info('support cache invalidation: subscribed again; every copy is read again on its next use');
      targets.applyAll();
    }
  });
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== CHANNEL) return;
    let parsed: z.infer<typeof message>;
    try {
      parsed = message.parse(JSON.parse(text));
    } catch {
      logger.warn('support cache invalidation: malformed message; every copy is read again');
      targets.applyAll();
      return;
    }
    if (parsed.origin === origin) return;
    if (parsed.all === true) targets.applyAll();
    else if (parsed.forget === true) targets.forget(parsed.keys ?? []);
    else targets.apply(parsed.keys ?? []);
  });
  const send = async (body: Omit<z.infer<typeof message>, 'origin'>) => {
    try {
      await redis.publish(CHANNEL, JSON.stringify({ origin, ...body }));
      return true;
    } catch (error) {
      logger.warn({ err: error }, 'support cache invalidation not shared: redis unavailable');
      owed = true;
      return false;
    }
  };
  const settle = () => {
    if (!owed) return;
    owed = false;
    void send({ all: true });
  };
  redis.on('ready', settle);
  try {
    await subscriber.subscribe(CHANNEL);
    subscribedOnce = true;
  } catch (error) {
    // ioredis subscribes again when the connection comes back; until then this replica relies on TTLs.
    logger.warn({ err: error }, 'support cache invalidation: not subscribed yet, redis unavailable');
    subscribedOnce = true;
  }
  return {
    async publish(keys) {
      targets.apply(keys);
      if (owed) settle();
      else await send({ keys: [...keys] });
    },
    // A replica that misses this keeps its copies until their TTL; no caller can read them meanwhile, since
    // the erased contact is nobody's any more.
    async forget(keys) {
      targets.forget(keys);
      settle();
      for (let at = 0; at < keys.length; at += MAX_KEYS) {
        await send({ keys: keys.slice(at, at + MAX_KEYS), forget: true });
      }
    },
    async close() {
      redis.off('ready', settle);
      await subscriber.quit().catch(() => undefined);
    },
  };
}
