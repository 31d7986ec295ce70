import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.ts';
import { createRedis } from '../../src/integrations/redis.ts';
import {
  bearer,
  LogCapture,
  type RunningApp,
  startApp,
  TEST_SECRETS,
  useTwoReplicas,
} from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';
import { connectTestRedis } from '../support/redis.ts';

const path = '/api/settings/notifications';
const db = useTestDatabase();

const as = (running: RunningApp, user: string) =>
  fetch(running.url + path, { headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user)) });

describe('rate limit on /api (in memory)', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ db, env: { API_RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await running.close();
  });

  it('answers 429 rate_limited with Retry-After once a user is over the limit', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await as(running, 'busy')).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await as(running, 'busy');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { code: string }).code).toBe('rate_limited');
  });

  it('answers exactly the limit of a burst sent at once, and 429 to the rest', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => (await as(running, 'burst')).status),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(17);
  });

  it('counts each user separately, even from one address', async () => {
    for (let i = 0; i < 4; i++) await as(running, 'noisy');
    expect((await as(running, 'quiet')).status).toBe(200);
  });

  it('does not limit the health probes', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${running.url}/health/live`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('rate limit on the public file links (/files/*)', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({
      db,
      env: { API_RATE_LIMIT_PER_MINUTE: '3', FILES_RATE_LIMIT_PER_MINUTE: '4' },
    });
  });
  afterAll(async () => {
    await running.close();
  });

  it('answers 429 per client IP once over FILES_RATE_LIMIT_PER_MINUTE, on counters of their own', async () => {
    // A forged link is refused (403) and still counted: guessing links costs the guesser their budget.
    const links = [
      `/files/${randomUUID()}?t=1.x`,
      `/files/posts/${randomUUID()}/${randomUUID()}?t=1.x`,
      `/files/comments/${randomUUID()}?t=1.x`,
      `/files/${randomUUID()}`,
    ];
    const statuses = [];
    for (const link of links) statuses.push((await fetch(running.url + link)).status);
    expect(statuses).toEqual([403, 403, 403, 403]);
    const limited = await fetch(`${running.url}/files/comments/${randomUUID()}?t=1.x`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { code: string }).code).toBe('rate_limited');
    // The client API's counters are untouched by the file links.
    expect((await as(running, 'reader')).status).toBe(200);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^http_rate_limited_total\{method="GET",route="\/files\/comments\/:commentId",code="rate_limited",limit="files"\} 1$/m,
    );
  });
});

describe('rate limit on the public file links under a burst', () => {
  it('answers exactly the limit of guesses sent at once from one address, and 429 to the rest', async () => {
    const running = await startApp({ db, env: { FILES_RATE_LIMIT_PER_MINUTE: '4' } });
    try {
      const statuses = await Promise.all(
        Array.from(
          { length: 20 },
          async () => (await fetch(`${running.url}/files/${randomUUID()}?t=1.x`)).status,
        ),
      );
      expect(statuses.filter((s) => s === 403)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(16);
    } finally {
      await running.close();
    }
  });
});

describe('rate limit with Redis down', () => {
  it('fails open: the API keeps answering', async () => {
    const logs = new LogCapture();
    const deadRedis = createRedis('redis://127.0.0.1:1', createLogger('warn', logs));
    const running = await startApp({
      db,
      env: { API_RATE_LIMIT_PER_MINUTE: '1' },
      redis: deadRedis,
    });
    try {
      expect([
        (await as(running, 'during-outage')).status,
        (await as(running, 'during-outage')).status,
      ]).toEqual([200, 200]);
      expect(logs.text).toContain('redis error');
    } finally {
      await running.close();
      deadRedis.disconnect();
    }
  });
});

const redis = await connectTestRedis('rate limit in Redis');

describe.skipIf(redis === null)('rate limit on /api (in Redis, shared by replicas)', () => {
  const env = { API_RATE_LIMIT_PER_MINUTE: '4' };
  const replicas = useTwoReplicas(() => ({ db, env, redis: redis ?? undefined }));
  afterAll(async () => {
    await redis?.quit();
  });

  it('two replicas share one counter per user', async () => {
    const { a, b } = replicas;
    const user = `replicated-${randomUUID()}`;
    const statuses = [];
    for (const running of [a, b, a, b, a, b]) statuses.push((await as(running, user)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await as(b, `other-${randomUUID()}`)).status).toBe(200);
  });

  it('answers exactly the limit of a burst sent at once to both replicas', async () => {
    const { a, b } = replicas;
    const user = `burst-${randomUUID()}`;
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => (await as(i % 2 === 0 ? a : b, user)).status),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
  });
});
