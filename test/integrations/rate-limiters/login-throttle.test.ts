import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AdmittedAttempt,
  type LoginAdmission,
  loginThrottle,
} from '../../../src/integrations/rate-limiters/login-throttle.ts';
import { connectTestRedis } from '../../support/redis.ts';

const options = { maxFailures: 3, windowSeconds: 900, lockSeconds: 900 };
const fresh = () => randomUUID();

function admitted(admission: LoginAdmission | undefined): AdmittedAttempt {
  if (!admission?.admitted) throw new Error(`refused: ${JSON.stringify(admission)}`);
  return admission;
}

const retryAfter = (admission: LoginAdmission): number => (admission.admitted ? 0 : admission.retryAfterMs);

function specify(redis: () => Redis | undefined): void {
  const throttle = () => loginThrottle({ ...options, redis: redis() });

  it('counts attempts in flight: the fourth at once from one IP is refused before any is checked', async () => {
    const limit = throttle();
    const ip = fresh();
    const held = await Promise.all([1, 2, 3].map(() => limit.admit(ip, fresh())));
    expect(held.every((a) => a.admitted)).toBe(true);
    expect((await limit.admit(ip, fresh())).admitted).toBe(false);
  });

  it('gives back the place of an attempt that succeeded or was abandoned, but not of a failure', async () => {
    const limit = throttle();
    const ip = fresh();
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => limit.admit(ip, fresh())));
    await admitted(a).succeeded();
    await admitted(b).abandoned();
    await admitted(c).failed();
    // One failure so far: two more may be checked, then the IP is locked by the third failure.
    const [d, e] = await Promise.all([limit.admit(ip, fresh()), limit.admit(ip, fresh())]);
    expect((await limit.admit(ip, fresh())).admitted).toBe(false);
    await admitted(d).failed();
    await admitted(e).failed();
    const locked = await limit.admit(ip, fresh());
    expect(locked.admitted).toBe(false);
    expect(retryAfter(locked)).toBeGreaterThan(899_000);
  });

  it('past the free failures, lets one attempt per account be checked at a time, after its wait', async () => {
    const limit = throttle();
    const account = fresh();
    for (let i = 0; i < 3; i++) await admitted(await limit.admit(fresh(), account)).failed();
    const waiting = await limit.admit(fresh(), account);
    expect(retryAfter(waiting)).toBeGreaterThan(0);
    await limit.admit(fresh(), account); // still waiting: refused, and counts for nothing
    await new Promise((resolve) => setTimeout(resolve, retryAfter(waiting) + 50));
    const turns = await Promise.all([1, 2, 3, 4].map(() => limit.admit(fresh(), account)));
    expect(turns.filter((t) => t.admitted)).toHaveLength(1);
    // The holder's failure sets the next wait (2 s) before it gives up its turn.
    await admitted(turns.find((t) => t.admitted)).failed();
    const next = await limit.admit(fresh(), account);
    expect(retryAfter(next)).toBeGreaterThan(1_000);
  });

  it('starts an account afresh on a success', async () => {
    const limit = throttle();
    const account = fresh();
    const first = await Promise.all([1, 2, 3].map(() => limit.admit(fresh(), account)));
    await admitted(first[0]).failed();
    await admitted(first[1]).failed();
    await admitted(first[2]).succeeded();
    const again = await Promise.all([1, 2, 3].map(() => limit.admit(fresh(), account)));
    expect(again.every((a) => a.admitted)).toBe(true);
  });
}

describe('login throttle in memory', () => {
  specify(() => undefined);
});

const redis = await connectTestRedis('login throttle in Redis');

describe.skipIf(redis === null)('login throttle in Redis', () => {
  afterAll(async () => {
    await redis?.quit();
  });
  specify(() => redis ?? undefined);
});
