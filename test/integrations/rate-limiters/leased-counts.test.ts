import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  leasedStore,
  leaseSize,
  type RateLimitStore,
} from '../../../src/integrations/rate-limiters/leased-counts.ts';
import { connectTestRedis } from '../../support/redis.ts';

const WINDOW_MS = 60_000;

/** One count through the store, as the plugin asks for it. */
const count = (store: RateLimitStore, key: string, max: number) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) => {
    store.incr(
      key,
      (error, result) => {
        if (error) reject(error);
        else if (result) resolve(result);
        else reject(new Error('no result'));
      },
      WINDOW_MS,
      max,
    );
  });

const allowed = (results: readonly { current: number }[], max: number) =>
  results.filter((r) => r.current <= max).length;

describe('the size of a lease', () => {
  it('is a twentieth of the limit, an eighth of what is left, and one near the end', () => {
    expect(leaseSize(600, 0)).toBe(30);
    expect(leaseSize(600, 440)).toBe(20);
    expect(leaseSize(600, 592)).toBe(1);
    expect(leaseSize(600, 700)).toBe(1);
    expect(leaseSize(5, 0)).toBe(1);
  });
});

describe('rate-limit counts leased from Redis', () => {
  let redis: Redis | null = null;
  const prefix = `test:leased:${randomUUID()}:`;

  beforeAll(async () => {
    redis = await connectTestRedis('leased rate-limit counts');
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('asks Redis once per block, and counts every token it leased', async ({ skip }) => {
    if (!redis) return skip();
    const store = leasedStore(redis, { prefix });
    const key = `user:${randomUUID()}`;
    const results = [];
    for (let i = 0; i < 30; i++) results.push(await count(store, key, 600));
    expect(results.map((r) => r.current)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // One block of 30 leased: the shared count says so, and has its window.
    expect(await redis.get(`${prefix}${key}`)).toBe('30');
    const ttl = await redis.pttl(`${prefix}${key}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    await count(store, key, 600);
    expect(await redis.get(`${prefix}${key}`)).toBe(String(30 + leaseSize(600, 30)));
  });

  it('never lets replicas together pass the limit, however the requests are spread', async ({ skip }) => {
    if (!redis) return skip();
    const replicas = [1, 2, 3].map(() => leasedStore(redis as Redis, { prefix }));
    const key = `user:${randomUUID()}`;
    const max = 200;
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => count(replicas[i % 3] as RateLimitStore, key, max)),
    );
    const passed = allowed(results, max);
    expect(passed).toBeLessThanOrEqual(max);
    // Tokens leased but unused by one replica are refused to the others: at most a block each.
    expect(passed).toBeGreaterThanOrEqual(max - 3 * leaseSize(max, 0));
    // Every refusal says how long until the window ends.
    for (const r of results.filter((x) => x.current > max)) expect(r.ttl).toBeGreaterThan(0);
  });

  it('refuses a spent count without asking Redis again, until its window ends', async ({ skip }) => {
    if (!redis) return skip();
    let clock = 1_000_000;
    const store = leasedStore(redis, { prefix, now: () => clock });
    const key = `user:${randomUUID()}`;
    for (let i = 0; i < 5; i++) expect((await count(store, key, 5)).current).toBeLessThanOrEqual(5);
    expect((await count(store, key, 5)).current).toBeGreaterThan(5);
    const shared = await redis.get(`${prefix}${key}`);
    expect((await count(store, key, 5)).current).toBeGreaterThan(5);
    expect(await redis.get(`${prefix}${key}`)).toBe(shared);
    // Past the window (this process's clock), it asks again: Redis still holds the old window here,
    // so the answer is still a refusal, but one that came from a new lease.
    clock += WINDOW_MS + 1;
    expect((await count(store, key, 5)).current).toBeGreaterThan(5);
    expect(Number(await redis.get(`${prefix}${key}`))).toBeGreaterThan(Number(shared));
  });

  it('keeps a route’s own limit apart from the shared one', async ({ skip }) => {
    if (!redis) return skip();
    const store = leasedStore(redis, { prefix });
    const route = store.child({ routeInfo: { method: 'GET', url: '/files/:id' } });
    const key = `ip:${randomUUID()}`;
    await count(store, key, 100);
    await count(route, key, 100);
    expect(await redis.get(`${prefix}${key}`)).toBe(String(leaseSize(100, 0)));
    expect(await redis.get(`${prefix}GET/files/:id-${key}`)).toBe(String(leaseSize(100, 0)));
  });

  it('hands the error on when Redis fails, so the plugin can fail open', async () => {
    // A real client with nothing to talk to: no server on port 1, no retries, no offline queue.
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await expect(count(leasedStore(down, { prefix }), 'user:x', 10)).rejects.toThrow();
    } finally {
      down.disconnect();
    }
  });
});
