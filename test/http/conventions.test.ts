import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyExhaustedError } from '../../src/commands/handler.ts';
import { forbidden, invalidTransition, notFound } from '../../src/lib/domain-error.ts';
import { bearer, type RunningApp, startApp, TEST_SECRETS } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';

let db: TestDatabase;
let running: RunningApp;
const auth = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'conventions'));

beforeAll(async () => {
  db = await createTestDatabase();
  running = await startApp({
    db,
    extend: (app) => {
      app.get('/test/boom', () => {
        throw new Error('secret internal detail: connection string postgres://user:pw@db');
      });
      // What commands throw when the domain refuses, as a command route would let them through.
      const refusals = {
        transition: () => invalidTransition('The post is deleted.'),
        rated: () => invalidTransition('Rated 4 already.', 'already_rated'),
        forbidden: () => forbidden('Not your comment.'),
        banned: () => forbidden('Banned until tomorrow.', 'user_banned'),
        missing: () => notFound('No such post.'),
        busy: () => new ConcurrencyExhaustedError('channelPost-1', 5),
      };
      app.get('/test/refused/:kind', (request) => {
        const { kind } = request.params as { kind: keyof typeof refusals };
        throw refusals[kind]();
      });
    },
  });
});
afterAll(async () => {
  await running.close();
  await db.drop();
});

describe('health', () => {
  it('live and ready answer 200 with a reachable database', async () => {
    expect((await fetch(`${running.url}/health/live`)).status).toBe(200);
    const ready = await fetch(`${running.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', eventStore: 'ok', projections: 'ok', readChanges: 'ok', leaderLocks: 'ok' },
    });
  });

  it('ready answers 503 when the database is unreachable, live and metrics stay 200', async () => {
    const doomed = await createTestDatabase();
    const broken = await startApp({ db: doomed });
    try {
      expect((await fetch(`${broken.url}/health/ready`)).status).toBe(200);
      await doomed.kill();
      expect((await fetch(`${broken.url}/health/live`)).status).toBe(200);
      const ready = await fetch(`${broken.url}/health/ready`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { code: string; detail: string };
      expect(body.code).toBe('not_ready');
      expect(body.detail).toContain('the event store is not reachable');
      const metrics = await fetch(`${broken.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('projection_lag_seconds');
    } finally {
      await broken.close();
      await doomed.drop();
    }
  });
});

describe('problem+json for every failure', () => {
  it('404 for an unknown route', async () => {
    const res = await fetch(`${running.url}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 404, code: 'not_found', title: 'Not Found' });
  });

  it('413 for a body over the limit, without touching the handler', async () => {
    const res = await fetch(`${running.url}/api/settings/notifications`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ chatMessages: false, padding: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
    const settings = await (
      await fetch(`${running.url}/api/settings/notifications`, { headers: auth })
    ).json();
    expect(settings).toEqual({ chatMessages: true, ticketUpdates: true, systemNotices: true });
  });

  it('500 without internals', async () => {
    const res = await fetch(`${running.url}/test/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      type: expect.any(String) as string,
      title: 'Internal Server Error',
      status: 500,
      code: 'internal_error',
    });
    expect(text).not.toContain('secret internal detail');
    expect(text).not.toContain('postgres://');
  });

  it('echoes a well-formed X-Request-Id and makes one up otherwise', async () => {
    const given = await fetch(`${running.url}/health/live`, { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await fetch(`${running.url}/health/live`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('every protected route of the OpenAPI document', () => {
  // Path parameters get a well-formed value, so what answers is the session check, not validation.
  const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

  it('answers 401 unauthenticated without a session, for client and admin routes alike', async () => {
    const doc = (await (await fetch(`${running.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const protectedRoutes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => (op.security ?? []).length > 0)
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          scheme: Object.keys(op.security?.[0] ?? {})[0],
        })),
    );
    // Every /api route and every /admin route but login is protected, with the right scheme; the
    // webhook by its signature; the rest say outright that they take no credentials.
    const all = Object.keys(doc.paths).filter((p) => p.startsWith('/api/') || p.startsWith('/admin/'));
    expect(new Set(protectedRoutes.map((r) => r.path))).toEqual(
      new Set([...all.filter((p) => p !== '/admin/auth/login'), '/webhooks/support']),
    );
    const publicRoutes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.values(ops).flatMap((op) => (op.security?.length === 0 ? [path] : [])),
    );
    expect(publicRoutes.sort()).toEqual([
      '/admin/auth/login',
      '/files/comments/{commentId}',
      '/files/posts/{postId}/{attachmentId}',
      '/files/{id}',
      '/health/live',
      '/health/ready',
    ]);
    for (const { method, path, scheme } of protectedRoutes) {
      if (path === '/webhooks/support') {
        expect(scheme).toBe('supportSignature');
        continue;
      }
      expect(scheme, path).toBe(path.startsWith('/admin/') ? 'adminToken' : 'sessionJwt');
      const res = await fetch(running.url + concrete(path), { method });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
    }
    expect(protectedRoutes.length).toBeGreaterThan(40);
  });
});

describe('OpenAPI and docs', () => {
  it('serves the document generated from the route schemas', async () => {
    const res = await fetch(`${running.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const settings = doc.paths['/api/settings/notifications'];
    expect(settings && Object.keys(settings).sort()).toEqual(['get', 'put']);
    expect(settings?.put?.requestBody).toBeDefined();
    expect(Object.keys(settings?.get?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401']));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/health/live',
        '/health/ready',
        // API.md "Support chat" and "Webhook".
        '/api/conversations',
        '/api/conversations/{id}',
        '/api/conversations/{id}/read',
        '/api/tickets',
        '/api/tickets/{id}',
        '/api/unread',
        '/webhooks/support',
      ]),
    );
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/api/devtools'))).toBe(false);
  });

  it('serves a docs page', async () => {
    const res = await fetch(`${running.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('metrics', () => {
  it('counts requests and latency by route pattern and status', async () => {
    await fetch(`${running.url}/api/settings/notifications`, { headers: auth });
    await fetch(`${running.url}/api/settings/notifications`);
    const text = await (await fetch(`${running.url}/metrics`)).text();
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/api\/settings\/notifications",status_code="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/api\/settings\/notifications",status_code="401"\} [1-9]/,
    );
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/settings\/notifications",status_code="200"\}/,
    );
    expect(text).not.toContain('conventions'); // no user ids or raw URLs in labels
  });
});

describe('domain refusals', () => {
  it.each([
    ['transition', 409, 'conflict', 'The post is deleted.'],
    ['rated', 409, 'already_rated', 'Rated 4 already.'],
    ['forbidden', 403, 'forbidden', 'Not your comment.'],
    ['banned', 403, 'user_banned', 'Banned until tomorrow.'],
    ['missing', 404, 'not_found', 'No such post.'],
    ['busy', 409, 'conflict', 'The resource kept changing; retry the request.'],
  ])('%s is %i %s as problem+json', async (kind, status, code, detail) => {
    const res = await fetch(`${running.url}/test/refused/${kind}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ status, code, detail });
  });
});
