import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { verifyPassword } from '../../../src/auth/passwords.ts';
import { changeAdmin } from '../../../src/auth/admin-users.ts';
import {
  adminCall,
  createTestAdmin,
  goodPassword,
  loginToken,
  type TestAdmin,
  uniqueEmail,
} from '../../support/admin.ts';
import { useRunningApp } from '../../support/app.ts';

const countAdmins = (pool: Parameters<typeof createTestAdmin>[0]) =>
  pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM admin_users`);

describe('admin accounts', () => {
  const used = useRunningApp();
  const url = () => used.running.url;
  let ownerToken = '';
  beforeAll(async () => {
    ownerToken = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  });
  const call = (method: string, path: string, body?: unknown) =>
    adminCall(url(), ownerToken, method, path, body);

  it('creates an account that can sign in, with the email stored lower-case', async () => {
    const password = goodPassword();
    const email = uniqueEmail('mixed.case');
    const created = await call('POST', '/admin/admins', {
      email: email.toUpperCase(),
      name: ' Ann ',
      role: 'moderator',
      password,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email,
      name: 'Ann',
      role: 'moderator',
      permissions: ['comments.moderate', 'moderation.read'],
      active: true,
      lastLoginAt: null,
    });
    const token = await loginToken(url(), { email, password });
    expect((await adminCall(url(), token, 'GET', '/admin/me')).body).toMatchObject({ email });
    const hash = await used.db.pool.oneFirst(
      sql.type(
        z.object({ h: z.string() }),
      )`SELECT password_hash AS h FROM admin_users WHERE email = ${email}`,
    );
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=1\$/);
    expect(await verifyPassword(hash, password)).toBe(true);
  });

  it('refuses an email taken in any case with 409, storing nothing', async () => {
    const existing = await createTestAdmin(used.db.pool, 'support');
    const before = await countAdmins(used.db.pool);
    const again = await call('POST', '/admin/admins', {
      email: existing.email.toUpperCase(),
      name: 'Twin',
      role: 'support',
      password: goodPassword(),
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict' });
    expect(await countAdmins(used.db.pool)).toBe(before);
  });

  const weak: [string, string, string][] = [
    ['too short', 'short-but-ok1', 'must be at least 15 characters'],
    ['a common password', '1234567890qwerty', 'is one of the most common passwords'],
    ['a common password in another case', 'PasswordPassword', 'is one of the most common passwords'],
    ['one character repeated', 'zzzzzzzzzzzzzzzzzzzz', 'must not repeat a single character'],
    ['too long', 'x'.repeat(200) + 'y'.repeat(57), 'must be at most 256 characters'],
  ];
  it.each(weak)(
    'refuses a password that is %s with 400, not echoing it',
    async (_name, password, message) => {
      const before = await countAdmins(used.db.pool);
      const answer = await call('POST', '/admin/admins', {
        email: uniqueEmail('weak'),
        name: 'Weak',
        role: 'author',
        password,
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ path: 'body.password', message }],
      });
      expect(JSON.stringify(answer.body)).not.toContain(password);
      expect(await countAdmins(used.db.pool)).toBe(before);
    },
  );

  it('refuses the email address as the password', async () => {
    const email = uniqueEmail('self-named');
    const answer = await call('POST', '/admin/admins', {
      email,
      name: 'Self',
      role: 'author',
      password: email,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ message: 'must not be the email address' }] });
  });

  it.each([
    ['an unknown role', { role: 'root' }],
    ['an invalid email', { email: 'not-an-email' }],
    ['an unknown field', { admin: true }],
    ['an empty name', { name: '   ' }],
    ['a name with a control character', { name: 'Bad\u0007Name' }],
  ])('refuses %s with 400', async (_name, change) => {
    const body = {
      email: uniqueEmail('bad'),
      name: 'Bad',
      role: 'author',
      password: goodPassword(),
      ...change,
    };
    const answer = await call('POST', '/admin/admins', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'validation_failed' });
  });

  it("changes name and role; the role's permissions apply to that admin's next request", async () => {
    const admin = await createTestAdmin(used.db.pool, 'author');
    const token = await loginToken(url(), admin);
    expect((await adminCall(url(), token, 'GET', '/admin/audit-log')).status).toBe(403);
    const changed = await call('PATCH', `/admin/admins/${admin.id}`, {
      name: 'Auditor now',
      role: 'auditor',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Auditor now', role: 'auditor' });
    expect((await adminCall(url(), token, 'GET', '/admin/audit-log')).status).toBe(200);
  });

  it('refuses an empty patch, and answers 404 for an unknown admin', async () => {
    const admin = await createTestAdmin(used.db.pool, 'author');
    expect((await call('PATCH', `/admin/admins/${admin.id}`, {})).status).toBe(400);
    for (const [method, path, body] of [
      ['PATCH', `/admin/admins/${randomUUID()}`, { name: 'Nobody' }],
      ['POST', `/admin/admins/${randomUUID()}/deactivate`, undefined],
      ['POST', `/admin/admins/${randomUUID()}/activate`, undefined],
      ['POST', `/admin/admins/${randomUUID()}/password`, { password: goodPassword() }],
    ] as const) {
      const answer = await call(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body).toMatchObject({ code: 'not_found' });
    }
  });

  it('lists every admin in email order, page by page with an opaque cursor', async () => {
    for (let i = 0; i < 3; i++) await createTestAdmin(used.db.pool, 'support', 'listed');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const page = (await call('GET', `/admin/admins${query}`)).body as {
        items: { email: string }[];
        nextCursor: string | null;
      };
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((a) => a.email));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(await countAdmins(used.db.pool));
    expect((await call('GET', '/admin/admins?cursor=not*a*cursor')).status).toBe(400);
    expect((await call('GET', '/admin/admins?limit=101')).status).toBe(400);
  });
});

describe('the last active owner', () => {
  const used = useRunningApp();
  const url = () => used.running.url;
  let first: TestAdmin;
  let firstToken = '';
  beforeAll(async () => {
    first = await createTestAdmin(used.db.pool, 'owner', 'first-owner');
    firstToken = await loginToken(url(), first);
  });

  it('cannot be deactivated or lose the owner role, with 409', async () => {
    const deactivate = await adminCall(url(), firstToken, 'POST', `/admin/admins/${first.id}/deactivate`);
    expect(deactivate.status).toBe(409);
    expect(deactivate.body).toMatchObject({ code: 'conflict' });
    const demote = await adminCall(url(), firstToken, 'PATCH', `/admin/admins/${first.id}`, {
      role: 'auditor',
    });
    expect(demote.status).toBe(409);
    expect((await adminCall(url(), firstToken, 'GET', '/admin/me')).body).toMatchObject({
      role: 'owner',
      active: true,
    });
  });

  it('can step down once another owner is active; a deactivated owner does not count', async () => {
    const second = await createTestAdmin(used.db.pool, 'owner', 'second-owner');
    const third = await createTestAdmin(used.db.pool, 'owner', 'third-owner');
    expect((await adminCall(url(), firstToken, 'POST', `/admin/admins/${third.id}/deactivate`)).status).toBe(
      200,
    );
    const demoted = await adminCall(url(), firstToken, 'PATCH', `/admin/admins/${second.id}`, {
      role: 'author',
    });
    expect(demoted.status).toBe(200);
    // first is the only active owner again.
    expect((await adminCall(url(), firstToken, 'POST', `/admin/admins/${first.id}/deactivate`)).status).toBe(
      409,
    );
    // Restore second as an owner for the next test.
    expect(
      (await adminCall(url(), firstToken, 'PATCH', `/admin/admins/${second.id}`, { role: 'owner' })).status,
    ).toBe(200);
  });

  it('survives two owners deactivating each other at the same time: exactly one wins', async () => {
    const other = await used.db.pool.oneFirst(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM admin_users WHERE role = 'owner' AND active AND id <> ${first.id}`);
    const otherEmail = await used.db.pool.oneFirst(
      sql.type(z.object({ email: z.string() }))`SELECT email FROM admin_users WHERE id = ${other}`,
    );
    // Give the other owner a known password so it can sign in.
    const password = goodPassword();
    expect(
      (await adminCall(url(), firstToken, 'POST', `/admin/admins/${other}/password`, { password })).status,
    ).toBe(204);
    const otherToken = await loginToken(url(), { email: otherEmail, password });
    const answers = await Promise.all([
      adminCall(url(), firstToken, 'POST', `/admin/admins/${other}/deactivate`),
      adminCall(url(), otherToken, 'POST', `/admin/admins/${first.id}/deactivate`),
    ]);
    // The loser is refused by the owner guard (409), or, when the winner committed first, by its own
    // session having ended with its deactivation (401).
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses[0]).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
    const owners = await used.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM admin_users WHERE role = 'owner' AND active`);
    expect(owners).toBe(1);
  });

  it('the guard itself holds under concurrent changes at the database', async () => {
    const a = await createTestAdmin(used.db.pool, 'owner', 'race-a');
    await used.db.pool.query(
      sql.unsafe`UPDATE admin_users SET active = false WHERE role = 'owner' AND id <> ${a.id}`,
    );
    const b = await createTestAdmin(used.db.pool, 'owner', 'race-b');
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all([
        changeAdmin(used.db.pool, a.id, { active: false }),
        changeAdmin(used.db.pool, b.id, { role: 'auditor' }),
      ]);
      expect(results.filter((r) => r === 'last_owner')).toHaveLength(1);
      await used.db.pool.query(sql.unsafe`
        UPDATE admin_users SET active = true, role = 'owner' WHERE id IN (${a.id}, ${b.id})`);
    }
  });
});
