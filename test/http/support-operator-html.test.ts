import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conversationSchema, conversationSummarySchema } from '../../src/chat/conversation-views.ts';
import { OPERATOR_PREFIX } from '../../src/integrations/intercom/sandbox/index.ts';
import { ticketSchema } from '../../src/chat/ticket-views.ts';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

const service = useRunningApp();
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);

/** What a hostile (or careless) operator might paste into Intercom's inbox. */
const HOSTILE =
  '<p onclick="steal()">Your order <b>ships</b> today &amp; <i>arrives</i> ' +
  '<a href="https://track.example.com/1?a=b" target="_blank" onmouseover="x()">tomorrow</a>.' +
  '<a href="JaVaScRiPt:alert(1)">Claim</a> <a href="jav&#x61;script:alert(2)">prize</a></p>' +
  '<img src=x onerror=alert(3)><img src="data:image/png;base64,AAAA">' +
  '<img src="https://cdn.example.com/box.png" alt="Your box" onload="x()">' +
  '<svg><script>alert(4)</script></svg><iframe src="https://evil.example"></iframe>' +
  '<style>body{display:none}</style><form action="https://evil.example"><input name="card"></form>' +
  '<ul><li>Step <code>one</code></li><li>Step two</li></ul><scr<script>ipt>alert(5)</script>';

const SAFE_BODY =
  '<p>Your order <b>ships</b> today &amp; <i>arrives</i> ' +
  '<a href="https://track.example.com/1?a=b" rel="noopener noreferrer nofollow">tomorrow</a>.Claim prize</p>' +
  '<img src="https://cdn.example.com/box.png" alt="Your box" />' +
  '<ul><li>Step <code>one</code></li><li>Step two</li></ul>ipt&gt;alert(5)';

const SAFE_CONTENT = [
  {
    type: 'paragraph',
    children: [
      { type: 'text', text: 'Your order ' },
      { type: 'text', text: 'ships', marks: ['bold'] },
      { type: 'text', text: ' today & ' },
      { type: 'text', text: 'arrives', marks: ['italic'] },
      { type: 'text', text: ' ' },
      {
        type: 'link',
        href: 'https://track.example.com/1?a=b',
        children: [{ type: 'text', text: 'tomorrow' }],
      },
      { type: 'text', text: '.Claim prize' },
    ],
  },
  { type: 'image', url: 'https://cdn.example.com/box.png', alt: 'Your box' },
  {
    type: 'list',
    ordered: false,
    items: [
      {
        children: [
          {
            type: 'paragraph',
            children: [
              { type: 'text', text: 'Step ' },
              { type: 'text', text: 'one', marks: ['code'] },
            ],
          },
        ],
      },
      { children: [{ type: 'paragraph', children: [{ type: 'text', text: 'Step two' }] }] },
    ],
  },
  { type: 'paragraph', children: [{ type: 'text', text: 'ipt>alert(5)' }] },
];

const SAFE_PREVIEW =
  'Your order ships today & arrives tomorrow.Claim prize • Step one • Step two ipt>alert(5)';

/** As a teammate would, through the sandbox's operator routes over HTTP; the webhook follows. */
async function operator(path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${sandbox().url}${OPERATOR_PREFIX}/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox().accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const conversations = z.object({ items: z.array(conversationSummarySchema) });

describe('operator HTML leaves the service safe', () => {
  it('an operator reply comes back sanitised, with its tree, and as plain text in the list', async () => {
    const opened = await api.post('oli', '/conversations', { text: 'Where is my <order>?' });
    expect(opened.status).toBe(201);
    const { conversationId } = z.object({ conversationId: z.string() }).parse(opened.json);
    await operator(`conversations/${conversationId}/reply`, { body: HOSTILE });

    const conversation = await eventually(
      async () => conversationSchema.parse((await api.get('oli', `/conversations/${conversationId}`)).json),
      (c) => c.messages.length === 2,
    );
    const [mine, reply] = conversation.messages;
    expect(mine).toMatchObject({
      author: { type: 'user' },
      body: '<p>Where is my &lt;order&gt;?</p>',
      content: [{ type: 'paragraph', children: [{ type: 'text', text: 'Where is my <order>?' }] }],
    });
    expect(reply).toMatchObject({ author: { type: 'operator' }, body: SAFE_BODY, content: SAFE_CONTENT });
    // Nothing of the attack is left anywhere in what the client gets.
    const raw = JSON.stringify(conversation);
    for (const word of [
      'onclick',
      'onerror',
      'onload',
      'onmouseover',
      'javascript',
      'data:',
      '<script',
      'iframe',
    ]) {
      expect(raw.toLowerCase()).not.toContain(word);
    }

    const list = conversations.parse((await api.get('oli', '/conversations')).json);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]?.lastMessage).toEqual({
      id: reply?.id,
      author: reply?.author,
      preview: SAFE_PREVIEW,
      createdAt: reply?.createdAt,
    });
  });

  it('a 304 still answers polls once the sanitised copy is cached, and the next webhook changes the tag', async () => {
    const opened = await api.post('pia', '/conversations', { text: 'Hello' });
    const { conversationId } = z.object({ conversationId: z.string() }).parse(opened.json);
    await operator(`conversations/${conversationId}/reply`, { body: '<p>First<script>x</script></p>' });
    const first = await eventually(
      () => api.get('pia', `/conversations/${conversationId}`),
      (r) => conversationSchema.parse(r.json).messages.length === 2,
    );
    const etag = first.headers.get('etag') ?? '';
    expect((await api.get('pia', `/conversations/${conversationId}`, { 'if-none-match': etag })).status).toBe(
      304,
    );

    await operator(`conversations/${conversationId}/reply`, {
      body: '<p>Second <a href="tel:+15551234">call</a></p>',
    });
    const after = await eventually(
      async () => conversationSchema.parse((await api.get('pia', `/conversations/${conversationId}`)).json),
      (c) => c.messages.length === 3,
    );
    expect(after.messages.slice(1).map((m) => m.body)).toEqual([
      '<p>First</p>',
      '<p>Second <a href="tel:+15551234" rel="noopener noreferrer nofollow">call</a></p>',
    ]);
    expect((await api.get('pia', `/conversations/${conversationId}`, { 'if-none-match': etag })).status).toBe(
      200,
    );
  });

  it('a ticket reply comes back sanitised with its tree; a state change has neither', async () => {
    const opened = await api.post('quin', '/conversations', { text: 'Refund please' });
    expect(opened.status).toBe(201);
    const contactId = [...sandbox().state.contacts.values()].find((c) => c.externalId === 'quin')?.id ?? '';
    const ticket = z
      .object({ id: z.string() })
      .parse(await operator('tickets', { contactId, title: 'Refund' }));
    await operator(`tickets/${ticket.id}/reply`, { body: HOSTILE });
    await operator(`tickets/${ticket.id}/resolve`, {});

    const seen = await eventually(
      async () => ticketSchema.parse((await api.get('quin', `/tickets/${ticket.id}`)).json),
      (t) => t.state === 'resolved',
    );
    expect(seen.parts.find((p) => p.body !== null)).toMatchObject({
      author: { type: 'operator' },
      body: SAFE_BODY,
      content: SAFE_CONTENT,
    });
    expect(seen.parts.at(-1)).toMatchObject({ state: 'resolved', body: null, content: null });
  });
});
