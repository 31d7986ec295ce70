import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';

const CHANNEL = 'support-cache:invalidate';
const message = z.object({ origin: z.string(), keys: z.array(z.string()).max(1_000) });

export interface InvalidationBus {
  /** Runs `apply` here at once and, through Redis, on every other replica. */
  publish(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Fans cache invalidations out to every replica over Redis pub/sub, or stays local without Redis (one
 * replica). A replica skips its own messages: it applied them when it published. Redis being down costs
 * the other replicas freshness until their TTL runs out, never a failed request.
 */
export async function createInvalidationBus(
  apply: (keys: readonly string[]) => void,
  redis: Redis | undefined,
  logger: Logger,
): Promise<InvalidationBus> {
  if (!redis) {
    return {
      publish(keys) {
        apply(keys);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
  }
  const origin = randomUUID();
  // A subscribed connection can run no other command: it needs one of its own.
  const subscriber = redis.duplicate();
  subscriber.on('error', (error: Error) => {
    logger.warn({ err: error }, 'support cache invalidation: redis subscriber error');
  });
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== CHANNEL) return;
    let parsed: z.infer<typeof message>;
    try {
      parsed = message.parse(JSON.parse(text));
    } catch {
      logger.warn('support cache invalidation: malformed message ignored');
      return;
    }
    if (parsed.origin !== origin) apply(parsed.keys);
  });
  try {
    await subscriber.subscribe(CHANNEL);
  } catch (error) {
    // ioredis subscribes again when the connection comes back; until then this replica relies on TTLs.
    logger.warn({ err: error }, 'support cache invalidation: not subscribed yet, redis unavailable');
  }
  return {
    async publish(keys) {
      apply(keys);
      try {
        await redis.publish(CHANNEL, JSON.stringify({ origin, keys }));
      } catch (error) {
        logger.warn({ err: error }, 'support cache invalidation not shared: redis unavailable');
      }
    },
    async close() {
      await subscriber.quit().catch(() => undefined);
    },
  };
}
