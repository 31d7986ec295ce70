import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox, sandboxCalls } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

// POST /api/conversations/:id/close: the user ends their request. Real app, real database, the sandbox as
// Intercom, its webhooks processed by the real inbox.

const service = useRunningApp();
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);
const sent = z.object({ conversationId: z.string() });
const thread = z.object({ state: z.string(), messages: z.array(z.object({ id: z.string() })) });
const list = z.object({ items: z.array(z.object({ id: z.string(), state: z.string() })) });

const open = async (user: string, text: string): Promise<string> =>
  sent.parse((await api.post(user, '/conversations', { text })).json).conversationId;
const read = async (user: string, id: string) =>
  thread.parse((await api.get(user, `/conversations/${id}`)).json);
const close = (user: string, id: string) => api.post(user, `/conversations/${id}/close`, undefined);
/** Writes that close (or snooze, or open) a conversation at Intercom. */
const closeWrites = (id: string) => sandboxCalls(sandbox(), 'POST', `/conversations/${id}/parts`);
const closeWebhooks = (id: string) =>
  sandbox().operator.notifications.filter(
    (n) => n.topic === 'conversation.admin.closed' && (n.item as { id?: string }).id === id,
  );
const durations = (id: string) =>
  service.db.pool.any(sql.type(z.object({ notification_id: z.string(), duration_seconds: z.number() }))`
    SELECT notification_id, duration_seconds FROM conversation_durations WHERE conversation_id = ${id}`);
const processed = (notificationId: string) =>
  service.db.pool.maybeOneFirst(sql.type(z.object({ done: z.boolean() }))`
    SELECT processed_at IS NOT NULL AS done FROM processed_events WHERE notification_id = ${notificationId}`);

describe('POST /api/conversations/:id/close', () => {
  it("closes its owner's request at Intercom, shows it closed on the next poll, and records one duration", async () => {
    const id = await open('cleo', 'Can you help?');
    expect((await read('cleo', id)).state).toBe('open');
    expect(list.parse((await api.get('cleo', '/conversations')).json).items).toEqual([
      expect.objectContaining({ id, state: 'open' }),
    ]);

    const closed = await close('cleo', id);
    expect(closed.status).toBe(204);
    expect(closed.json).toBeNull();
    expect(closeWrites(id)).toBe(1);
    expect(sandbox().state.conversations.get(id)?.state).toBe('closed');
    // The cache was invalidated by the route itself: the very next poll shows it, no webhook needed.
    const after = await read('cleo', id);
    expect(after.state).toBe('closed');
    expect(after.messages).toHaveLength(1); // a close without words is not a message
    expect(list.parse((await api.get('cleo', '/conversations')).json).items).toEqual([
      expect.objectContaining({ id, state: 'closed' }),
    ]);

    // Intercom sends the close webhook, as for a teammate's close; it is verified and processed.
    const [webhook] = closeWebhooks(id);
    expect(webhook).toBeDefined();
    await sandbox().operator.webhooksIdle();
    const delivery = sandbox().operator.deliveries.find((d) => d.notificationId === webhook?.id);
    expect(delivery).toMatchObject({ topic: 'conversation.admin.closed', status: 200 });
    await eventually(
      () => processed(webhook?.id ?? ''),
      (done) => done === true,
    );
    // The route and the webhook measured the same close: one row between them.
    const rows = await durations(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.duration_seconds).toBeGreaterThanOrEqual(0);
  });

  it('records the close once whichever comes first, the route or the webhook', async () => {
    const id = await open('remy', 'Order question');
    sandbox().operator.holdWebhooks();
    try {
      expect((await close('remy', id)).status).toBe(204);
      // The route recorded it before the webhook was even sent.
      const rows = await durations(id);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.notification_id).toMatch(/^user-close:/);
    } finally {
      await sandbox().operator.releaseWebhooks();
    }
    const [webhook] = closeWebhooks(id);
    await eventually(
      () => processed(webhook?.id ?? ''),
      (done) => done === true,
    );
    // A redelivery is a duplicate for the inbox, and adds nothing.
    await sandbox().operator.redeliver(webhook?.id ?? '');
    await sandbox().operator.webhooksIdle();
    expect(await durations(id)).toHaveLength(1);
  });

  it('is a no-op when the request is closed already: 204 and no write to Intercom', async () => {
    const id = await open('nell', 'Thanks, all good');
    expect((await close('nell', id)).status).toBe(204);
    const writes = closeWrites(id);
    const webhooks = closeWebhooks(id).length;
    await eventually(
      () => durations(id),
      (rows) => rows.length === 1,
    );

    const again = await close('nell', id);
    expect(again.status).toBe(204);
    expect(closeWrites(id)).toBe(writes);
    expect(closeWebhooks(id)).toHaveLength(webhooks);
    expect(await durations(id)).toHaveLength(1);
    expect((await read('nell', id)).state).toBe('closed');

    // Closed by a teammate first: the user's close changes nothing either, once the webhook has told us.
    const other = await open('nell', 'Another one');
    await read('nell', other);
    await sandbox().operator.close(other);
    await eventually(
      () => read('nell', other),
      (c) => c.state === 'closed',
    );
    const before = closeWrites(other);
    expect((await close('nell', other)).status).toBe(204);
    expect(closeWrites(other)).toBe(before);
  });

  it('a user reply reopens a closed request, which can then be closed again (a second duration)', async () => {
    const id = await open('ugo', 'First');
    expect((await close('ugo', id)).status).toBe(204);
    await api.post('ugo', '/conversations', { conversationId: id, text: 'One more thing' });
    expect((await read('ugo', id)).state).toBe('open');
    // A second close within the same second as the first would meet the same (conversation, closed_at).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await close('ugo', id)).status).toBe(204);
    expect((await read('ugo', id)).state).toBe('closed');
    await eventually(
      () => durations(id),
      (rows) => rows.length === 2,
    );
  });

  it("answers 403 for someone else's request and 404 for an unknown one, closing nothing", async () => {
    const id = await open('otto', 'Mine');
    const refuse = async () => {
      const refused = await close('pia', id);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.json).toMatchObject({ status: 403, code: 'forbidden' });
    };
    // pia has no contact yet, then one of her own: neither makes otto's request hers.
    await refuse();
    await open('pia', 'Hers');
    await refuse();
    expect(closeWrites(id)).toBe(0);
    expect(sandbox().state.conversations.get(id)?.state).toBe('open');
    expect((await read('otto', id)).state).toBe('open');

    const unknown = await close('otto', '987654321');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
    expect((await close('otto', 'a.b')).status).toBe(400);
    const anonymous = await fetch(`${service.running.url}/api/conversations/${id}/close`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(await durations(id)).toEqual([]);
  });

  it('answers 503 provider_unavailable while Intercom is down, and records nothing', async () => {
    const id = await open('vic', 'Is anyone there?');
    expect((await read('vic', id)).state).toBe('open'); // the cache holds it: ownership needs no call
    sandbox().operator.failFor(60_000, { status: 503 });
    try {
      const down = await close('vic', id);
      expect(down.status).toBe(503);
      expect(down.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(down.json).toMatchObject({ code: 'provider_unavailable' });
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      sandbox().operator.clearFaults();
    }
    expect(sandbox().state.conversations.get(id)?.state).toBe('open');
    expect(closeWebhooks(id)).toEqual([]);
    expect(await durations(id)).toEqual([]);
    expect((await read('vic', id)).state).toBe('open');

    // Back up: the user's retry closes it.
    expect((await close('vic', id)).status).toBe(204);
    expect((await read('vic', id)).state).toBe('closed');
    expect(await durations(id)).toHaveLength(1);
  });
});
