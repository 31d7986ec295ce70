import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  OPERATOR_PREFIX,
  type IntercomSandbox,
} from '../../../../src/integrations/intercom/sandbox/index.ts';
import {
  call,
  CLIENT_SECRET,
  contactWithConversation,
  startReceiver,
  startSandbox,
  TOKEN,
  type Receiver,
  type Received,
} from './harness.ts';

let sandbox: IntercomSandbox;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  sandbox = await startSandbox({ webhookUrl: receiver.url, appIdCode: 'app_1' });
});
afterEach(async () => {
  await sandbox.close();
  await receiver.close();
});

/** What the service does: HMAC-SHA1 over the exact bytes received. */
function signatureHolds({ headers, raw }: Received): boolean {
  return headers['x-hub-signature'] === `sha1=${createHmac('sha1', CLIENT_SECRET).update(raw).digest('hex')}`;
}

const topics = () => receiver.received.map((delivery) => delivery.json.topic);

it('signs the envelope of an operator reply and carries a plain-text body', async () => {
  const { conversationId } = await contactWithConversation(sandbox, 'w1');
  await sandbox.operator.webhooksIdle();
  receiver.received.length = 0;
  const result = await sandbox.operator.reply(conversationId, { body: '<p>Hello <b>you</b> &amp; co</p>' });
  expect(receiver.received).toHaveLength(1);
  const [delivery] = receiver.received as [Received];
  expect(signatureHolds(delivery)).toBe(true);
  expect(delivery.headers['content-type']).toBe('application/json');
  expect(delivery.json).toMatchObject({
    type: 'notification_event',
    id: result.notificationId,
    topic: 'conversation.admin.replied',
    app_id: 'app_1',
    delivery_attempts: 1,
    data: { item: { type: 'conversation', id: conversationId } },
  });
  expect(result.notificationId).toMatch(/^notif_/);
  expect(delivery.json.first_sent_at).toBeGreaterThanOrEqual(delivery.json.created_at);
  const parts = delivery.json.data.item.conversation_parts.conversation_parts;
  expect(parts).toMatchObject([{ id: result.id, part_type: 'comment', body: 'Hello you & co' }]);
  // A tampered byte breaks the signature.
  expect(signatureHolds({ ...delivery, raw: Buffer.concat([delivery.raw, Buffer.from(' ')]) })).toBe(false);
});

it('sends the topic of each operator action and of user writes through the API', async () => {
  const { contactId, conversationId } = await contactWithConversation(sandbox, 'w2');
  await call(sandbox, 'POST', `/conversations/${conversationId}/reply`, {
    message_type: 'comment',
    type: 'user',
    intercom_user_id: contactId,
    body: 'more',
  });
  await sandbox.operator.webhooksIdle();
  await sandbox.operator.note(conversationId, { body: 'internal' });
  await sandbox.operator.snooze(conversationId, { until: 2_000_000_000 });
  await sandbox.operator.open(conversationId);
  await sandbox.operator.close(conversationId);
  await sandbox.operator.open(conversationId);
  const ticket = await sandbox.operator.createTicket({ contactId, title: 'Refund' });
  await sandbox.operator.setTicketState(ticket.id, { state: 'in_progress' });
  await sandbox.operator.replyToTicket(ticket.id, { body: 'On it' });
  await sandbox.operator.resolveTicket(ticket.id);
  expect(topics()).toEqual([
    'conversation.user.created',
    'conversation.user.replied',
    'conversation.admin.noted',
    'conversation.admin.snoozed',
    'conversation.admin.unsnoozed',
    'conversation.admin.closed',
    'conversation.admin.opened',
    'ticket.created',
    'ticket.state.updated',
    'ticket.admin.replied',
    'ticket.state.updated',
    'ticket.resolved',
  ]);
  expect(receiver.received.every(signatureHolds)).toBe(true);
  const resolved = receiver.received.at(-1)?.json.data.item;
  expect(resolved).toMatchObject({ type: 'ticket', id: ticket.id, ticket_state: { category: 'resolved' } });
});

it('retries a failed delivery once, under the same id with delivery_attempts 2', async () => {
  const { conversationId } = await contactWithConversation(sandbox, 'w3');
  await sandbox.operator.webhooksIdle();
  receiver.received.length = 0;
  receiver.statuses.push(500, 500);
  const { notificationId } = await sandbox.operator.close(conversationId);
  await sandbox.operator.webhooksIdle();
  expect(receiver.received.map((delivery) => [delivery.json.id, delivery.json.delivery_attempts])).toEqual([
    [notificationId, 1],
    [notificationId, 2],
  ]);
  expect(receiver.received.every(signatureHolds)).toBe(true);
  const recorded = sandbox.operator.deliveries.filter(
    (delivery) => delivery.notificationId === notificationId,
  );
  expect(recorded.map((delivery) => [delivery.status, delivery.ok])).toEqual([
    [500, false],
    [500, false],
  ]);
});

it('redelivers a notification on demand and delivers held ones out of order', async () => {
  const { conversationId } = await contactWithConversation(sandbox, 'w4');
  await sandbox.operator.webhooksIdle();
  receiver.received.length = 0;
  const { notificationId } = await sandbox.operator.reply(conversationId, { body: 'one' });
  const again = await fetch(`${sandbox.url}${OPERATOR_PREFIX}/webhooks/${notificationId}/redeliver`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(again.status).toBe(200);
  expect(receiver.received.map((delivery) => delivery.json.id)).toEqual([notificationId, notificationId]);

  receiver.received.length = 0;
  sandbox.operator.holdWebhooks();
  await sandbox.operator.reply(conversationId, { body: 'first' });
  await sandbox.operator.close(conversationId);
  expect(receiver.received).toHaveLength(0);
  await sandbox.operator.releaseWebhooks('reverse');
  expect(topics()).toEqual(['conversation.admin.closed', 'conversation.admin.replied']);
});

it('drives an operator reply over HTTP, as the devtools do', async () => {
  const { conversationId } = await contactWithConversation(sandbox, 'w5');
  const answer = await fetch(`${sandbox.url}${OPERATOR_PREFIX}/conversations/${conversationId}/reply`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ body: '<p>From the inbox</p>' }),
  });
  expect(answer.status).toBe(200);
  const { notificationId } = (await answer.json()) as { notificationId: string };
  expect(notificationId).toMatch(/^notif_/);
  expect(topics()).toContain('conversation.admin.replied');
  const missing = await fetch(`${sandbox.url}${OPERATOR_PREFIX}/conversations/404/close`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(missing.status).toBe(404);
});

it('gives up on a receiver that does not answer in time, and retries once', async () => {
  // A receiver that reads the request and never answers.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  await sandbox.close();
  sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${port}/`,
    webhookTimeoutMs: 100,
    webhookRetryDelayMs: 10,
  });
  try {
    const { conversationId } = await contactWithConversation(sandbox, 'w6');
    await sandbox.operator.close(conversationId);
    await sandbox.operator.webhooksIdle();
    const failed = sandbox.operator.deliveries.filter(
      (delivery) => delivery.topic === 'conversation.admin.closed',
    );
    expect(failed.map((delivery) => [delivery.attempt, delivery.status, delivery.ok])).toEqual([
      [1, null, false],
      [2, null, false],
    ]);
    expect(failed[0]?.error).toMatch(/timeout|abort/i);
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});
