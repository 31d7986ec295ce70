import { randomInt } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACCOUNT_CACHE_TTL_MS } from '../../../src/auth/admin-sessions.ts';
import { ADMIN_TOKEN_AUDIENCE, ADMIN_TOKEN_ISSUER } from '../../../src/auth/admin-tokens.ts';
import { adminCall, createTestAdmin, loginToken, postLogin, type TestAdmin } from '../../support/admin.ts';
import { startApp, TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { nowSeconds, sessionToken, signJwt } from '../../support/jwt.ts';

// Behind one trusted proxy, so each test can speak from addresses of its own.
const used = useRunningApp({ env: { TRUST_PROXY_HOPS: '1' } });
const url = () => used.running.url;
const pool = () => used.db.pool;

const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

let owner: TestAdmin;
beforeAll(async () => {
  owner = await createTestAdmin(pool(), 'owner');
});
afterEach(() => {
  vi.useRealTimers();
});

describe('POST /admin/auth/login', () => {
  it('answers a token, its expiry and the admin with its permissions', async () => {
    const before = Date.now();
    const answer = await postLogin(
      url(),
      { email: owner.email.toUpperCase(), password: owner.password },
      from(randomIp()),
    );
    expect(answer.status).toBe(200);
    const body = answer.body as { token: string; expiresAt: string; admin: Record<string, unknown> };
    expect(body.admin).toMatchObject({ id: owner.id, email: owner.email, role: 'owner', active: true });
    expect(body.admin.permissions).toContain('admins.manage');
    const ttl = Date.parse(body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(12 * 3600_000 - 5_000);
    expect(ttl).toBeLessThanOrEqual(12 * 3600_000 + 1_000);
    const me = await adminCall(url(), body.token, 'GET', '/admin/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: owner.id, lastLoginAt: expect.any(String) as string });
  });

  it('refuses an unknown email, a wrong password and a deactivated account with the same 401', async () => {
    const inactive = await createTestAdmin(pool(), 'author', 'inactive');
    const ownerToken = await loginToken(url(), owner);
    expect(
      (await adminCall(url(), ownerToken, 'POST', `/admin/admins/${inactive.id}/deactivate`)).status,
    ).toBe(200);
    const answers = await Promise.all([
      postLogin(url(), { email: 'nobody@example.com', password: owner.password }, from(randomIp())),
      postLogin(url(), { email: owner.email, password: `${owner.password}x` }, from(randomIp())),
      postLogin(url(), { email: inactive.email, password: inactive.password }, from(randomIp())),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        type: expect.any(String) as string,
        title: 'Unauthorized',
        status: 401,
        code: 'invalid_credentials',
        detail: 'The email or the password is wrong.',
      });
    }
  });

  it('replaces a stored hash made with older parameters on a successful login', async () => {
    const legacy = await createTestAdmin(pool(), 'auditor', 'legacy');
    const weaker = await hash(legacy.password.normalize('NFKC'), {
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    await pool().query(sql.unsafe`UPDATE admin_users SET password_hash = ${weaker} WHERE id = ${legacy.id}`);
    expect(
      (await postLogin(url(), { email: legacy.email, password: legacy.password }, from(randomIp()))).status,
    ).toBe(200);
    const stored = await pool().oneFirst(
      sql.type(
        z.object({ h: z.string() }),
      )`SELECT password_hash AS h FROM admin_users WHERE id = ${legacy.id}`,
    );
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=1\$/);
    expect(
      (await postLogin(url(), { email: legacy.email, password: legacy.password }, from(randomIp()))).status,
    ).toBe(200);
  });

  it('refuses a malformed body with 400 and nothing else', async () => {
    const answer = await postLogin(url(), { email: owner.email }, from(randomIp()));
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
  });
});

describe('login lockout per client IP', () => {
  const fail = (ip: string, email = `ghost-${randomInt(1e9)}@example.com`) =>
    postLogin(url(), { email, password: 'not the password at all' }, from(ip));

  it('locks an IP after 5 failures within the window, for 15 minutes, and then lets it in again', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const ip = randomIp();
    // Five different (unknown) emails: only the IP's count can lock.
    for (let i = 0; i < 5; i++) expect((await fail(ip)).status).toBe(401);
    const locked = await postLogin(url(), { email: owner.email, password: owner.password }, from(ip));
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('login_locked');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another client is not affected.
    expect(
      (await postLogin(url(), { email: owner.email, password: owner.password }, from(randomIp()))).status,
    ).toBe(200);

    vi.setSystemTime(Date.now() + 14 * 60_000);
    expect((await postLogin(url(), { email: owner.email, password: owner.password }, from(ip))).status).toBe(
      429,
    );
    vi.setSystemTime(Date.now() + 61_000);
    expect((await postLogin(url(), { email: owner.email, password: owner.password }, from(ip))).status).toBe(
      200,
    );
  });

  it('forgets failures older than the window', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const ip = randomIp();
    for (let i = 0; i < 4; i++) expect((await fail(ip)).status).toBe(401);
    vi.setSystemTime(Date.now() + 15 * 60_000 + 1_000);
    for (let i = 0; i < 4; i++) expect((await fail(ip)).status).toBe(401);
    expect((await postLogin(url(), { email: owner.email, password: owner.password }, from(ip))).status).toBe(
      200,
    );
  });

  it('keys the lock by the address the trusted proxy saw, not by what the client wrote before it', async () => {
    const client = randomIp();
    for (let i = 0; i < 5; i++) expect((await fail(`${randomIp()}, ${client}`)).status).toBe(401);
    const spoofed = await postLogin(
      url(),
      { email: owner.email, password: owner.password },
      from(`${randomIp()}, ${client}`),
    );
    expect(spoofed.status).toBe(429);
    // The same address written by the client, with another client behind the proxy: not locked.
    const other = await postLogin(
      url(),
      { email: owner.email, password: owner.password },
      from(`${client}, ${randomIp()}`),
    );
    expect(other.status).toBe(200);
  });

  it('without trusted proxies ignores X-Forwarded-For, so rotating it does not escape the lock', async () => {
    const db = used.db;
    const direct = await startApp({ db, env: { TRUST_PROXY_HOPS: '0' } });
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await postLogin(
          direct.url,
          { email: `x${i}@example.com`, password: 'wrong wrong wrong' },
          from(randomIp()),
        );
        expect(answer.status).toBe(401);
      }
      const answer = await postLogin(
        direct.url,
        { email: owner.email, password: owner.password },
        from(randomIp()),
      );
      expect(answer.status).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it('slows down one account failing from many IPs, doubling the wait, and resets on success', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const target = await createTestAdmin(pool(), 'support', 'many-ips');
    const wrong = () =>
      postLogin(url(), { email: target.email, password: 'wrong but long enough' }, from(randomIp()));
    const right = () =>
      postLogin(url(), { email: target.email, password: target.password }, from(randomIp()));
    for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(401);
    const first = await right();
    expect(first.status).toBe(429);
    expect(first.body.code).toBe('login_locked');
    expect(first.headers.get('retry-after')).toBe('1');
    vi.setSystemTime(Date.now() + 1_100);
    expect((await wrong()).status).toBe(401);
    const second = await right();
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('2');
    vi.setSystemTime(Date.now() + 2_100);
    expect((await right()).status).toBe(200);
    // The success cleared the account's count: one more failure is not slowed down.
    expect((await wrong()).status).toBe(401);
    expect((await right()).status).toBe(200);
  });
});

describe('admin session tokens', () => {
  const me = (token: string | null) => adminCall(url(), token, 'GET', '/admin/me');
  const claims = () => ({
    sub: owner.id,
    sv: 1,
    iss: ADMIN_TOKEN_ISSUER,
    aud: ADMIN_TOKEN_AUDIENCE,
    exp: nowSeconds() + 600,
  });
  const admin = (extra: Record<string, unknown>) =>
    signJwt({ ...claims(), ...extra }, TEST_SECRETS.ADMIN_SESSION_SECRET);

  // Built inside the test: the owner exists only once the suite has started.
  const refused: [string, () => string | null][] = [
    ['no token', () => null],
    ['garbage', () => 'garbage'],
    ['a client session JWT', () => sessionToken(TEST_SECRETS.JWT_SECRET, owner.id)],
    ['the wrong secret', () => signJwt(claims(), 'another-admin-secret-0123456789abcdef')],
    ['alg none', () => signJwt(claims(), TEST_SECRETS.ADMIN_SESSION_SECRET, 'none')],
    [
      'an expired token',
      () => signJwt({ ...claims(), exp: nowSeconds() - 60 }, TEST_SECRETS.ADMIN_SESSION_SECRET),
    ],
    ['another audience', () => admin({ aud: 'client' })],
    ['no audience', () => admin({ aud: undefined })],
    ['another issuer', () => admin({ iss: 'host-backend' })],
    ['no issuer', () => admin({ iss: undefined })],
    ['neither issuer nor audience', () => admin({ iss: undefined, aud: undefined })],
    ['no session version', () => signJwt({ ...claims(), sv: undefined }, TEST_SECRETS.ADMIN_SESSION_SECRET)],
    ['a wrong session version', () => signJwt({ ...claims(), sv: 2 }, TEST_SECRETS.ADMIN_SESSION_SECRET)],
  ];

  it.each(refused)('refuses %s with 401 unauthenticated', async (_name, token) => {
    const answer = await me(token());
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('accepts a token forged with the right secret and claims (the check above is not vacuous)', async () => {
    expect((await me(signJwt(claims(), TEST_SECRETS.ADMIN_SESSION_SECRET))).status).toBe(200);
  });

  it('signs its own tokens with the issuer and the audience', async () => {
    const token = await loginToken(url(), owner);
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      iss?: unknown;
      aud?: unknown;
    };
    expect(payload).toMatchObject({ iss: ADMIN_TOKEN_ISSUER, aud: ADMIN_TOKEN_AUDIENCE });
  });

  it('and client session tokens never stand in for each other, even when both secrets are the same', async () => {
    // Production refuses equal secrets; development allows them, so only the claims keep the two apart.
    const shared = await startApp({
      db: used.db,
      env: { ADMIN_SESSION_SECRET: TEST_SECRETS.JWT_SECRET },
    });
    try {
      const settings = (token: string) => adminCall(shared.url, token, 'GET', '/api/settings/notifications');
      const adminToken = await loginToken(shared.url, owner);
      const clientToken = sessionToken(TEST_SECRETS.JWT_SECRET, owner.id);
      // Each works where it belongs (so the refusals below are not vacuous) …
      expect((await adminCall(shared.url, adminToken, 'GET', '/admin/me')).status).toBe(200);
      expect((await settings(clientToken)).status).toBe(200);
      // … and nowhere else.
      const asClient = await settings(adminToken);
      expect(asClient.status).toBe(401);
      expect(asClient.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const asAdmin = await adminCall(shared.url, clientToken, 'GET', '/admin/me');
      expect(asAdmin.status).toBe(401);
      expect(asAdmin.body).toMatchObject({ code: 'unauthenticated' });
      // A client token given admin claims but no admin issuer or audience is refused too.
      const lookalike = signJwt({ ...claims(), iss: undefined, aud: undefined }, TEST_SECRETS.JWT_SECRET);
      expect((await adminCall(shared.url, lookalike, 'GET', '/admin/me')).status).toBe(401);
      expect((await settings(lookalike)).status).toBe(200);
    } finally {
      await shared.close();
    }
  });

  it('refuses a tampered token', async () => {
    const token = await loginToken(url(), owner);
    const [head, , signature] = token.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claims(), role: 'owner', sv: 99 })).toString('base64url');
    expect((await me(`${head}.${payload}.${signature}`)).status).toBe(401);
  });

  it('stops verifying after its lifetime (12 hours)', async () => {
    const token = await loginToken(url(), owner);
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 12 * 3600_000 - 60_000);
    expect((await me(token)).status).toBe(200);
    vi.setSystemTime(Date.now() + 2 * 60_000 + 5_000);
    expect((await me(token)).status).toBe(401);
  });

  it('ends with deactivation, and stays ended after a later activation', async () => {
    const author = await createTestAdmin(pool(), 'author');
    const token = await loginToken(url(), author);
    const ownerToken = await loginToken(url(), owner);
    expect((await me(token)).status).toBe(200);
    expect((await adminCall(url(), ownerToken, 'POST', `/admin/admins/${author.id}/deactivate`)).status).toBe(
      200,
    );
    expect((await me(token)).status).toBe(401);
    expect((await adminCall(url(), ownerToken, 'POST', `/admin/admins/${author.id}/activate`)).status).toBe(
      200,
    );
    expect((await me(token)).status).toBe(401);
    expect((await me(await loginToken(url(), author))).status).toBe(200);
  });

  it('ends with a password change, for every token of that admin', async () => {
    const author = await createTestAdmin(pool(), 'author');
    const tokens = [await loginToken(url(), author), await loginToken(url(), author)];
    const ownerToken = await loginToken(url(), owner);
    const password = 'A new and long enough password';
    const set = await adminCall(url(), ownerToken, 'POST', `/admin/admins/${author.id}/password`, {
      password,
    });
    expect(set.status).toBe(204);
    for (const token of tokens) expect((await me(token)).status).toBe(401);
    expect(
      (await postLogin(url(), { email: author.email, password: author.password }, from(randomIp()))).status,
    ).toBe(401);
    expect((await me(await loginToken(url(), { email: author.email, password }))).status).toBe(200);
  });

  it('ends with logout-all, for every token of that admin only', async () => {
    const moderator = await createTestAdmin(pool(), 'moderator');
    const [a, b] = [await loginToken(url(), moderator), await loginToken(url(), moderator)];
    const other = await loginToken(url(), owner);
    expect((await adminCall(url(), a, 'POST', '/admin/auth/logout-all')).status).toBe(204);
    expect((await me(a)).status).toBe(401);
    expect((await me(b)).status).toBe(401);
    expect((await me(other)).status).toBe(200);
  });

  it('ends on another replica within the cache lifetime', async () => {
    const replica = await startApp({ db: used.db, env: { TRUST_PROXY_HOPS: '1' } });
    try {
      const author = await createTestAdmin(pool(), 'author');
      const token = await loginToken(url(), author);
      expect((await adminCall(replica.url, token, 'GET', '/admin/me')).status).toBe(200);
      expect((await adminCall(url(), token, 'POST', '/admin/auth/logout-all')).status).toBe(204);
      await new Promise((r) => setTimeout(r, ACCOUNT_CACHE_TTL_MS + 100));
      expect((await adminCall(replica.url, token, 'GET', '/admin/me')).status).toBe(401);
    } finally {
      await replica.close();
    }
  });

  it('all end when ADMIN_SESSION_SECRET is rotated', async () => {
    const token = await loginToken(url(), owner);
    const rotated = await startApp({
      db: used.db,
      env: { ADMIN_SESSION_SECRET: 'a-rotated-admin-session-secret-0123456789' },
    });
    try {
      expect((await adminCall(rotated.url, token, 'GET', '/admin/me')).status).toBe(401);
      expect(
        (await adminCall(rotated.url, await loginToken(rotated.url, owner), 'GET', '/admin/me')).status,
      ).toBe(200);
    } finally {
      await rotated.close();
    }
  });
});
