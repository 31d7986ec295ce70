import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contactOfUser } from '../../src/chat/user-contacts.ts';
import { devicesOfUser } from '../../src/queries/devices.ts';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

const service = useRunningApp({ env: { ENABLE_DEVTOOLS: '1' } });
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);
const sent = z.object({ conversationId: z.string() });
const pushes = z.object({
  items: z.array(
    z.object({ userId: z.string(), category: z.string(), conversationId: z.string().optional() }),
  ),
});

describe('support devtools', () => {
  it('operator-reply: the reply arrives through a signed webhook, shows on the next poll, and is in the push log', async () => {
    const { conversationId } = sent.parse((await api.post('nia', '/conversations', { text: 'hello?' })).json);
    const reply = await api.post('nia', '/devtools/operator-reply', {
      conversationId,
      text: 'Hi from the team',
    });
    expect(reply.status).toBe(202);
    expect(sandbox().operator.deliveries.at(-1)).toMatchObject({
      topic: 'conversation.admin.replied',
      status: 200,
    });
    const conversation = await eventually(
      async () => (await api.get('nia', `/conversations/${conversationId}`)).json as { messages: unknown[] },
      (c) => c.messages.length === 2,
    );
    expect(conversation.messages[1]).toMatchObject({
      author: { type: 'operator' },
      body: '<p>Hi from the team</p>',
    });
    const log = await eventually(
      async () => pushes.parse((await api.get('nia', '/devtools/pushes')).json),
      (p) => p.items.some((item) => item.userId === 'nia'),
    );
    expect(log.items[0]).toMatchObject({ userId: 'nia', category: 'chat', conversationId });
    expect(
      (await api.post('nia', '/devtools/operator-reply', { conversationId: '424242', text: 'x' })).status,
    ).toBe(404);
  });

  it("operator-reply: only in the caller's own conversation (403 for another user's, nothing sent)", async () => {
    const { conversationId } = sent.parse(
      (await api.post('ada', '/conversations', { text: 'mine alone' })).json,
    );
    const partsOfAda = () => sandbox().state.conversations.get(conversationId)?.parts.length;
    // The opening message is the conversation's source; replies are its parts.
    const partsBefore = partsOfAda();
    expect(partsBefore).toBeTypeOf('number');
    const operatorReplies = () =>
      sandbox().operator.deliveries.filter((d) => d.topic === 'conversation.admin.replied').length;
    const refuse = async () => {
      const repliesBefore = operatorReplies();
      const refused = await api.post('bea', '/devtools/operator-reply', {
        conversationId,
        text: 'not yours',
      });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.json).toMatchObject({ status: 403, code: 'forbidden' });
      expect(operatorReplies()).toBe(repliesBefore);
    };
    // bea has no contact yet, then one of her own: neither makes ada's conversation hers.
    await refuse();
    expect((await api.post('bea', '/conversations', { text: 'me too' })).status).toBe(201);
    await refuse();
    expect(partsOfAda()).toBe(partsBefore);
    const thread = (await api.get('ada', `/conversations/${conversationId}`)).json as { messages: unknown[] };
    expect(thread.messages).toHaveLength(1);
    // Unknown stays 404, and the owner still gets the reply.
    const unknown = await api.post('bea', '/devtools/operator-reply', {
      conversationId: '9999999',
      text: 'x',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
    expect(
      (await api.post('ada', '/devtools/operator-reply', { conversationId, text: 'yours' })).status,
    ).toBe(202);
    expect(partsOfAda()).toBe((partsBefore ?? 0) + 1);
  });

  it('wipe-contact: the user starts over with no contact, read markers or devices', async () => {
    const { conversationId } = sent.parse(
      (await api.post('oto', '/conversations', { text: 'first life' })).json,
    );
    await api.post('oto', `/conversations/${conversationId}/read`, {});
    expect(
      (await api.post('oto', '/devices/register', { platform: 'mobile', token: 'fcm-oto' })).status,
    ).toBe(200);
    const contactId = await contactOfUser(service.db.pool, 'oto');
    expect(contactId).not.toBeNull();

    expect((await api.post('oto', '/devtools/wipe-contact', {})).status).toBe(204);
    expect(await contactOfUser(service.db.pool, 'oto')).toBeNull();
    expect(await devicesOfUser(service.db.pool, 'oto')).toEqual([]);
    expect(sandbox().state.contacts.has(contactId ?? '')).toBe(false);
    expect((await api.get('oto', '/conversations')).json).toEqual({ items: [] });
    // As in Intercom, the contact's conversations went with it.
    expect(sandbox().state.conversations.has(conversationId)).toBe(false);
    expect((await api.get('oto', `/conversations/${conversationId}`)).status).toBe(404);

    // The next message makes a new contact.
    expect((await api.post('oto', '/conversations', { text: 'second life' })).status).toBe(201);
    const again = await contactOfUser(service.db.pool, 'oto');
    expect(again).not.toBeNull();
    expect(again).not.toBe(contactId);
  });

  it('needs a session, checks its input, and is in the OpenAPI document', async () => {
    const base = service.running.url;
    for (const [method, path] of [
      ['POST', '/api/devtools/operator-reply'],
      ['POST', '/api/devtools/wipe-contact'],
      ['GET', '/api/devtools/pushes'],
    ] as const) {
      const anonymous = await fetch(`${base}${path}`, { method });
      expect(anonymous.status, path).toBe(401);
    }
    expect((await api.post('uma', '/devtools/operator-reply', { conversationId: '1' })).status).toBe(400);
    expect(
      (await api.post('uma', '/devtools/operator-reply', { conversationId: '../x', text: 'hi' })).status,
    ).toBe(400);
    expect((await api.get('uma', '/devtools/pushes?limit=0')).status).toBe(400);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/devtools/operator-reply',
        '/api/devtools/wipe-contact',
        '/api/devtools/pushes',
      ]),
    );
  });
});
