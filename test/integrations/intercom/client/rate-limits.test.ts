import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis } from '../../../support/redis.ts';
import { clientOf, errorList, failure, useFakeIntercom, fixtures, type Received } from './fake-intercom.ts';

const fake = useFakeIntercom((f) => {
  f.on('GET /me', { body: fixtures.admin }).on('POST /tags', { body: fixtures.tag });
});

const tooMany = (reset: number | undefined) => ({
  status: 429,
  body: errorList('rate_limit_exceeded', 'Exceeded rate limit of 166 in 10 seconds'),
  headers: {
    'x-ratelimit-limit': '166',
    'x-ratelimit-remaining': '0',
    ...(reset === undefined ? {} : { 'x-ratelimit-reset': String(reset) }),
  },
});

/** Requests per budget window, by the time they reached the server. */
const perWindow = (received: readonly Received[], windowMs: number) => {
  const counts = new Map<number, number>();
  for (const r of received)
    counts.set(Math.floor(r.at / windowMs), (counts.get(Math.floor(r.at / windowMs)) ?? 0) + 1);
  return counts;
};

/** Waits for a fresh window when the current one is nearly over, so a test's calls share one. */
async function freshWindow(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await sleep(left + 5);
}

describe('429 from Intercom', () => {
  it('fails the call with the wait until X-RateLimit-Reset, and holds every call of the client until then', async () => {
    const { client } = clientOf(fake, { maxWaitMs: 3_000 });
    const reset = Math.ceil((Date.now() + 500) / 1000);
    fake.sequence('GET /me', [tooMany(reset), { body: fixtures.admin }]);

    const error = await failure(client.me());
    const untilReset = reset * 1000 - Date.now();
    expect(error).toMatchObject({
      kind: 'rate_limited',
      reason: 'provider_limit',
      status: 429,
      code: 'rate_limit_exceeded',
    });
    expect(error.retryAfterMs).toBeGreaterThan(untilReset - 50);
    expect(error.retryAfterMs).toBeLessThanOrEqual(untilReset + 50);
    expect(client.state().heldUntil).not.toBeNull();

    // Neither a read nor a write is sent before the reset; both go through after it.
    await Promise.all([client.me(), client.createTag('held')]);
    const [, ...held] = fake.received;
    expect(held).toHaveLength(2);
    for (const request of held) expect(request.at).toBeGreaterThanOrEqual(reset * 1000 - 5);
  });

  it('fails at once, without calling Intercom, when the reset is further away than the longest wait', async () => {
    const { client } = clientOf(fake, { maxWaitMs: 200 });
    const reset = Math.ceil((Date.now() + 1_500) / 1000);
    fake.sequence('GET /me', [tooMany(reset)]);
    await failure(client.me());
    const started = Date.now();
    const error = await failure(client.createTag('x'));
    expect(Date.now() - started).toBeLessThan(100);
    expect(error).toMatchObject({ kind: 'rate_limited', reason: 'provider_limit' });
    expect(error.retryAfterMs).toBeGreaterThan(200);
    expect(fake.count()).toBe(1);
  });

  it('waits one window when the reset header is missing, and does not retry the 429', async () => {
    const { client } = clientOf(fake, { rateLimitFallbackMs: 400, maxRetries: 2 });
    fake.sequence('GET /me', [tooMany(undefined)]);
    expect((await failure(client.me())).retryAfterMs).toBe(400);
    expect(fake.count()).toBe(1);
  });
});

describe('app-wide budget', () => {
  it('sends at most N calls per window; the N+1th waits for the next window', async () => {
    const windowMs = 400;
    const { client } = clientOf(fake, { budgetPerWindow: 3, budgetWindowMs: windowMs });
    await freshWindow(windowMs, 150);
    const started = Date.now();
    await Promise.all(Array.from({ length: 7 }, () => client.me()));
    const counts = perWindow(fake.received, windowMs);
    expect([...counts.values()].every((n) => n <= 3)).toBe(true);
    expect(fake.count()).toBe(7);
    // Seven calls at three a window need three windows.
    expect(counts.size).toBe(3);
    expect(Date.now() - started).toBeGreaterThan(windowMs);
  });

  it('fails as rate_limited when the next window is further away than the longest wait', async () => {
    const windowMs = 60_000;
    const { client } = clientOf(fake, { budgetPerWindow: 2, budgetWindowMs: windowMs, maxWaitMs: 100 });
    await freshWindow(windowMs, 1_000);
    await client.me();
    await client.createTag('x');
    const error = await failure(client.me());
    expect(error).toMatchObject({ kind: 'rate_limited', reason: 'budget' });
    expect(error.retryAfterMs).toBeGreaterThan(100);
    expect(error.retryAfterMs).toBeLessThanOrEqual(windowMs);
    expect(fake.count()).toBe(2);
  });
});

const redis = await connectTestRedis('Intercom budget in Redis');

describe.skipIf(redis === null)('app-wide budget in Redis', () => {
  afterAll(async () => {
    await redis?.quit();
  });

  it('is shared by every client (replica) on the same Redis', async () => {
    const windowMs = 500;
    const shared = {
      redis: redis ?? undefined,
      budgetPerWindow: 3,
      budgetWindowMs: windowMs,
      budgetKeyPrefix: `intercom-budget-test-${randomUUID()}`,
    };
    const a = clientOf(fake, shared).client;
    const b = clientOf(fake, shared).client;
    await freshWindow(windowMs, 200);
    await Promise.all([
      ...Array.from({ length: 4 }, () => a.me()),
      ...Array.from({ length: 4 }, () => b.me()),
    ]);
    const counts = perWindow(fake.received, windowMs);
    expect(fake.count()).toBe(8);
    expect([...counts.values()].every((n) => n <= 3)).toBe(true);
    expect(counts.size).toBe(3);
  });
});
