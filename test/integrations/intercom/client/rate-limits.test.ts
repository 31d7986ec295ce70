import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../support/clock.ts';
import { waitUntil } from '../../../support/eventually.ts';
import { connectTestRedis } from '../../../support/redis.ts';
import { clientOf, errorList, failure, useFakeIntercom, fixtures } from './fake-intercom.ts';

const fake = useFakeIntercom((f) => {
  f.on('GET /me', { body: fixtures.admin }).on('POST /tags', { body: fixtures.tag });
});

// A whole minute, so every window of these tests starts on it.
const START = Date.UTC(2030, 0, 1);

/** A clock of the test's own, which the client's holds and budget windows run on. */
const clocked = (start = START) => {
  const clock = new ManualClock(start);
  return { clock, timing: { now: clock.now, sleep: clock.sleep } };
};

const tooMany = (reset: number | undefined) => ({
  status: 429,
  body: errorList('rate_limit_exceeded', 'Exceeded rate limit of 166 in 10 seconds'),
  headers: {
    'x-ratelimit-limit': '166',
    'x-ratelimit-remaining': '0',
    ...(reset === undefined ? {} : { 'x-ratelimit-reset': String(reset) }),
  },
});

describe('429 from Intercom', () => {
  it('fails the call with the wait until X-RateLimit-Reset, and holds every call of the client until then', async () => {
    const { clock, timing } = clocked(START + 200);
    const { client } = clientOf(fake, { maxWaitMs: 3_000, ...timing });
    const reset = START / 1000 + 1;
    fake.sequence('GET /me', [tooMany(reset), { body: fixtures.admin }]);

    const error = await failure(client.me());
    expect(error).toMatchObject({
      kind: 'rate_limited',
      reason: 'provider_limit',
      status: 429,
      code: 'rate_limit_exceeded',
      retryAfterMs: 800,
    });
    expect(client.state().heldUntil).toBe(reset * 1000);

    // Neither a read nor a write is sent before the reset; both go through at it.
    const held = Promise.all([client.me(), client.createTag('held')]);
    await waitUntil(() => clock.sleeping === 2);
    expect(clock.wakes).toEqual([reset * 1000, reset * 1000]);
    clock.advance(799);
    expect(clock.sleeping).toBe(2);
    expect(fake.count()).toBe(1);
    clock.advance(1);
    await held;
    expect(fake.count()).toBe(3);
    expect(client.state().heldUntil).toBeNull();
  });

  it('fails at once, without calling Intercom, when the reset is further away than the longest wait', async () => {
    const { clock, timing } = clocked();
    const { client } = clientOf(fake, { maxWaitMs: 200, ...timing });
    fake.sequence('GET /me', [tooMany(START / 1000 + 2)]);
    await failure(client.me());
    const error = await failure(client.createTag('x'));
    expect(error).toMatchObject({ kind: 'rate_limited', reason: 'provider_limit', retryAfterMs: 2_000 });
    // At once: it settled on a clock that never moved, and never slept.
    expect(clock.slept).toEqual([]);
    expect(fake.count()).toBe(1);
  });

  it('waits one window when the reset header is missing, and does not retry the 429', async () => {
    const { client } = clientOf(fake, { rateLimitFallbackMs: 400, maxRetries: 2, ...clocked().timing });
    fake.sequence('GET /me', [tooMany(undefined)]);
    expect((await failure(client.me())).retryAfterMs).toBe(400);
    expect(fake.count()).toBe(1);
  });
});

describe('app-wide budget', () => {
  it('sends at most N calls per window; the N+1th waits for the next window', async () => {
    const windowMs = 400;
    const { clock, timing } = clocked();
    const { client } = clientOf(fake, { budgetPerWindow: 3, budgetWindowMs: windowMs, ...timing });
    const calls = Promise.all(Array.from({ length: 7 }, () => client.me()));
    // Seven calls at three a window need three windows: 3, then 3, then 1.
    await waitUntil(() => fake.count() === 3 && clock.sleeping === 4);
    expect(clock.wakes).toEqual(Array.from({ length: 4 }, () => START + windowMs));
    clock.advance(windowMs);
    await waitUntil(() => fake.count() === 6 && clock.sleeping === 1);
    expect(clock.wakes).toEqual([START + 2 * windowMs]);
    clock.advance(windowMs);
    await calls;
    expect(fake.count()).toBe(7);
  });

  it('fails as rate_limited when the next window is further away than the longest wait', async () => {
    const windowMs = 60_000;
    const { clock, timing } = clocked(START + 1_000);
    const { client } = clientOf(fake, {
      budgetPerWindow: 2,
      budgetWindowMs: windowMs,
      maxWaitMs: 100,
      ...timing,
    });
    await client.me();
    await client.createTag('x');
    const error = await failure(client.me());
    expect(error).toMatchObject({ kind: 'rate_limited', reason: 'budget', retryAfterMs: windowMs - 1_000 });
    expect(clock.slept).toEqual([]);
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
    const { clock, timing } = clocked();
    const shared = {
      redis: redis ?? undefined,
      budgetPerWindow: 3,
      budgetWindowMs: windowMs,
      budgetKeyPrefix: `intercom-budget-test-${randomUUID()}`,
      ...timing,
    };
    const a = clientOf(fake, shared).client;
    const b = clientOf(fake, shared).client;
    const calls = Promise.all([
      ...Array.from({ length: 4 }, () => a.me()),
      ...Array.from({ length: 4 }, () => b.me()),
    ]);
    // Eight calls of two clients at three a window: 3, then 3, then 2.
    await waitUntil(() => fake.count() === 3 && clock.sleeping === 5);
    clock.advance(windowMs);
    await waitUntil(() => fake.count() === 6 && clock.sleeping === 2);
    clock.advance(windowMs);
    await calls;
    expect(fake.count()).toBe(8);
  });
});
