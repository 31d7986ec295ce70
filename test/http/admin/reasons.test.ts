import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, createTestAdmin, loginToken } from '../../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { sessionToken } from '../../support/jwt.ts';

const used = useRunningApp({ env: { POLL_CHAT_MS: '3000', MAX_IMAGE_MB: '8', COMMENT_MAX_LENGTH: '1500' } });
const url = () => used.running.url;
let token = '';
beforeAll(async () => {
  token = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
});

interface ReasonView {
  id: string;
  kind: string;
  title: string;
  order: number;
  active: boolean;
}
const call = (method: string, path: string, body?: unknown) => adminCall(url(), token, method, path, body);
const create = async (body: Record<string, unknown>) => {
  const answer = await call('POST', '/admin/reasons', body);
  expect(answer.status).toBe(201);
  return answer.body as ReasonView;
};
const clientConfig = async () => {
  const res = await fetch(`${url()}/api/config`, {
    headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'u1')),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    reasons: Record<'support' | 'complaint', { id: string; title: string }[]>;
    poll: unknown;
    limits: unknown;
  };
};

describe('reasons and GET /api/config', () => {
  it('serves poll intervals and upload limits from the configuration', async () => {
    const config = await clientConfig();
    expect(config.poll).toEqual({ chatMs: 3000, commentsMs: 5000 });
    expect(config.limits).toEqual({
      maxFileBytes: 20 * 1024 * 1024,
      maxImageBytes: 8 * 1024 * 1024,
      maxVideoBytes: 50 * 1024 * 1024,
      commentMaxLength: 1500,
    });
  });

  it('needs a client session', async () => {
    expect((await fetch(`${url()}/api/config`)).status).toBe(401);
  });

  it('lists the active reasons of each kind in their order; the panel sees inactive ones too', async () => {
    const billing = await create({ kind: 'support', title: 'Billing' });
    const login = await create({ kind: 'support', title: 'Cannot log in' });
    const first = await create({ kind: 'support', title: 'Urgent', order: 0 });
    const hidden = await create({ kind: 'support', title: 'Hidden', active: false });
    const rude = await create({ kind: 'complaint', title: 'Rude operator' });
    expect(login.order).toBe(billing.order + 1);

    const config = await clientConfig();
    expect(config.reasons.support).toEqual([
      { id: first.id, title: 'Urgent' },
      { id: billing.id, title: 'Billing' },
      { id: login.id, title: 'Cannot log in' },
    ]);
    expect(config.reasons.complaint).toEqual([{ id: rude.id, title: 'Rude operator' }]);

    const panel = (await call('GET', '/admin/reasons')).body as { items: ReasonView[] };
    expect(panel.items.map((r) => r.title)).toEqual([
      'Rude operator',
      'Urgent',
      'Billing',
      'Cannot log in',
      'Hidden',
    ]);
    expect(panel.items.find((r) => r.id === hidden.id)?.active).toBe(false);
  });

  it('edits title, order and active; a deleted reason leaves both lists and answers 404 after', async () => {
    const a = await create({ kind: 'complaint', title: 'Slow answer' });
    const changed = await call('PATCH', `/admin/reasons/${a.id}`, { title: 'Slow answers', order: 0 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ title: 'Slow answers', order: 0, active: true });
    expect((await clientConfig()).reasons.complaint[0]).toEqual({ id: a.id, title: 'Slow answers' });

    expect((await call('PATCH', `/admin/reasons/${a.id}`, { active: false })).status).toBe(200);
    expect((await clientConfig()).reasons.complaint.map((r) => r.id)).not.toContain(a.id);

    expect((await call('DELETE', `/admin/reasons/${a.id}`)).status).toBe(204);
    const panel = (await call('GET', '/admin/reasons')).body as { items: ReasonView[] };
    expect(panel.items.map((r) => r.id)).not.toContain(a.id);
    expect((await call('DELETE', `/admin/reasons/${a.id}`)).status).toBe(404);
    expect((await call('PATCH', `/admin/reasons/${a.id}`, { active: true })).status).toBe(404);
    expect((await call('PATCH', `/admin/reasons/${randomUUID()}`, { active: true })).status).toBe(404);
  });

  it.each([
    ['an unknown kind', { kind: 'other', title: 'X' }],
    ['an empty title', { kind: 'support', title: '  ' }],
    ['a title over 200 characters', { kind: 'support', title: 'x'.repeat(201) }],
    ['a negative order', { kind: 'support', title: 'X', order: -1 }],
    ['an unknown field', { kind: 'support', title: 'X', colour: 'red' }],
  ])('refuses %s with 400, storing nothing', async (_name, body) => {
    const before = ((await call('GET', '/admin/reasons')).body as { items: unknown[] }).items.length;
    const answer = await call('POST', '/admin/reasons', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'validation_failed' });
    expect(((await call('GET', '/admin/reasons')).body as { items: unknown[] }).items).toHaveLength(before);
  });
});
