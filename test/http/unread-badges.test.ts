import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox, webhooksSettled } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

// The badges of /api/unread count only what the user can see in the thread (issue 33). Every change here
// reaches the service as production's do: the sandbox's signed webhook, processed by the inbox, which
// refreshes the cached records; the badge is read after that.

// Intercom's times are whole seconds; the sandbox's clock moves 10 s before each action, so that every
// change is later than whatever the user last saw, as it would be in real use.
let skew = 0;
const service = useRunningApp({
  env: { ENABLE_DEVTOOLS: '1' },
  support: { sandbox: { now: () => Date.now() + skew } },
});
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);
const settled = () => webhooksSettled(sandbox(), service.db.pool);

const unread = z.object({ conversations: z.number(), tickets: z.number() });
const badges = async (user: string) => unread.parse((await api.get(user, '/unread')).json);

let complaintReason = '';
beforeAll(async () => {
  const owner = await loginToken(service.running.url, await createTestAdmin(service.db.pool, 'owner'));
  const made = await adminCall(service.running.url, owner, 'POST', '/admin/reasons', {
    kind: 'complaint',
    title: 'Rude operator',
  });
  complaintReason = z.object({ id: z.string() }).parse(made.body).id;
});

/** A user with an open conversation and a ticket, both read: their badges are zero. */
async function readEverything(user: string): Promise<{ conversationId: string; ticketId: string }> {
  const sent = await api.post(user, '/conversations', { text: 'Hello?' });
  const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
  const opened = await api.post(user, '/devtools/tickets', { title: 'Refund' });
  const { ticketId } = z.object({ ticketId: z.string() }).parse(opened.json);
  await settled();
  await markRead(user, conversationId, ticketId);
  return { conversationId, ticketId };
}

async function markRead(user: string, conversationId: string, ticketId: string): Promise<void> {
  expect((await api.post(user, `/conversations/${conversationId}/read`, {})).status).toBe(204);
  expect((await api.get(user, `/tickets/${ticketId}`)).status).toBe(200);
  expect(await badges(user)).toEqual({ conversations: 0, tickets: 0 });
}

/** Does `action` as the team, 10 s after the last one, and answers the badges once its webhooks are in. */
async function badgesAfter(user: string, action: () => Promise<unknown>) {
  skew += 10_000;
  await action();
  await settled();
  return badges(user);
}

const ticketUpdatedAt = (ticketId: string) => sandbox().state.tickets.get(ticketId)?.updatedAt ?? 0;

describe('unread badges count only what the user can see', () => {
  it('stay at zero through notes, tags, an assignment, a snooze and a complaint', async () => {
    const user = 'uma';
    const { conversationId, ticketId } = await readEverything(user);
    const seenAt = ticketUpdatedAt(ticketId);
    const at = `/devtools/conversations/${conversationId}`;
    const quiet: [string, () => Promise<unknown>][] = [
      ['a note on the conversation', () => api.post(user, `${at}/note`, { text: 'VIP, be nice' })],
      [
        'a note on the ticket',
        () => api.post(user, `/devtools/tickets/${ticketId}/note`, { text: 'Ask finance' }),
      ],
      ['an assignment', () => api.post(user, `${at}/assign`, undefined)],
      [
        'a snooze',
        () =>
          api.post(user, `${at}/snooze`, { until: new Date(Date.now() + skew + 3_600_000).toISOString() }),
      ],
      ['an unsnooze', () => api.post(user, `${at}/reopen`, undefined)],
      [
        'a tag on the conversation and on the ticket',
        async () => {
          const { intercom } = service.running.support;
          const [tag, me] = await Promise.all([intercom.createTag('vip'), intercom.me()]);
          await intercom.tagConversation(conversationId, tag.id, me.id);
          await intercom.tagTicket(ticketId, tag.id, me.id);
        },
      ],
      [
        'a complaint about both (a note on the contact)',
        () =>
          api.post(user, '/complaints', {
            reasonId: complaintReason,
            text: 'Slow',
            conversationId,
            ticketId,
          }),
      ],
    ];
    for (const [what, action] of quiet) {
      expect(await badgesAfter(user, action), what).toEqual({ conversations: 0, tickets: 0 });
    }
    // Not vacuous: Intercom's updated_at moved past what the user saw, which the old badge counted.
    expect(ticketUpdatedAt(ticketId)).toBeGreaterThan(seenAt);
    const listed = z.object({ items: z.array(z.object({ id: z.string(), updatedAt: z.string() })) });
    const row = listed.parse((await api.get(user, '/tickets')).json).items.find((t) => t.id === ticketId);
    expect(Date.parse(row?.updatedAt ?? '')).toBe(ticketUpdatedAt(ticketId) * 1000);
  });

  it('stay at zero after the user rates the conversation and the ticket (the note and tag at Intercom)', async () => {
    const user = 'vic';
    const { conversationId, ticketId } = await readEverything(user);
    await badgesAfter(user, () => sandbox().operator.close(conversationId));
    await badgesAfter(user, () => sandbox().operator.resolveTicket(ticketId));
    await markRead(user, conversationId, ticketId);
    skew += 10_000;
    for (const [targetType, targetId] of [
      ['conversation', conversationId],
      ['ticket', ticketId],
    ]) {
      expect((await api.post(user, '/csat', { targetType, targetId, rating: 5 })).status).toBe(201);
    }
    // The CSAT processor writes a note and a tag on each at Intercom, after the 201.
    const noted = (parts: readonly { partType: string }[] | undefined) =>
      (parts ?? []).some((p) => p.partType === 'note');
    await eventually(
      () => {
        const conversation = sandbox().state.conversations.get(conversationId);
        const ticket = sandbox().state.tickets.get(ticketId);
        return Promise.resolve(
          noted(conversation?.parts) &&
            noted(ticket?.parts) &&
            conversation?.tags.length === 1 &&
            ticket?.tags.length === 1,
        );
      },
      (done) => done,
      10_000,
    );
    await settled();
    expect(await badges(user)).toEqual({ conversations: 0, tickets: 0 });
  });

  it('rise by one for an operator reply, a close with a message and a ticket state change or reply', async () => {
    const user = 'wes';
    const { conversationId, ticketId } = await readEverything(user);
    const at = `/devtools/conversations/${conversationId}`;
    expect(
      await badgesAfter(user, () =>
        api.post(user, '/devtools/operator-reply', { conversationId, text: 'On it' }),
      ),
    ).toEqual({ conversations: 1, tickets: 0 });
    expect(
      await badgesAfter(user, () =>
        api.post(user, `/devtools/tickets/${ticketId}/state`, { state: 'in_progress' }),
      ),
    ).toEqual({ conversations: 1, tickets: 1 });
    expect(await badgesAfter(user, () => api.post(user, `${at}/close`, { text: 'Solved, bye!' }))).toEqual({
      conversations: 2,
      tickets: 1,
    });
    await markRead(user, conversationId, ticketId);
    expect(
      await badgesAfter(user, () =>
        api.post(user, `/devtools/tickets/${ticketId}/reply`, { text: 'Refunded' }),
      ),
    ).toEqual({ conversations: 0, tickets: 1 });
  });

  it('answer a 304 with no call to Intercom while nothing changed', async () => {
    const user = 'xan';
    await readEverything(user);
    const first = await api.get(user, '/unread');
    const calls = sandbox().calls.length;
    const again = await api.get(user, '/unread', { 'if-none-match': first.headers.get('etag') ?? '' });
    expect(again.status).toBe(304);
    expect(sandbox().calls.length).toBe(calls);
  });
});
