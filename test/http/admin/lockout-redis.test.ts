import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/http/logger.ts';
import { createRedis } from '../../../src/integrations/redis.ts';
import { createTestAdmin, postLogin, type TestAdmin } from '../../support/admin.ts';
import { LogCapture, startApp, useTwoReplicas } from '../../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { connectTestRedis } from '../../support/redis.ts';

// Addresses of this run's own, so runs sharing one Redis never count each other's failures.
const randomIp = () => `172.${randomInt(16, 32)}.${randomInt(256)}.${randomInt(1, 255)}`;
const env = { TRUST_PROXY_HOPS: '1' };
const failFrom = (url: string, ip: string) =>
  postLogin(
    url,
    { email: `nobody-${randomInt(1e9)}@example.com`, password: 'wrong wrong wrong' },
    { 'x-forwarded-for': ip },
  );

let db: TestDatabase;
let admin: TestAdmin;
beforeAll(async () => {
  db = await createTestDatabase();
  admin = await createTestAdmin(db.pool, 'owner');
});
afterAll(async () => {
  await db.drop();
});

const redis = await connectTestRedis('login lockout in Redis');

describe.skipIf(redis === null)('login lockout in Redis, shared by replicas', () => {
  const replicas = useTwoReplicas(() => ({ db, env, redis: redis ?? undefined }));
  afterAll(async () => {
    await redis?.quit();
  });

  it('locks an IP on every replica after failures spread over them', async () => {
    const ip = randomIp();
    const { a, b } = replicas;
    for (let i = 0; i < 5; i++) expect((await failFrom(i % 2 === 0 ? a.url : b.url, ip)).status).toBe(401);
    for (const replica of [a, b]) {
      const answer = await postLogin(
        replica.url,
        { email: admin.email, password: admin.password },
        { 'x-forwarded-for': ip },
      );
      expect(answer.status).toBe(429);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    }
    const elsewhere = await postLogin(
      b.url,
      { email: admin.email, password: admin.password },
      { 'x-forwarded-for': randomIp() },
    );
    expect(elsewhere.status).toBe(200);
  });
});

describe('login lockout with Redis down', () => {
  it('falls back to counting in this process: logins work and the lock still holds', async () => {
    const logs = new LogCapture();
    const deadRedis = createRedis('redis://127.0.0.1:1', createLogger('warn', logs));
    const running = await startApp({ db, env, redis: deadRedis });
    try {
      const ip = randomIp();
      const ok = await postLogin(
        running.url,
        { email: admin.email, password: admin.password },
        { 'x-forwarded-for': ip },
      );
      expect(ok.status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await failFrom(running.url, ip)).status).toBe(401);
      const locked = await postLogin(
        running.url,
        { email: admin.email, password: admin.password },
        { 'x-forwarded-for': ip },
      );
      expect(locked.status).toBe(429);
    } finally {
      await running.close();
      deadRedis.disconnect();
    }
  });
});
