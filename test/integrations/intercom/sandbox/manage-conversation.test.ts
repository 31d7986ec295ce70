import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createIntercomClient } from '../../../../src/integrations/intercom/client.ts';
import { isProviderError } from '../../../../src/integrations/intercom/errors.ts';
import type { IntercomSandbox } from '../../../../src/integrations/intercom/sandbox/index.ts';
import {
  call,
  contactWithConversation,
  startReceiver,
  startSandbox,
  TOKEN,
  type Receiver,
} from './harness.ts';
import { describeErrors, loadIntercomSpec, missingKeys } from './openapi.ts';

// `POST /conversations/{id}/parts` (Intercom's manageConversation): close, snooze or open as an admin, as the
// service closes a request on its user's behalf. The answer against the 2.15 OpenAPI file, the webhook
// Intercom sends for it, and the client's `closeConversation` against the sandbox.

const spec = loadIntercomSpec();
const PATH = '/conversations/{conversation_id}/parts';

describe('POST /conversations/{id}/parts in the sandbox', () => {
  let sandbox: IntercomSandbox;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await startSandbox({ webhookUrl: receiver.url });
  });

  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const manage = (id: string, body: unknown) => call(sandbox, 'POST', `/conversations/${id}/parts`, body);
  const received = async (topic: string, conversationId: string) => {
    await sandbox.operator.webhooksIdle();
    return receiver.received.filter((r) => r.json.topic === topic && r.json.data.item.id === conversationId);
  };

  it('closes as an admin: the conversation with only the close part, then conversation.admin.closed', async () => {
    const { conversationId } = await contactWithConversation(sandbox, 'parts-close');
    const admin = sandbox.state.me.id;
    const answer = await manage(conversationId, { message_type: 'close', type: 'admin', admin_id: admin });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: conversationId, state: 'closed' });
    expect((answer.body as unknown as { open: boolean }).open).toBe(false);
    const parts = answer.body.conversation_parts.conversation_parts;
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ part_type: 'close', body: null, author: { type: 'admin', id: admin } });
    if (spec) {
      const validate = spec.response(PATH, 'post', 200);
      expect(validate(answer.body), describeErrors(validate.errors)).toBe(true);
      const missing = missingKeys(spec.example(PATH, 'post', 200), answer.body).filter(
        (key) => !['topics', 'ticket', 'source.author.email'].includes(key),
      );
      expect(missing).toEqual([]);
    }

    const [webhook, ...more] = await received('conversation.admin.closed', conversationId);
    expect(more).toEqual([]);
    expect(webhook?.json.data.item.conversation_parts.conversation_parts).toEqual([
      expect.objectContaining({ id: parts[0].id, part_type: 'close' }),
    ]);
    if (spec) {
      const validate = spec.component('conversation');
      expect(validate(webhook?.json.data.item), describeErrors(validate.errors)).toBe(true);
    }
  });

  it('snoozes and opens as an admin, with the topics Intercom sends', async () => {
    const { conversationId } = await contactWithConversation(sandbox, 'parts-snooze');
    const admin_id = sandbox.state.me.id;
    const snoozed = await manage(conversationId, {
      message_type: 'snoozed',
      admin_id,
      snoozed_until: 2_000_000_000,
    });
    expect(snoozed.body).toMatchObject({ state: 'snoozed', snoozed_until: 2_000_000_000 });
    const opened = await manage(conversationId, { message_type: 'open', admin_id });
    expect(opened.body).toMatchObject({ state: 'open' });
    expect(opened.body.conversation_parts.conversation_parts[0].part_type).toBe('unsnoozed');
    expect(await received('conversation.admin.snoozed', conversationId)).toHaveLength(1);
    expect(await received('conversation.admin.unsnoozed', conversationId)).toHaveLength(1);
  });

  it('refuses what it does not implement or know, in the shape of Intercom errors', async () => {
    const { conversationId } = await contactWithConversation(sandbox, 'parts-refused');
    const admin_id = sandbox.state.me.id;
    const assign = await manage(conversationId, {
      message_type: 'assignment',
      type: 'admin',
      admin_id,
      assignee_id: admin_id,
    });
    expect(assign.status).toBe(400);
    expect(assign.body.errors[0].code).toBe('parameter_invalid');
    expect((await manage(conversationId, { message_type: 'close', admin_id })).status).toBe(400);
    expect((await manage('404404', { message_type: 'close', type: 'admin', admin_id })).status).toBe(404);
    expect(
      (await manage(conversationId, { message_type: 'close', type: 'admin', admin_id: '1' })).status,
    ).toBe(404);
    expect(sandbox.state.conversations.get(conversationId)?.state).toBe('open');
  });

  it('is what closeConversation of the client sends; a failed close is sent once', async () => {
    const client = createIntercomClient({
      baseUrl: sandbox.url,
      accessToken: TOKEN,
      logger: pino({ level: 'silent' }),
      retryInitialDelayMs: 1,
      retryMaxDelayMs: 2,
    });
    const { conversationId } = await contactWithConversation(sandbox, 'parts-client');
    const admin = await client.me();

    sandbox.operator.failNext(1, { status: 503, method: 'POST', pathPrefix: '/conversations/' });
    const before = sandbox.calls.length;
    const failed = await client.closeConversation(conversationId, admin.id).catch((error: unknown) => error);
    expect(isProviderError(failed, 'unavailable')).toBe(true);
    expect(sandbox.calls.slice(before).map((c) => `${c.method} ${c.path}`)).toEqual([
      `POST /conversations/${conversationId}/parts`,
    ]);
    expect(sandbox.state.conversations.get(conversationId)?.state).toBe('open');

    const closed = await client.closeConversation(conversationId, admin.id);
    expect(closed.state).toBe('closed');
    expect(closed.conversation_parts.conversation_parts.map((p) => p.part_type)).toEqual(['close']);
    expect(await received('conversation.admin.closed', conversationId)).toHaveLength(1);
  });
});
