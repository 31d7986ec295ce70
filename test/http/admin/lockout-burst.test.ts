import { randomInt } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestAdmin, postLogin, type TestAdmin } from '../../support/admin.ts';
import { type RunningApp, startApp, useTwoReplicas } from '../../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { connectTestRedis } from '../../support/redis.ts';

// Guesses sent at once, as an attacker opens them: none may be checked before the earlier ones are counted.
const BURST = 50;
const MAX_FAILURES = 5;
const env = { TRUST_PROXY_HOPS: '1' };

// Addresses of this run's own, so runs sharing one Redis never count each other's failures.
const randomIp = () => `198.${randomInt(18, 20)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const ghost = () => `ghost-${randomInt(1e9)}@example.com`;

/** Sends `BURST` logins at once, the i-th to `urls[i % urls.length]`, and answers how many got each status. */
async function burst(
  urls: readonly string[],
  login: (i: number) => { body: { email: string; password: string }; ip: string },
): Promise<Map<number, number>> {
  const answers = await Promise.all(
    Array.from({ length: BURST }, (_, i) => {
      const { body, ip } = login(i);
      return postLogin(urls[i % urls.length] ?? '', body, from(ip));
    }),
  );
  const counts = new Map<number, number>();
  for (const answer of answers) {
    expect([401, 429]).toContain(answer.status);
    if (answer.status === 429) expect(answer.body.code).toBe('login_locked');
    counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
  }
  return counts;
}

const wrong = (admin: TestAdmin) => ({ email: admin.email, password: 'wrong but long enough' });
const right = (admin: TestAdmin) => ({ email: admin.email, password: admin.password });

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The same scenarios on one process without Redis and on two replicas sharing Redis. */
function scenarios(urls: () => readonly string[]): void {
  it(`checks at most ${MAX_FAILURES} of ${BURST} guesses at once from one address (other accounts)`, async () => {
    const ip = randomIp();
    const counts = await burst(urls(), () => ({ body: { email: ghost(), password: 'wrong wrong' }, ip }));
    expect(counts.get(401)).toBe(MAX_FAILURES);
    expect(counts.get(429)).toBe(BURST - MAX_FAILURES);
  });

  it(`checks at most ${MAX_FAILURES} of ${BURST} wrong passwords at once for one account from one address, and then locks it`, async () => {
    const admin = await createTestAdmin(db.pool, 'owner', 'burst');
    const ip = randomIp();
    const counts = await burst(urls(), () => ({ body: wrong(admin), ip }));
    expect(counts.get(401) ?? 0).toBeLessThanOrEqual(MAX_FAILURES);
    expect(counts.get(429)).toBeGreaterThanOrEqual(BURST - MAX_FAILURES);
    for (const url of urls()) {
      const after = await postLogin(url, right(admin), from(ip));
      expect(after.status).toBe(429);
      expect(Number(after.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    }
  });

  it(`slows one account down under ${BURST} guesses at once from as many addresses`, async () => {
    const admin = await createTestAdmin(db.pool, 'owner', 'botnet');
    const counts = await burst(urls(), () => ({ body: wrong(admin), ip: randomIp() }));
    // The free failures, and past them one guess at a time, with a wait after each.
    expect(counts.get(401) ?? 0).toBeGreaterThanOrEqual(MAX_FAILURES);
    expect(counts.get(401) ?? 0).toBeLessThanOrEqual(MAX_FAILURES + 1);
    const after = await postLogin(urls()[0] ?? '', right(admin), from(randomIp()));
    expect(after.status).toBe(429);
    expect(after.body.code).toBe('login_locked');
  });
}

describe('login lockout under a burst, in this process', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ db, env });
  });
  afterAll(async () => {
    await running.close();
  });

  scenarios(() => [running.url]);

  it('refuses the right password after the burst until the lock ends, then lets it in', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const admin = await createTestAdmin(db.pool, 'owner', 'after-lock');
    const ip = randomIp();
    await burst([running.url], () => ({ body: wrong(admin), ip }));
    vi.setSystemTime(Date.now() + 14 * 60_000);
    expect((await postLogin(running.url, right(admin), from(ip))).status).toBe(429);
    vi.setSystemTime(Date.now() + 61_000);
    expect((await postLogin(running.url, right(admin), from(ip))).status).toBe(200);
  });

  it('gives a success its attempt back: signing in often from one address never locks it', async () => {
    const admin = await createTestAdmin(db.pool, 'owner', 'office');
    const ip = randomIp();
    const answers = await Promise.all(
      Array.from({ length: 3 * MAX_FAILURES }, () => postLogin(running.url, right(admin), from(ip))),
    );
    // Five at a time are let through; none of them fails, so each gives its place back.
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(MAX_FAILURES);
    expect((await postLogin(running.url, right(admin), from(ip))).status).toBe(200);
    for (let i = 0; i < MAX_FAILURES - 1; i++) {
      expect((await postLogin(running.url, wrong(admin), from(ip))).status).toBe(401);
    }
    expect((await postLogin(running.url, right(admin), from(ip))).status).toBe(200);
  });
});

const redis = await connectTestRedis('login lockout under a burst, in Redis');

describe.skipIf(redis === null)('login lockout under a burst, across two replicas sharing Redis', () => {
  const replicas = useTwoReplicas(() => ({ db, env, redis: redis ?? undefined }));
  afterAll(async () => {
    await redis?.quit();
  });

  scenarios(() => [replicas.a.url, replicas.b.url]);
});
