import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channelStream } from '../../../src/events/channels.ts';
import { channelsProjection } from '../../../src/projections/channels.ts';
import { adminCall, createTestAdmin, loginToken, type TestAdmin } from '../../support/admin.ts';
import { useRunningApp } from '../../support/app.ts';
import { expectRebuildEqualsLive } from '../../support/rebuild.ts';

const used = useRunningApp();
const url = () => used.running.url;
let owner: TestAdmin;
let token = '';
beforeAll(async () => {
  owner = await createTestAdmin(used.db.pool, 'owner');
  token = await loginToken(url(), owner);
});
const call = (method: string, path: string, body?: unknown) => adminCall(url(), token, method, path, body);

interface Channel {
  id: string;
  title: string;
  description: string;
  avatarUrl: string | null;
  allowedReactions: string[];
  commentsEnabled: boolean;
  commentRate: { intervalSeconds: number; burst: number };
  createdAt: string;
  updatedAt: string;
}

describe('admin channels', () => {
  it('creates a channel with defaults, shows it at once, and lists it', async () => {
    const created = await call('POST', '/admin/channels', { title: '  News  ' });
    expect(created.status).toBe(201);
    const channel = created.body as Channel;
    expect(channel).toMatchObject({
      title: 'News',
      description: '',
      avatarUrl: null,
      allowedReactions: ['👍', '❤️', '🔥', '😂', '😮', '😢'],
      commentsEnabled: true,
      commentRate: { intervalSeconds: 10, burst: 3 },
    });
    const list = (await call('GET', '/admin/channels')).body as { items: Channel[] };
    expect(list.items.map((c) => c.id)).toContain(channel.id);
  });

  it('edits only what changed; the channel stream records the change and the audit entry joins it', async () => {
    const { id } = (await call('POST', '/admin/channels', { title: 'Updates', allowedReactions: ['👍'] }))
      .body as Channel;
    const requestId = `edit-${randomUUID()}`;
    const res = await fetch(`${url()}/admin/channels/${id}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
      },
      body: JSON.stringify({
        title: 'Updates',
        avatarUrl: 'https://cdn.example.com/a.png',
        commentsEnabled: false,
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      title: 'Updates',
      avatarUrl: 'https://cdn.example.com/a.png',
      commentsEnabled: false,
      allowedReactions: ['👍'],
    });
    const events = await used.running.eventSourcing.store.readStream(channelStream(id));
    expect(events.map((e) => e.type)).toEqual(['channelCreated', 'channelEdited']);
    expect(events[1]?.data).toMatchObject({
      avatarUrl: 'https://cdn.example.com/a.png',
      commentsEnabled: false,
    });
    expect(events[1]?.data).not.toHaveProperty('title');
    expect(events[1]?.metadata).toMatchObject({
      actor: { type: 'admin', id: owner.id },
      correlationId: requestId,
    });
    const audit = await used.db.pool.one(sql.type(
      z.object({ action: z.string(), target_id: z.string(), admin_id: z.string() }),
    )`
      SELECT action, target_id, admin_id FROM admin_logs WHERE correlation_id = ${requestId}`);
    expect(audit).toEqual({ action: 'channels.update', target_id: id, admin_id: owner.id });
    // Clearing the avatar is a change too.
    const cleared = await call('PATCH', `/admin/channels/${id}`, { avatarUrl: null });
    expect((cleared.body as Channel).avatarUrl).toBeNull();
  });

  it.each([
    ['an empty title', { title: '  ' }],
    ['a non-emoji reaction', { title: 'X', allowedReactions: ['+1'] }],
    ['two emoji as one reaction', { title: 'X', allowedReactions: ['👍👍'] }],
    ['an http avatar', { title: 'X', avatarUrl: 'http://cdn.example.com/a.png' }],
    ['a zero comment interval', { title: 'X', commentRate: { intervalSeconds: 0, burst: 1 } }],
    ['an unknown field', { title: 'X', colour: 'red' }],
  ])('refuses %s with 400, creating nothing', async (_name, body) => {
    const before = ((await call('GET', '/admin/channels')).body as { items: unknown[] }).items.length;
    const answer = await call('POST', '/admin/channels', body);
    expect(answer.status).toBe(400);
    expect(((await call('GET', '/admin/channels')).body as { items: unknown[] }).items).toHaveLength(before);
  });

  it('answers 404 for a channel that does not exist, and 400 for an empty patch', async () => {
    expect((await call('PATCH', `/admin/channels/${randomUUID()}`, { title: 'Nothing' })).status).toBe(404);
    const { id } = (await call('POST', '/admin/channels', { title: 'Empty patch' })).body as Channel;
    expect((await call('PATCH', `/admin/channels/${id}`, {})).status).toBe(400);
  });

  it('rebuilds the channels table from the events alone, equal to the live one', async () => {
    const [channels] = await expectRebuildEqualsLive(used, channelsProjection);
    expect(channels?.length).toBeGreaterThan(2);
  });
});
