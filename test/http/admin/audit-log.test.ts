import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminSessions } from '../../../src/auth/admin-sessions.ts';
import { adminTokens } from '../../../src/auth/admin-tokens.ts';
import { registerDevice } from '../../../src/commands/devices.ts';
import type { DatabasePool } from '../../../src/db/pool.ts';
import type { EventSourcing } from '../../../src/wiring/event-sourcing.ts';
import { devicesStream } from '../../../src/events/devices.ts';
import { holdersOfToken } from '../../../src/queries/devices.ts';
import { adminCommandContext } from '../../../src/http/command-context.ts';
import { installAdminHooks } from '../../../src/http/routes/admin/index.ts';
import {
  adminCall,
  createTestAdmin,
  goodPassword,
  loginToken,
  postLogin,
  type TestAdmin,
  uniqueEmail,
} from '../../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../../support/app.ts';

interface Entry {
  id: string;
  at: string;
  adminId: string | null;
  action: string;
  target: { type: string; id: string } | null;
  clientIp: string;
  outcome: string;
  statusCode: number;
  correlationId: string;
  detail: Record<string, unknown>;
}

// A route of the admin scope that appends an event, as later admin commands will: the hooks are the
// production ones, the command is the devices one.
function eventAppendingAdminRoute(
  app: FastifyInstance,
  { pool, eventSourcing }: { pool: DatabasePool; eventSourcing: EventSourcing },
): void {
  void app.register(
    async (scope) => {
      installAdminHooks(scope, {
        pool,
        sessions: adminSessions(pool, adminTokens(TEST_SECRETS.ADMIN_SESSION_SECRET, 60)),
      });
      scope.post<{ Params: { userId: string } }>(
        '/users/:userId/devices',
        { config: { access: 'signed-in', audit: { action: 'test.register_device', target: 'user' } } },
        async (request, reply) => {
          request.audit.targetId = request.params.userId;
          const store = eventSourcing.store;
          await registerDevice(
            { store, holdersOf: (token) => holdersOfToken(pool, token) },
            { userId: request.params.userId, platform: 'mobile', token: randomUUID() },
            adminCommandContext(request),
          );
          return reply.code(204).send();
        },
      );
    },
    { prefix: '/admin-test' },
  );
}

const used = useRunningApp({ env: { TRUST_PROXY_HOPS: '1' }, extend: eventAppendingAdminRoute });
const url = () => used.running.url;
let owner: TestAdmin;
let ownerToken = '';
let auditorToken = '';
const secrets: string[] = [];

beforeAll(async () => {
  owner = await createTestAdmin(used.db.pool, 'owner');
  ownerToken = await loginToken(url(), owner);
  const auditor = await createTestAdmin(used.db.pool, 'auditor');
  auditorToken = await loginToken(url(), auditor);
  secrets.push(owner.password, auditor.password, ownerToken, auditorToken);
});

async function entriesFor(correlationId: string): Promise<Entry[]> {
  const log = await adminCall(url(), auditorToken, 'GET', '/admin/audit-log?limit=100');
  expect(log.status).toBe(200);
  return (log.body as { items: Entry[] }).items.filter((e) => e.correlationId === correlationId);
}

/** One request with its own client IP and request id; answers the single audit entry it left. */
async function audited(token: string | null, method: string, path: string, body?: unknown) {
  const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
  const requestId = `audit-${randomUUID()}`;
  const res = await fetch(url() + path, {
    method,
    headers: {
      'x-forwarded-for': ip,
      'x-request-id': requestId,
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const entries = await entriesFor(requestId);
  expect(entries, `${method} ${path}`).toHaveLength(1);
  const [entry] = entries as [Entry];
  expect(entry.clientIp).toBe(ip);
  expect(entry.statusCode).toBe(res.status);
  return { status: res.status, entry };
}

describe('audit log entries', () => {
  it('records each mutating admin route with who, action, target, IP and outcome', async () => {
    const email = uniqueEmail('audited');
    const created = await audited(ownerToken, 'POST', '/admin/admins', {
      email,
      name: 'Audited',
      role: 'author',
      password: goodPassword(),
    });
    expect(created.status).toBe(201);
    const newId = created.entry.target?.id ?? '';
    expect(created.entry).toMatchObject({
      adminId: owner.id,
      action: 'admins.create',
      target: { type: 'admin', id: expect.any(String) as string },
      outcome: 'success',
      detail: { role: 'author' },
    });
    const steps: [string, string, unknown, string, Record<string, unknown>][] = [
      [
        'PATCH',
        `/admin/admins/${newId}`,
        { role: 'support' },
        'admins.update',
        { fields: ['role'], role: 'support' },
      ],
      ['POST', `/admin/admins/${newId}/deactivate`, undefined, 'admins.deactivate', {}],
      ['POST', `/admin/admins/${newId}/activate`, undefined, 'admins.activate', {}],
      ['POST', `/admin/admins/${newId}/password`, { password: goodPassword() }, 'admins.set_password', {}],
    ];
    for (const [method, path, body, action, detail] of steps) {
      const { entry } = await audited(ownerToken, method, path, body);
      expect(entry).toMatchObject({
        adminId: owner.id,
        action,
        target: { type: 'admin', id: newId },
        outcome: 'success',
        detail,
      });
    }
    const reason = await audited(ownerToken, 'POST', '/admin/reasons', { kind: 'complaint', title: 'Spam' });
    const reasonId = reason.entry.target?.id ?? '';
    expect(reason.entry).toMatchObject({
      action: 'reasons.create',
      target: { type: 'reason' },
      detail: { kind: 'complaint' },
    });
    expect(
      (await audited(ownerToken, 'PATCH', `/admin/reasons/${reasonId}`, { active: false })).entry,
    ).toMatchObject({
      action: 'reasons.update',
      target: { type: 'reason', id: reasonId },
      detail: { fields: ['active'] },
    });
    expect((await audited(ownerToken, 'DELETE', `/admin/reasons/${reasonId}`)).entry).toMatchObject({
      action: 'reasons.delete',
      target: { type: 'reason', id: reasonId },
      outcome: 'success',
    });
    const scratch = await loginToken(url(), await createTestAdmin(used.db.pool, 'moderator'));
    expect((await audited(scratch, 'POST', '/admin/auth/logout-all')).entry).toMatchObject({
      action: 'auth.logout_all',
      outcome: 'success',
    });
  });

  it('records denied, refused and failed requests too', async () => {
    const moderator = await loginToken(url(), await createTestAdmin(used.db.pool, 'moderator'));
    const denied = await audited(moderator, 'POST', '/admin/reasons', { kind: 'support', title: 'X' });
    expect(denied.status).toBe(403);
    expect(denied.entry).toMatchObject({
      action: 'reasons.create',
      outcome: 'denied',
      adminId: expect.any(String) as string,
    });
    const anonymous = await audited(null, 'POST', `/admin/admins/${owner.id}/deactivate`);
    expect(anonymous.entry).toMatchObject({
      adminId: null,
      outcome: 'denied',
      statusCode: 401,
      target: { id: owner.id },
    });
    const invalid = await audited(ownerToken, 'POST', '/admin/reasons', { kind: 'nope', title: 'X' });
    expect(invalid.entry).toMatchObject({ outcome: 'failed', statusCode: 400 });
    const lastOwner = await audited(ownerToken, 'POST', `/admin/admins/${owner.id}/deactivate`);
    expect(lastOwner.entry).toMatchObject({ outcome: 'failed', statusCode: 409 });
  });

  it('records logins: successful, failed (with why, for auditors) and locked', async () => {
    const ok = await audited(null, 'POST', '/admin/auth/login', {
      email: owner.email,
      password: owner.password,
    });
    expect(ok.entry).toMatchObject({
      action: 'auth.login',
      adminId: owner.id,
      target: { id: owner.id },
      outcome: 'success',
    });
    const wrong = await audited(null, 'POST', '/admin/auth/login', {
      email: owner.email,
      password: 'not it, not it at all',
    });
    expect(wrong.entry).toMatchObject({
      adminId: null,
      target: { type: 'admin', id: owner.id },
      outcome: 'failed',
      statusCode: 401,
      detail: { reason: 'wrong_password' },
    });
    const unknown = await audited(null, 'POST', '/admin/auth/login', {
      email: 'who@example.com',
      password: 'whatever it is',
    });
    expect(unknown.entry).toMatchObject({
      target: null,
      outcome: 'failed',
      detail: { reason: 'unknown_email' },
    });
    // The attempted email of an unknown account is not kept: people type passwords into that field.
    expect(JSON.stringify(unknown.entry)).not.toContain('who@example.com');

    const ip = '198.51.100.7';
    for (let i = 0; i < 5; i++) {
      await postLogin(
        url(),
        { email: `x${i}@example.com`, password: 'wrong wrong wrong' },
        { 'x-forwarded-for': ip },
      );
    }
    const locked = await fetch(`${url()}/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, 'x-request-id': 'locked-login' },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    expect(locked.status).toBe(429);
    expect(await entriesFor('locked-login')).toMatchObject([
      { outcome: 'locked', statusCode: 429, clientIp: ip },
    ]);
  });

  it('never holds a password or a token', async () => {
    const rows = await used.db.pool.anyFirst(
      sql.type(z.object({ row: z.string() }))`SELECT row_to_json(l)::text AS row FROM admin_logs l`,
    );
    expect(rows.length).toBeGreaterThan(10);
    const text = rows.join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    expect(text).not.toMatch(/password"\s*:\s*"/);
  });

  it('the audit entry and the events an admin request appends share one correlation id', async () => {
    const userId = `user-${randomUUID()}`;
    const { status, entry } = await audited(ownerToken, 'POST', `/admin-test/users/${userId}/devices`);
    expect(status).toBe(204);
    expect(entry).toMatchObject({
      action: 'test.register_device',
      adminId: owner.id,
      target: { id: userId },
    });
    const events = await used.running.eventSourcing.store.readStream(devicesStream(userId));
    expect(events).toHaveLength(1);
    expect(events[0]?.metadata).toMatchObject({
      actor: { type: 'admin', id: owner.id },
      correlationId: entry.correlationId,
    });
  });
});

describe('GET /admin/audit-log', () => {
  it('filters by admin, action, target, outcome and time, newest first, with keyset pages', async () => {
    const actor = await createTestAdmin(used.db.pool, 'owner', 'filtered');
    const token = await loginToken(url(), actor);
    const start = new Date().toISOString();
    for (let i = 0; i < 5; i++) {
      await adminCall(url(), token, 'POST', '/admin/reasons', { kind: 'support', title: `Filtered ${i}` });
    }
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `adminId=${actor.id}&action=reasons.create&from=${start}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await adminCall(url(), auditorToken, 'GET', `/admin/audit-log?${query}`)).body as {
        items: Entry[];
        nextCursor: string | null;
      };
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(5);
    expect(seen.every((e) => e.adminId === actor.id && e.action === 'reasons.create')).toBe(true);
    const ids = seen.map((e) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));

    const before = await adminCall(
      url(),
      auditorToken,
      'GET',
      `/admin/audit-log?adminId=${actor.id}&to=${start}`,
    );
    expect(
      (before.body as { items: Entry[] }).items.filter((e) => e.action === 'reasons.create'),
    ).toHaveLength(0);
    const byTarget = await adminCall(
      url(),
      auditorToken,
      'GET',
      `/admin/audit-log?targetId=${seen[0]?.target?.id ?? ''}`,
    );
    expect((byTarget.body as { items: Entry[] }).items).toHaveLength(1);
    const denied = await adminCall(url(), auditorToken, 'GET', '/admin/audit-log?outcome=denied');
    expect((denied.body as { items: Entry[] }).items.every((e) => e.outcome === 'denied')).toBe(true);
  });

  it.each([
    ['a malformed adminId', 'adminId=nope'],
    ['a malformed time', 'from=yesterday'],
    ['from after to', 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z'],
    ['a foreign cursor', `cursor=${Buffer.from('abc').toString('base64url')}`],
    ['an unknown outcome', 'outcome=maybe'],
  ])('refuses %s with 400', async (_name, query) => {
    const answer = await adminCall(url(), auditorToken, 'GET', `/admin/audit-log?${query}`);
    expect(answer.status).toBe(400);
  });
});
