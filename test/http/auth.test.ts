import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type RunningApp, startApp, TEST_SECRETS } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { nowSeconds, signJwt } from '../support/jwt.ts';

const path = '/api/settings/notifications';
const secret = TEST_SECRETS.JWT_SECRET;
let db: TestDatabase;
let strict: RunningApp; // REQUIRE_JWT_EXP=1
let lenient: RunningApp; // REQUIRE_JWT_EXP unset

beforeAll(async () => {
  db = await createTestDatabase();
  strict = await startApp({ db, env: { REQUIRE_JWT_EXP: '1' } });
  lenient = await startApp({ db });
});
afterAll(async () => {
  await strict.close();
  await lenient.close();
  await db.drop();
});

const exp = () => nowSeconds() + 600;

describe('client session JWT', () => {
  const refused: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a scheme other than Bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a malformed token', bearer('not.a.jwt')],
    ['garbage', bearer('x')],
    ['the wrong secret', bearer(signJwt({ sub: 'u1', exp: exp() }, 'another-secret-0123456789abcdefghijkl'))],
    ['alg none', bearer(signJwt({ sub: 'u1', exp: exp() }, secret, 'none'))],
    ['HS512 with the right secret', bearer(signJwt({ sub: 'u1', exp: exp() }, secret, 'HS512'))],
    ['an expired token', bearer(signJwt({ sub: 'u1', exp: nowSeconds() - 60 }, secret))],
    ['a token not valid yet', bearer(signJwt({ sub: 'u1', exp: exp(), nbf: nowSeconds() + 300 }, secret))],
    ['no exp while REQUIRE_JWT_EXP=1', bearer(signJwt({ sub: 'u1' }, secret))],
    ['no identity claim', bearer(signJwt({ exp: exp() }, secret))],
    ['an empty sub', bearer(signJwt({ sub: '', exp: exp() }, secret))],
    ['a numeric sub', bearer(signJwt({ sub: 42, exp: exp() }, secret))],
    [
      'a tampered payload',
      bearer(
        signJwt({ sub: 'u1', exp: exp() }, secret).replace(
          /\.[^.]+\./,
          `.${Buffer.from('{"sub":"admin"}').toString('base64url')}.`,
        ),
      ),
    ],
  ];

  it.each(refused)('refuses %s with 401 unauthenticated and no detail', async (_name, headers) => {
    const res = await fetch(strict.url + path, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      type: expect.any(String) as string,
      title: 'Unauthorized',
      status: 401,
      code: 'unauthenticated',
    });
  });

  it('accepts the identity from userId', async () => {
    const res = await fetch(strict.url + path, {
      headers: bearer(signJwt({ userId: 'from-user-id', sub: 'ignored', exp: exp() }, secret)),
    });
    expect(res.status).toBe(200);
  });

  it('falls back to sub when userId is absent or empty', async () => {
    const a = await fetch(strict.url + path, {
      headers: bearer(signJwt({ sub: 'from-sub', exp: exp() }, secret)),
    });
    const b = await fetch(strict.url + path, {
      headers: bearer(signJwt({ userId: '', sub: 'from-sub', exp: exp() }, secret)),
    });
    expect([a.status, b.status]).toEqual([200, 200]);
  });

  it('accepts a token without exp when REQUIRE_JWT_EXP is not set', async () => {
    const res = await fetch(lenient.url + path, { headers: bearer(signJwt({ sub: 'no-exp' }, secret)) });
    expect(res.status).toBe(200);
  });

  it('tolerates a few seconds of clock skew on exp', async () => {
    const res = await fetch(strict.url + path, {
      headers: bearer(signJwt({ sub: 'skew', exp: nowSeconds() - 1 }, secret)),
    });
    expect(res.status).toBe(200);
  });

  it('keeps two users apart: userId and sub name different people', async () => {
    const alice = bearer(signJwt({ userId: 'alice', exp: exp() }, secret));
    const bob = bearer(signJwt({ sub: 'bob', exp: exp() }, secret));
    const put = await fetch(strict.url + path, {
      method: 'PUT',
      headers: { ...alice, 'content-type': 'application/json' },
      body: JSON.stringify({ chatMessages: false, systemNotices: false }),
    });
    expect(put.status).toBe(200);
    const mine = (await (await fetch(strict.url + path, { headers: alice })).json()) as Record<
      string,
      boolean
    >;
    const theirs = (await (await fetch(strict.url + path, { headers: bob })).json()) as Record<
      string,
      boolean
    >;
    expect(mine).toEqual({ chatMessages: false, ticketUpdates: true, systemNotices: false });
    expect(theirs).toEqual({ chatMessages: true, ticketUpdates: true, systemNotices: true });
  });
});
