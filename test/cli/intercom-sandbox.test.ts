import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, type RunningApp, startApp, TEST_SECRETS } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
import { type Spawned, spawnService } from '../support/process.ts';
import { connectTestRedis } from '../support/redis.ts';
import { freePort } from '../../src/lib/free-port.ts';

const settingsOf = (output: string) =>
  z
    .object({
      SUPPORT_BASE_URL: z.url(),
      SUPPORT_ACCESS_TOKEN: z.string().min(20),
      SUPPORT_CLIENT_SECRET: z.string().min(20),
    })
    .parse(Object.fromEntries([...output.matchAll(/(SUPPORT_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]])));

const conversationView = z.object({
  messages: z.array(z.object({ author: z.object({ type: z.string() }), body: z.string() })),
});

const redis: Redis | null = await connectTestRedis('one Intercom sandbox for two replicas');

// Two replicas share one support provider as they share Intercom in production: the sandbox in a process
// of its own (`npm run cli -- intercom-sandbox`), its webhooks to one replica, the cache kept fresh on
// the other through Redis.
describe.skipIf(redis === null)('npm run cli -- intercom-sandbox', () => {
  const db = useTestDatabase();
  let dataDir = '';
  let sandbox: Spawned;
  let settings: ReturnType<typeof settingsOf>;
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'standalone-sandbox-'));
    const port = await freePort();
    sandbox = spawnService(
      process.execPath,
      [
        'src/cli.ts',
        'intercom-sandbox',
        '--port',
        '0',
        '--webhook-url',
        `http://127.0.0.1:${port}/webhooks/support`,
      ],
      { NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    );
    await sandbox.waitFor(/SUPPORT_CLIENT_SECRET=\S+/, 20_000);
    settings = settingsOf(sandbox.stdout());
    const env = { ...settings, REDIS_URL: process.env.REDIS_URL ?? '' };
    a = await startApp({ db, env, redis: redis ?? undefined, port });
    b = await startApp({ db, env, redis: redis ?? undefined });
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    sandbox.child.kill('SIGTERM');
    await sandbox.exited;
    await rm(dataDir, { recursive: true, force: true });
    await redis?.quit();
  });

  it('serves two replicas one chat: written through one, answered by the operator, seen on the other', async () => {
    const user = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'two-replica-user'));
    const created = await fetch(`${a.url}/api/conversations`, {
      method: 'POST',
      headers: { ...user, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Written through replica A' }),
    });
    expect(created.status).toBe(201);
    const { conversationId } = z.object({ conversationId: z.string() }).parse(await created.json());

    const read = async () => {
      const res = await fetch(`${b.url}/api/conversations/${conversationId}`, { headers: user });
      expect(res.status).toBe(200);
      return conversationView.parse(await res.json()).messages;
    };
    expect((await read()).map((m) => m.author.type)).toEqual(['user']);

    // The operator answers on the sandbox's own route; its webhook reaches replica A only.
    const replied = await fetch(
      `${settings.SUPPORT_BASE_URL}/_sandbox/operator/conversations/${conversationId}/reply`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${settings.SUPPORT_ACCESS_TOKEN}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ body: 'Answered by the operator' }),
      },
    );
    expect(replied.status).toBe(200);
    let messages: Awaited<ReturnType<typeof read>> = [];
    await waitUntil(async () => {
      messages = await read();
      return messages.length === 2;
    }, 10_000);
    expect(messages.map((m) => m.author.type)).toEqual(['user', 'operator']);
    expect(messages[1]?.body).toContain('Answered by the operator');
  });

  it('keeps its records under DATA_DIR', async () => {
    await waitUntil(async () => {
      const text = await readFile(join(dataDir, 'intercom-sandbox.json'), 'utf8').catch(() => '');
      return text.includes('Answered by the operator');
    }, 5_000);
    expect(sandbox.stdout()).toContain(`webhooks to http://127.0.0.1:`);
  });
});

describe('npm run cli -- intercom-sandbox in production', () => {
  it('refuses to run', async () => {
    // A configuration production accepts, so that what refuses is the command itself.
    const run = spawnService(process.execPath, ['src/cli.ts', 'intercom-sandbox'], {
      ...TEST_SECRETS,
      NODE_ENV: 'production',
      REQUIRE_JWT_EXP: '1',
      REQUIRE_OBJECT_STORE: '1',
      CORS_ORIGINS: 'https://app.test',
      SUPPORT_ACCESS_TOKEN: 'test-intercom-token',
      SUPPORT_CLIENT_SECRET: 'test-intercom-client-secret',
      PUBLIC_BASE_URL: 'https://support.test',
      DATABASE_URL: 'postgres://127.0.0.1:1/never',
      S3_BUCKET: 'uploads',
    });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('intercom-sandbox is not available in production');
  });
});
