import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, type EnvOverrides, startApp, TEST_SECRETS } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';

const db = useTestDatabase();

const headers = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'dev'));
// Where reset-all leaves the new owner's password: never the checkout's own ./.data.
const dataDir = mkdtempSync(join(tmpdir(), 'devtools-reset-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});
const resetEnv: EnvOverrides = { ENABLE_DEVTOOLS: '1', ENABLE_DEVTOOLS_RESET_ALL: '1', DATA_DIR: dataDir };
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
    ['both flags outside production', resetEnv, { mounted: true }],
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
        expect(res.status).toBe(200);
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
    const running = await startApp({ db, env: resetEnv });
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

const resetAnswer = z.object({
  tablesEmptied: z.number(),
  owner: z.object({
    email: z.string(),
    password: z.string(),
    passwordFile: z.string().optional(),
    login: z.string(),
  }),
});

async function signIn(url: string, email: string, password: string) {
  const login = await fetch(`${url}/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(login.status).toBe(200);
  const { token } = z.object({ token: z.string() }).parse(await login.json());
  const me = await fetch(`${url}/admin/me`, { headers: bearer(token) });
  expect(me.status).toBe(200);
  return z.object({ email: z.string(), role: z.string() }).parse(await me.json());
}

describe('reset-all leaves an owner who can sign in', () => {
  it('a generated password in a file only this user reads, named in the answer, never in it', async () => {
    const running = await startApp({ db, env: resetEnv });
    try {
      await seed(running.url);
      const res = await fetch(`${running.url}/api/devtools/reset-all`, { method: 'POST', headers });
      expect(res.status).toBe(200);
      const text = await res.text();
      const { owner, tablesEmptied } = resetAnswer.parse(JSON.parse(text));
      expect(tablesEmptied).toBeGreaterThan(10);
      expect(owner).toMatchObject({
        email: 'owner@example.com',
        password: 'in_file',
        passwordFile: join(dataDir, 'first-admin-password.txt'),
      });
      expect(owner.login).toContain('POST /admin/auth/login');
      expect(owner.login).toContain(join(dataDir, 'first-admin-password.txt'));
      const file = owner.passwordFile ?? '';
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const password = readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(15);
      expect(text).not.toContain(password);
      expect(running.logs.text).not.toContain(password);
      expect(await signIn(running.url, owner.email, password)).toMatchObject({
        email: 'owner@example.com',
        role: 'owner',
      });
      // Everything else is gone.
      expect(await settingsRows()).toBe(0);
    } finally {
      await running.close();
    }
  });

  it('the configured ADMIN_BOOTSTRAP_EMAIL and ADMIN_BOOTSTRAP_PASSWORD when set', async () => {
    const password = 'correct horse battery staple reset';
    const running = await startApp({
      db,
      env: { ...resetEnv, ADMIN_BOOTSTRAP_EMAIL: 'ops@example.com', ADMIN_BOOTSTRAP_PASSWORD: password },
    });
    try {
      const res = await fetch(`${running.url}/api/devtools/reset-all`, { method: 'POST', headers });
      expect(res.status).toBe(200);
      const { owner } = resetAnswer.parse(await res.json());
      expect(owner).toMatchObject({ email: 'ops@example.com', password: 'ADMIN_BOOTSTRAP_PASSWORD' });
      expect(owner.passwordFile).toBeUndefined();
      expect(await signIn(running.url, 'ops@example.com', password)).toMatchObject({ role: 'owner' });
    } finally {
      await running.close();
    }
  });
});
