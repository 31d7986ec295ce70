import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';

/**
 * A store for @fastify/rate-limit (its `store` option) that shares the counts through Redis without a
 * round trip per request (decision 038). Each process leases a block of a key's shared count at once
 * (`INCRBY`) and hands the block out locally; the next request past the block leases again. Leased
 * tokens are real counts in Redis, so every replica together never lets more than `max` through in a
 * window. A block is at most a twentieth of the limit and at most an eighth of what the shared count
 * had left when leased, so near the limit a lease is one token and the count is as exact as one
 * `INCR` per request; the cost is that tokens one replica leased but did not use are refused to the
 * others until the window ends (at most a few blocks, early in the window). A count known to be spent is
 * refused locally, without Redis, until its window ends.
 */

/** What the plugin expects of a store (FastifyRateLimitStore). */
export interface RateLimitStore {
  readonly incr: (
    key: string,
    done: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ) => void;
  /** A store for a route's own limit, or for a hook made by the plugin's `rateLimit()` (no route). */
  readonly child: (params: unknown) => RateLimitStore;
}

/** The part of the key a route's own limit adds: its method and URL, as the plugin's Redis store names them. */
const routeInfo = z
  .object({ routeInfo: z.object({ method: z.union([z.string(), z.array(z.string())]), url: z.string() }) })
  .transform(({ routeInfo: { method, url } }) => `${[method].flat().join(',')}${url}-`);
const routePart = (params: unknown) => routeInfo.safeParse(params).data ?? '';

/** A block of the shared count: tokens `next` … `last` are this process's to hand out. */
interface Lease {
  next: number;
  last: number;
  /** When the shared window ends, in this process's clock (ms). */
  readonly endsAt: number;
}

/** Adds `n` to the count (starting its window when new) and answers the count and the window's ms left. */
const LEASE = `
local n = tonumber(ARGV[2])
local current = redis.call('INCRBY', KEYS[1], n)
local ttl = redis.call('PTTL', KEYS[1])
if current == n or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;

const BLOCK_SHARE = 20;
const LEFT_SHARE = 8;

/** Tokens to lease when the shared count was last seen at `seen`. */
export function leaseSize(max: number, seen: number): number {
  const block = Math.ceil(max / BLOCK_SHARE);
  return Math.max(1, Math.min(block, Math.floor((max - seen) / LEFT_SHARE)));
}

type LeaseReply = [number, number];

interface Leasing {
  lease(key: string, n: number, windowMs: number): Promise<LeaseReply>;
}

function redisLeasing(redis: Redis): Leasing {
  return {
    async lease(key, n, windowMs) {
      const reply = await redis.eval(LEASE, 1, key, windowMs, n);
      if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
        throw new Error('unexpected reply to the rate-limit lease');
      }
      return [reply[0], reply[1]];
    },
  };
}

export interface LeasedCountsOptions {
  /** Prefix of the Redis keys (the plugin's name space). */
  readonly prefix: string;
  /** Keys whose leases are remembered (least recently used go first). Default 100,000. */
  readonly keys?: number;
  /** The clock, in ms. */
  readonly now?: () => number;
}

function createStore(leasing: Leasing, options: LeasedCountsOptions): RateLimitStore {
  const now = options.now ?? Date.now;
  const leases = new LRUCache<string, Lease>({ max: options.keys ?? 100_000 });
  const pending = new Map<string, Promise<void>>();

  const take = (lease: Lease | undefined, at: number, max: number) => {
    if (!lease || at >= lease.endsAt) return null;
    const ttl = lease.endsAt - at;
    if (lease.next <= lease.last && lease.next <= max) return { current: lease.next++, ttl };
    // The shared count is spent for this window: every replica refuses until it ends.
    if (lease.last >= max) return { current: lease.last + 1, ttl };
    return null;
  };

  const renew = (key: string, windowMs: number, max: number): Promise<void> => {
    const running = pending.get(key);
    if (running) return running;
    const at = now();
    const known = leases.get(key);
    const seen = known && at < known.endsAt ? known.last : 0;
    const n = leaseSize(max, seen);
    const renewal = leasing
      .lease(`${options.prefix}${key}`, n, windowMs)
      .then(([current, ttl]) => {
        leases.set(key, { next: current - n + 1, last: current, endsAt: at + ttl });
      })
      .finally(() => pending.delete(key));
    pending.set(key, renewal);
    return renewal;
  };

  const incr: RateLimitStore['incr'] = (key, done, timeWindow, max) => {
    const served = take(leases.get(key), now(), max);
    if (served) {
      done(null, served);
      return;
    }
    // Requests arriving while a lease is on its way wait for it rather than lease one each.
    renew(key, timeWindow, max).then(
      () => {
        incr(key, done, timeWindow, max);
      },
      (error: unknown) => {
        done(error instanceof Error ? error : new Error(String(error)));
      },
    );
  };

  return {
    incr,
    child: (params) => createStore(leasing, { ...options, prefix: `${options.prefix}${routePart(params)}` }),
  };
}

/** The store on Redis. */
export const leasedStore = (redis: Redis, options: LeasedCountsOptions): RateLimitStore =>
  createStore(redisLeasing(redis), options);

/** A store as the plugin's `store` option takes it: a constructor (its settings are not needed here). */
export function storeClass(store: RateLimitStore): new () => RateLimitStore {
  return class LeasedCounts implements RateLimitStore {
    readonly incr = store.incr;
    readonly child = store.child;
  };
}

export { createStore as createLeasedStore, type Leasing, type LeaseReply };
