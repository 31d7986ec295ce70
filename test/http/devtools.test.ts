import { sql } from 'slonik';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { bearer, type EnvOverrides, startApp, TEST_SECRETS } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';

const db = useTestDatabase();

const headers = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'dev'));
const productionEnv: EnvOverrides = {
  NODE_ENV: 'production',
  REQUIRE_JWT_EXP: '1',
  REQUIRE_OBJECT_STORE: '1',
  S3_BUCKET: 'bucket',
  CORS_ORIGINS: 'https://app.example.com',
};

const settingsRows = () =>
  db.pool.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM notification_settings`,
  );

async function seed(url: string): Promise<void> {
  const res = await fetch(`${url}/api/settings/notifications`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: '{"chatMessages":false}',
  });
  expect(res.status).toBe(200);
}

describe('devtools mounting', () => {
  const cases: [string, EnvOverrides, { mounted: boolean }][] = [
    ['devtools off', {}, { mounted: false }],
    ['ENABLE_DEVTOOLS=1 without ENABLE_DEVTOOLS_RESET_ALL', { ENABLE_DEVTOOLS: '1' }, { mounted: false }],
    ['ENABLE_DEVTOOLS_RESET_ALL=1 alone', { ENABLE_DEVTOOLS_RESET_ALL: '1' }, { mounted: false }],
    [
      'both flags in production',
      { ...productionEnv, ENABLE_DEVTOOLS: '1', ENABLE_DEVTOOLS_RESET_ALL: '1' },
      { mounted: false },
    ],
    [
      'both flags outside production',
      { ENABLE_DEVTOOLS: '1', ENABLE_DEVTOOLS_RESET_ALL: '1' },
      { mounted: true },
    ],
  ];

  it.each(cases)('%s', async (_name, env, { mounted }) => {
    const running = await startApp({ db, env });
    try {
      await seed(running.url);
      const before = await settingsRows();
      expect(before).toBeGreaterThan(0);

      const res = await fetch(`${running.url}/api/devtools/reset-all`, { method: 'POST', headers });
      const openapi = (await (await fetch(`${running.url}/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      const documented = Object.keys(openapi.paths).includes('/api/devtools/reset-all');

      if (mounted) {
        expect(res.status).toBe(204);
        expect(await settingsRows()).toBe(0);
        expect(documented).toBe(true);
      } else {
        expect(res.status).toBe(404);
        expect(((await res.json()) as { code: string }).code).toBe('not_found');
        expect(await settingsRows()).toBe(before);
        expect(documented).toBe(false);
      }
    } finally {
      await running.close();
    }
  });

  it('still needs a session token when mounted', async () => {
    const running = await startApp({
      db,
      env: { ENABLE_DEVTOOLS: '1', ENABLE_DEVTOOLS_RESET_ALL: '1' },
    });
    try {
      await seed(running.url);
      const res = await fetch(`${running.url}/api/devtools/reset-all`, { method: 'POST' });
      expect(res.status).toBe(401);
      expect(await settingsRows()).toBeGreaterThan(0);
    } finally {
      await running.close();
    }
  });
});
