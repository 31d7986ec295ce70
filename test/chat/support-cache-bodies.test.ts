import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportCache, type SupportCache } from '../../src/chat/support-cache.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient, type IntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';

const HOSTILE =
  '<p onclick="steal()">Read <a href="jav&#x61;script:alert(1)">this</a> and ' +
  '<a href="https://help.example.com/a" target="_blank">that</a></p><img src=x onerror=alert(1)><script>alert(2)</script>';
const SAFE =
  '<p>Read this and <a href="https://help.example.com/a" rel="noopener noreferrer nofollow">that</a></p>';
const CONTENT = [
  {
    type: 'paragraph',
    children: [
      { type: 'text', text: 'Read this and ' },
      { type: 'link', href: 'https://help.example.com/a', children: [{ type: 'text', text: 'that' }] },
    ],
  },
];

describe('support cache: bodies are made safe when an entry loads, not when it is read', () => {
  let sandbox: IntercomSandbox;
  let intercom: IntercomClient;
  let cache: SupportCache;
  beforeAll(async () => {
    sandbox = await startIntercomSandbox({ accessToken: 'token', clientSecret: 'secret' });
    const logger = createLogger('silent');
    intercom = createIntercomClient({ baseUrl: sandbox.url, accessToken: 'token', logger });
    cache = await createSupportCache({ intercom, logger, ttlMs: 60_000 });
  });
  afterAll(async () => {
    await cache.close();
    await sandbox.close();
  });

  it('holds a conversation sanitised, with its tree and list preview, and reuses them on every read', async () => {
    const contact = await intercom.createContact(`bodies-${Date.now()}`);
    const { conversation_id: id } = await intercom.createConversation({
      contactId: contact.id,
      body: '<p>Hi <b>there</b></p>',
    });
    await sandbox.operator.reply(id, { body: HOSTILE });

    const first = await cache.conversation(id);
    if (!first.value.found) throw new Error('conversation not found');
    const [mine, theirs] = first.value.view.messages;
    expect(mine).toMatchObject({
      body: '<p>Hi <b>there</b></p>',
      content: [
        {
          type: 'paragraph',
          children: [
            { type: 'text', text: 'Hi ' },
            { type: 'text', text: 'there', marks: ['bold'] },
          ],
        },
      ],
    });
    expect(theirs).toMatchObject({ author: { type: 'operator' }, body: SAFE, content: CONTENT });
    expect(first.value.derived.lastMessage).toMatchObject({ id: theirs?.id, preview: 'Read this and that' });
    // What polls are answered with was serialised from the safe view.
    expect(first.value.json).not.toMatch(/onclick|onerror|javascript|script|target/);
    expect(JSON.parse(first.value.json)).toEqual(first.value.view);

    // A read of a warm entry gives the very same objects: nothing is parsed or serialised again.
    const second = await cache.conversation(id);
    if (!second.value.found) throw new Error('conversation not found');
    expect(second.value.view).toBe(first.value.view);
    expect(second.value.json).toBe(first.value.json);
    expect(second.value.derived).toBe(first.value.derived);

    // An invalidation loads, and so sanitises, once more.
    await cache.invalidate({ contactIds: [contact.id], conversationId: id });
    const third = await cache.conversation(id);
    if (!third.value.found) throw new Error('conversation not found');
    expect(third.value.view).not.toBe(first.value.view);
    expect(third.value.view).toEqual(first.value.view);
  });

  it('holds ticket parts sanitised, with a null tree for a state change', async () => {
    const contact = await intercom.createContact(`ticket-bodies-${Date.now()}`);
    const { id } = await sandbox.operator.createTicket({ contactId: contact.id, title: 'Refund' });
    await sandbox.operator.replyToTicket(id, { body: HOSTILE });
    await sandbox.operator.resolveTicket(id);

    const read = await cache.ticket(id);
    if (!read.value.found) throw new Error('ticket not found');
    const reply = read.value.view.parts.find((part) => part.body !== null);
    expect(reply).toMatchObject({ body: SAFE, content: CONTENT });
    expect(read.value.view.parts.at(-1)).toMatchObject({ state: 'resolved', body: null, content: null });
    expect(read.value.json).not.toMatch(/onclick|onerror|javascript|script|target/);
  });
});
