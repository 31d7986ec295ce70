import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { slowMode } from '../../../src/integrations/rate-limiters/slow-mode.ts';
import { connectTestRedis } from '../../support/redis.ts';

const channel = () => randomUUID();

describe('slow mode in memory', () => {
  // The counters in memory expire by `Date.now()`: the test moves that clock by hand.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a quiet user post a burst, then one per interval', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const limit = slowMode(undefined);
    const rate = { intervalSeconds: 1, burst: 3 };
    const c = channel();
    for (let i = 0; i < 3; i++) expect(await limit.take(c, 'ann', rate)).toBe(0);
    expect(await limit.take(c, 'ann', rate)).toBe(1_000);
    // Another user, and the same user in another channel, have allowances of their own.
    expect(await limit.take(c, 'bob', rate)).toBe(0);
    expect(await limit.take(channel(), 'ann', rate)).toBe(0);
    vi.setSystemTime(Date.now() + 999);
    expect(await limit.take(c, 'ann', rate)).toBe(1);
    vi.setSystemTime(Date.now() + 1);
    expect(await limit.take(c, 'ann', rate)).toBe(0);
    expect(await limit.take(c, 'ann', rate)).toBeGreaterThan(0);
  });

  it('grants exactly the burst of twelve comments taken at once', async () => {
    const limit = slowMode(undefined);
    const c = channel();
    const waits = await Promise.all(
      Array.from({ length: 12 }, () => limit.take(c, 'ann', { intervalSeconds: 30, burst: 3 })),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(3);
  });

  it('with a burst of one, allows exactly one per interval', async () => {
    const limit = slowMode(undefined);
    const rate = { intervalSeconds: 10, burst: 1 };
    const c = channel();
    expect(await limit.take(c, 'ann', rate)).toBe(0);
    expect(await limit.take(c, 'ann', rate)).toBeGreaterThan(9000);
  });
});

const redis = await connectTestRedis('comment slow mode in Redis');

describe.skipIf(redis === null)('slow mode in Redis, shared by replicas', () => {
  afterAll(async () => {
    await redis?.quit();
  });

  it('grants exactly the burst of twelve comments taken at once on two replicas', async () => {
    const [a, b] = [slowMode(redis ?? undefined), slowMode(redis ?? undefined)];
    const c = channel();
    const waits = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? a : b).take(c, 'ann', { intervalSeconds: 30, burst: 3 }),
      ),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(3);
  });

  it("counts a user's comments on every replica together", async () => {
    const [a, b] = [slowMode(redis ?? undefined), slowMode(redis ?? undefined)];
    const rate = { intervalSeconds: 30, burst: 3 };
    const c = channel();
    expect(await a.take(c, 'ann', rate)).toBe(0);
    expect(await b.take(c, 'ann', rate)).toBe(0);
    expect(await a.take(c, 'ann', rate)).toBe(0);
    expect(await b.take(c, 'ann', rate)).toBeGreaterThan(0);
    expect(await a.take(c, 'ann', rate)).toBeGreaterThan(0);
  });
});
