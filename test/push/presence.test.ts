import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.ts';
import { createPresence, type Presence } from '../../src/push/presence.ts';
import { connectTestRedis } from '../support/redis.ts';
import { waitUntil } from '../support/eventually.ts';

const logger = createLogger('silent');
const open: Presence[] = [];
const presence = (options: Parameters<typeof createPresence>[0]) => {
  const made = createPresence(options);
  open.push(made);
  return made;
};
afterEach(async () => {
  for (const p of open.splice(0)) await p.close();
});

describe('who is polling', () => {
  it('remembers when a user was last seen, here, with no I/O', async () => {
    let now = 1_000_000;
    const here = presence({ logger, windowMs: 8_000, now: () => now });
    expect(await here.lastSeen('u')).toBe(0);
    here.seen('u');
    now += 500;
    expect(await here.lastSeen('u')).toBe(1_000_000);
  });

  it('forgets a mark after a few windows', async () => {
    let now = 1_000_000;
    const here = presence({ logger, windowMs: 8_000, flushMs: 10, now: () => now });
    here.seen('u');
    now += 61_000;
    await waitUntil(async () => (await here.lastSeen('u')) === 0, 1_000);
  });
});

describe('who is polling, across replicas', () => {
  let redis: Redis | null = null;
  beforeAll(async () => {
    redis = await connectTestRedis('presence across replicas');
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it('shares marks through Redis within a flush', async ({ skip }) => {
    if (redis === null) return skip();
    const user = `user-${Math.random()}`;
    const a = presence({ logger, windowMs: 8_000, redis, flushMs: 20 });
    const b = presence({ logger, windowMs: 8_000, redis, flushMs: 20 });
    a.seen(user);
    await waitUntil(async () => (await b.lastSeen(user)) > 0, 2_000);
    expect(await b.lastSeen(user)).toBe(await a.lastSeen(user));
  });
});
