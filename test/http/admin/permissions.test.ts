import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminSessions } from '../../../src/auth/admin-sessions.ts';
import { adminTokens } from '../../../src/auth/admin-tokens.ts';
import { roles, type Role } from '../../../src/auth/permissions.ts';
import { installAdminHooks } from '../../../src/http/routes/admin/index.ts';
import { adminCall, createTestAdmin, goodPassword, loginToken, uniqueEmail } from '../../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { commentAs, openReportOf, reportComment } from '../../support/comments.ts';
import { sessionToken } from '../../support/jwt.ts';
import { type PostStep, postThrough } from '../../support/posts.ts';

const used = useRunningApp();
const url = () => used.running.url;

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

let victimId = '';
let reasonId = '';
let channelId = '';
const tokens = new Map<Role, string>();

// API.md, "Admin API": who may do what. Written out here, not derived from the routes' declarations.
const ALL = roles;
const matrix: readonly {
  route: string;
  allowed: readonly Role[];
  call: () => Call | Promise<Call>;
}[] = [
  { route: 'GET /admin/me', allowed: ALL, call: () => ({ method: 'GET', path: '/admin/me' }) },
  {
    route: 'GET /admin/admins',
    allowed: ['owner', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/admins' }),
  },
  {
    route: 'POST /admin/admins',
    allowed: ['owner'],
    call: () => ({
      method: 'POST',
      path: '/admin/admins',
      body: { email: uniqueEmail('made'), name: 'Made', role: 'support', password: goodPassword() },
    }),
  },
  {
    route: 'PATCH /admin/admins/{id}',
    allowed: ['owner'],
    call: () => ({ method: 'PATCH', path: `/admin/admins/${victimId}`, body: { name: 'Renamed' } }),
  },
  {
    route: 'POST /admin/admins/{id}/deactivate',
    allowed: ['owner'],
    call: () => ({ method: 'POST', path: `/admin/admins/${victimId}/deactivate` }),
  },
  {
    route: 'POST /admin/admins/{id}/activate',
    allowed: ['owner'],
    call: () => ({ method: 'POST', path: `/admin/admins/${victimId}/activate` }),
  },
  {
    route: 'POST /admin/admins/{id}/password',
    allowed: ['owner'],
    call: () => ({
      method: 'POST',
      path: `/admin/admins/${victimId}/password`,
      body: { password: goodPassword() },
    }),
  },
  {
    route: 'GET /admin/audit-log',
    allowed: ['owner', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/audit-log' }),
  },
  {
    route: 'GET /admin/reasons',
    allowed: ['owner', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/reasons' }),
  },
  {
    route: 'POST /admin/reasons',
    allowed: ['owner'],
    call: () => ({ method: 'POST', path: '/admin/reasons', body: { kind: 'support', title: 'Billing' } }),
  },
  {
    route: 'PATCH /admin/reasons/{id}',
    allowed: ['owner'],
    call: () => ({ method: 'PATCH', path: `/admin/reasons/${reasonId}`, body: { title: 'Payments' } }),
  },
  {
    route: 'DELETE /admin/reasons/{id}',
    allowed: ['owner'],
    call: async () => {
      // A reason of its own each time, so the owner's delete has something to delete.
      const owner = tokens.get('owner') ?? '';
      const made = await adminCall(url(), owner, 'POST', '/admin/reasons', {
        kind: 'complaint',
        title: 'Rude',
      });
      return { method: 'DELETE', path: `/admin/reasons/${(made.body as { id: string }).id}` };
    },
  },
  { route: 'GET /admin/channels', allowed: ALL, call: () => ({ method: 'GET', path: '/admin/channels' }) },
  {
    route: 'POST /admin/channels',
    allowed: ['owner'],
    call: () => ({ method: 'POST', path: '/admin/channels', body: { title: 'Made in the matrix' } }),
  },
  {
    route: 'PATCH /admin/channels/{id}',
    allowed: ['owner'],
    call: () => ({
      method: 'PATCH',
      path: `/admin/channels/${channelId}`,
      body: { description: randomUUID() },
    }),
  },
  {
    route: 'GET /admin/channels/{id}/posts',
    allowed: ['owner', 'author'],
    call: () => ({ method: 'GET', path: `/admin/channels/${channelId}/posts` }),
  },
  {
    route: 'POST /admin/channels/{id}/posts',
    allowed: ['owner', 'author'],
    call: () => ({ method: 'POST', path: `/admin/channels/${channelId}/posts`, body: { text: 'Drafted' } }),
  },
  {
    route: 'GET /admin/posts/{postId}',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'GET', path: `/admin/posts/${await postIn([])}` }),
  },
  {
    route: 'PATCH /admin/posts/{postId}',
    allowed: ['owner', 'author'],
    call: async () => ({
      method: 'PATCH',
      path: `/admin/posts/${await postIn([])}`,
      body: { text: 'Edited' },
    }),
  },
  {
    route: 'POST /admin/posts/{postId}/schedule',
    allowed: ['owner', 'author'],
    call: async () => ({
      method: 'POST',
      path: `/admin/posts/${await postIn([])}/schedule`,
      body: { publishAt: new Date(Date.now() + 3600_000).toISOString() },
    }),
  },
  {
    route: 'POST /admin/posts/{postId}/unschedule',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'POST', path: `/admin/posts/${await postIn(['schedule'])}/unschedule` }),
  },
  {
    route: 'POST /admin/posts/{postId}/publish',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'POST', path: `/admin/posts/${await postIn([])}/publish`, body: {} }),
  },
  {
    route: 'POST /admin/posts/{postId}/hide',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'POST', path: `/admin/posts/${await postIn(['publish'])}/hide` }),
  },
  {
    route: 'POST /admin/posts/{postId}/unhide',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'POST', path: `/admin/posts/${await postIn(['publish', 'hide'])}/unhide` }),
  },
  {
    route: 'DELETE /admin/posts/{postId}',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'DELETE', path: `/admin/posts/${await postIn([])}` }),
  },
  {
    route: 'POST /admin/posts/{postId}/attachments',
    allowed: ['owner', 'author'],
    call: async () => ({
      method: 'POST',
      path: `/admin/posts/${await postIn([])}/attachments`,
      body: pngForm(),
    }),
  },
  {
    route: 'DELETE /admin/posts/{postId}/attachments/{attachmentId}',
    allowed: ['owner', 'author'],
    call: async () => {
      const postId = await postIn([]);
      const attached = await adminCall(
        url(),
        tokens.get('owner') ?? '',
        'POST',
        `/admin/posts/${postId}/attachments`,
        pngForm(),
      );
      const attachmentId = (attached.body as { attachments: { id: string }[] }).attachments[0]?.id ?? '';
      return { method: 'DELETE', path: `/admin/posts/${postId}/attachments/${attachmentId}` };
    },
  },
  {
    route: 'GET /admin/posts/{postId}/stats',
    allowed: ['owner', 'author'],
    call: async () => ({ method: 'GET', path: `/admin/posts/${await postIn(['publish'])}/stats` }),
  },
  {
    route: 'GET /admin/channels/{id}/comments',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'GET', path: `/admin/channels/${channelId}/comments` }),
  },
  {
    route: 'POST /admin/comments/{id}/hide',
    allowed: ['owner', 'moderator'],
    call: async () => ({
      method: 'POST',
      path: `/admin/comments/${await freshComment()}/hide`,
      body: { reason: 'r' },
    }),
  },
  {
    route: 'POST /admin/comments/{id}/unhide',
    allowed: ['owner', 'moderator'],
    call: async () => ({ method: 'POST', path: `/admin/comments/${await freshComment()}/unhide` }),
  },
  {
    route: 'DELETE /admin/comments/{id}',
    allowed: ['owner', 'moderator'],
    call: async () => ({
      method: 'DELETE',
      path: `/admin/comments/${await freshComment()}`,
      body: { reason: 'r' },
    }),
  },
  {
    route: 'GET /admin/reports',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'GET', path: '/admin/reports' }),
  },
  {
    route: 'POST /admin/reports/{id}/resolve',
    allowed: ['owner', 'moderator'],
    call: async () => {
      const commentId = await freshComment();
      await reportComment(url(), channelId, await commentedPost(), commentId);
      const reportId = await openReportOf(url(), tokens.get('owner') ?? '', commentId);
      return { method: 'POST', path: `/admin/reports/${reportId}/resolve`, body: { action: 'dismiss' } };
    },
  },
  {
    route: 'GET /admin/channels/{id}/bans',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'GET', path: `/admin/channels/${channelId}/bans` }),
  },
  {
    route: 'POST /admin/channels/{id}/bans',
    allowed: ['owner', 'moderator'],
    call: () => ({
      method: 'POST',
      path: `/admin/channels/${channelId}/bans`,
      body: { userId: `banned-${randomUUID()}`, reason: 'spam' },
    }),
  },
  {
    route: 'DELETE /admin/channels/{id}/bans/{userId}',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'DELETE', path: `/admin/channels/${channelId}/bans/someone` }),
  },
  {
    route: 'GET /admin/channels/{id}/moderators',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'GET', path: `/admin/channels/${channelId}/moderators` }),
  },
  {
    route: 'PUT /admin/channels/{id}/moderators/{userId}',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'PUT', path: `/admin/channels/${channelId}/moderators/mod-${randomUUID()}` }),
  },
  {
    route: 'DELETE /admin/channels/{id}/moderators/{userId}',
    allowed: ['owner', 'moderator'],
    call: () => ({ method: 'DELETE', path: `/admin/channels/${channelId}/moderators/someone` }),
  },
  {
    route: 'GET /admin/moderation/events',
    allowed: ['owner', 'moderator', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/moderation/events' }),
  },
  {
    route: 'GET /admin/moderation/replay',
    allowed: ['owner', 'moderator', 'auditor'],
    call: () => ({ method: 'GET', path: `/admin/moderation/replay?channelId=${channelId}` }),
  },
  {
    route: 'POST /admin/notices',
    allowed: ['owner', 'support'],
    call: () => ({
      method: 'POST',
      path: '/admin/notices',
      body: { userIds: ['nobody-here'], title: 'Matrix notice', body: 'Sent by the matrix.' },
    }),
  },
  {
    route: 'GET /admin/notices',
    allowed: ['owner', 'support', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/notices' }),
  },
  {
    route: 'GET /admin/notices/{id}',
    allowed: ['owner', 'support', 'auditor'],
    call: async () => {
      const sent = await adminCall(url(), tokens.get('owner') ?? '', 'POST', '/admin/notices', {
        userIds: ['nobody-here'],
        title: 'Matrix notice',
        body: 'To look at.',
      });
      return { method: 'GET', path: `/admin/notices/${(sent.body as { id: string }).id}` };
    },
  },
  {
    route: 'GET /admin/complaints',
    allowed: ['owner', 'support', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/complaints?status=open' }),
  },
  {
    route: 'GET /admin/complaints/{id}',
    allowed: ['owner', 'support', 'auditor'],
    call: async () => ({ method: 'GET', path: `/admin/complaints/${await freshComplaint()}` }),
  },
  {
    route: 'POST /admin/complaints/{id}/resolve',
    allowed: ['owner', 'support'],
    call: async () => ({
      method: 'POST',
      path: `/admin/complaints/${await freshComplaint()}/resolve`,
      body: { note: 'Resolved by the matrix.' },
    }),
  },
  {
    route: 'GET /admin/csat',
    allowed: ['owner', 'support', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/csat?targetType=ticket' }),
  },
  {
    route: 'GET /admin/analytics/conversations',
    allowed: ['owner', 'support', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/analytics/conversations' }),
  },
  {
    route: 'GET /admin/analytics/csat',
    allowed: ['owner', 'support', 'auditor'],
    call: () => ({ method: 'GET', path: '/admin/analytics/csat' }),
  },
  {
    route: 'GET /admin/users/{userId}/export',
    allowed: ['owner'],
    call: () => ({ method: 'GET', path: '/admin/users/matrix-user/export' }),
  },
  {
    route: 'POST /admin/users/{userId}/erasure',
    allowed: ['owner'],
    call: () => ({ method: 'POST', path: '/admin/users/matrix-erased-user/erasure' }),
  },
  {
    route: 'GET /admin/users/{userId}/erasure',
    allowed: ['owner'],
    call: () => ({ method: 'GET', path: '/admin/users/matrix-erased-user/erasure' }),
  },
  {
    route: 'POST /admin/auth/logout-all',
    allowed: ALL,
    call: () => ({ method: 'POST', path: '/admin/auth/logout-all' }),
  },
];

const PNG = readFileSync(new URL('../../fixtures/files/python.png', import.meta.url));
const pngForm = () => {
  const form = new FormData();
  form.append('file', new Blob([PNG]), 'picture.png');
  return form;
};

/** A published post of the matrix channel for comments, made once. */
let commented: Promise<string> | undefined;
const commentedPost = () => (commented ??= postIn(['publish']));
/** A new comment on that post, by a new user. */
const freshComment = async () => (await commentAs(url(), channelId, await commentedPost())).id;

/** A complaint reason, made once by the owner. */
let complaintReason: Promise<string> | undefined;
const complaintReasonId = () =>
  (complaintReason ??= adminCall(url(), tokens.get('owner') ?? '', 'POST', '/admin/reasons', {
    kind: 'complaint',
    title: 'Matrix complaint',
  }).then((made) => (made.body as { id: string }).id));
/** A new open complaint, filed by a user through the client API. */
const freshComplaint = async () => {
  const res = await fetch(`${url()}/api/complaints`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sessionToken(TEST_SECRETS.JWT_SECRET, 'matrix-user')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ reasonId: await complaintReasonId(), text: 'Filed for the matrix.' }),
  });
  return ((await res.json()) as { id: string }).id;
};

/** A fresh post of the matrix channel in the state a call needs, made by the owner. */
const postIn = (steps: readonly PostStep[]) =>
  postThrough(url(), tokens.get('owner') ?? '', channelId, steps);

beforeAll(async () => {
  for (const role of roles) {
    tokens.set(role, await loginToken(url(), await createTestAdmin(used.db.pool, role)));
  }
  victimId = (await createTestAdmin(used.db.pool, 'support', 'victim')).id;
  const reason = await adminCall(url(), tokens.get('owner') ?? '', 'POST', '/admin/reasons', {
    kind: 'support',
    title: 'Delivery',
  });
  reasonId = (reason.body as { id: string }).id;
  const channel = await adminCall(url(), tokens.get('owner') ?? '', 'POST', '/admin/channels', {
    title: 'Matrix',
  });
  channelId = (channel.body as { id: string }).id;
});

describe('admin permissions', () => {
  it('the matrix names every admin route of the OpenAPI document, and only those', async () => {
    const doc = (await (await fetch(`${url()}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/admin/') && path !== '/admin/auth/login')
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(matrix.map((m) => m.route).sort()).toEqual(documented.sort());
  });

  it('the OpenAPI document gives every admin route the admin token scheme and its refusals', async () => {
    const doc = (await (await fetch(`${url()}/openapi.json`)).json()) as {
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    const login = doc.paths['/admin/auth/login']?.post;
    expect(Object.keys(login?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    // The login takes no token, and the document says so outright.
    expect(login?.security).toEqual([]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/admin/') || path === '/admin/auth/login') continue;
      for (const [method, op] of Object.entries(ops)) {
        expect(op.security, `${method} ${path}`).toEqual([{ adminToken: [] }]);
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['401', '403']),
        );
      }
    }
    expect(Object.keys(doc.paths['/api/config']?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '401']),
    );
  });

  it('every admin route but login refuses a request without a token with 401', async () => {
    for (const { call } of matrix) {
      const { method, path, body } = await call();
      const answer = await adminCall(url(), null, method, path.replace(/[0-9a-f-]{36}/, randomUUID()), body);
      expect(answer.status, `${method} ${path}`).toBe(401);
    }
  });

  // logout-all ends the caller's token, so it goes last (the matrix is in that order).
  for (const { route, allowed, call } of matrix) {
    it.each(roles.map((role) => [role, allowed.includes(role)] as const))(
      `${route} as %s: allowed %s`,
      async (role, isAllowed) => {
        const { method, path, body } = await call();
        const answer = await adminCall(url(), tokens.get(role) ?? '', method, path, body);
        if (isAllowed) {
          expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(200);
          expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
        } else {
          expect(answer.status).toBe(403);
          expect(answer.body).toMatchObject({ code: 'forbidden' });
        }
      },
    );
  }
});

describe('admin route declarations', () => {
  const scope = async (register: (app: FastifyInstance) => void) => {
    const app = Fastify();
    const sessions = adminSessions(used.db.pool, adminTokens(TEST_SECRETS.ADMIN_SESSION_SECRET, 60));
    await app.register(async (admin) => {
      installAdminHooks(admin, { pool: used.db.pool, sessions });
      register(admin);
    });
    return app.ready();
  };

  it('refuse a route that declares no access', async () => {
    await expect(scope((app) => app.get('/open', () => 'x'))).rejects.toThrow(/declares no access/);
  });

  it('refuse a mutating route that declares no audit action', async () => {
    const route = (app: FastifyInstance) =>
      app.post('/change', { config: { access: 'signed-in' } }, () => 'x');
    await expect(scope(route)).rejects.toThrow(/declares no audit action/);
  });

  it('accept a route that declares both', async () => {
    const route = (app: FastifyInstance) =>
      app.post('/change', { config: { access: 'signed-in', audit: { action: 'test.change' } } }, () => 'x');
    await expect(scope(route)).resolves.toBeDefined();
  });
});
