import { describe, expect, it } from 'vitest';
import { parseExistingContactId } from '../../../../src/integrations/intercom/client.ts';
import {
  clientOf,
  errorList,
  failure,
  useFakeIntercom,
  fixtures,
  page,
  TEST_TOKEN,
} from './fake-intercom.ts';

const fake = useFakeIntercom();

describe('requests', () => {
  it('sends the three headers, the paths and the bodies INTEGRATIONS.md fixes, and parses the answers', async () => {
    const { client } = clientOf(fake, { searchPageSize: 20 });
    const { contact, conversation, message, ticket, tag, admin } = fixtures;
    fake
      .on('GET /me', { body: admin })
      .on('GET /contacts/find_by_external_id/user%2F70%20x', { body: contact })
      .on('POST /contacts/search', { body: page('list', 'data', [contact], null) })
      .on('POST /contacts', { body: contact })
      .on('POST /contacts/c1/unarchive', { body: { type: 'contact', id: 'c1', archived: false } })
      .on('PUT /contacts/c1', { body: { ...contact, custom_attributes: { app_version: '4.2.0' } } })
      .on('POST /conversations', { body: message })
      .on('POST /conversations/1295/reply', { body: conversation })
      .on('GET /conversations/1295', { body: conversation })
      .on('POST /conversations/search', {
        body: page(
          'conversation.list',
          'conversations',
          [{ ...conversation, conversation_parts: undefined }],
          'cur2',
        ),
      })
      .on('PUT /conversations/1295', { body: { ...conversation, read: true } })
      .on('POST /conversations/1295/tags', { body: tag })
      .on('POST /tickets/search', { body: page('ticket.list', 'tickets', [ticket], null) })
      .on('GET /tickets/494', { body: ticket })
      .on('POST /tags', { body: tag });

    const me = await client.me();
    expect(me.app.id_code).toBe('abc123app');
    expect((await client.findContactByExternalId('user/70 x'))?.id).toBe(contact.id);
    expect((await client.searchContactsByExternalId('user-70')).map((c) => c.id)).toEqual([contact.id]);
    expect((await client.createContact('user-70')).id).toBe(contact.id);
    expect(await client.unarchiveContact('c1')).toMatchObject({ id: 'c1', archived: false });
    const updated = await client.updateContact('c1', {
      customAttributes: { app_version: '4.2.0', device_lang: null },
    });
    expect(updated).toMatchObject({ custom_attributes: { app_version: '4.2.0' } });
    const created = await client.createConversation({
      contactId: 'c1',
      body: '<p>Hi</p>',
      attachmentUrls: ['https://files.example/a'],
    });
    expect(created.conversation_id).toBe('1296');
    await client.replyAsUser({ conversationId: '1295', contactId: 'c1', body: 'again' });
    const read = await client.getConversation('1295');
    expect(read.state).toBe('snoozed');
    expect(read.source.body).toBe('<p>Hello, my order is late</p>');
    const parts = read.conversation_parts.conversation_parts;
    expect(parts.map((p) => [p.id, p.part_type, p.body])).toEqual([
      ['7', 'comment', '<p>We are on it</p>'],
      ['8', 'assignment', null],
    ]);
    expect(parts[0]?.attachments[0]).toMatchObject({
      name: 'label.pdf',
      content_type: 'application/pdf',
      filesize: 1200,
    });
    // Fields the schemas do not name pass through.
    expect(read).toMatchObject({ priority: 'not_priority' });
    const conversations = await client.searchConversationsByContact('c1');
    expect(conversations).toMatchObject({ items: [{ id: '1295', state: 'snoozed' }], startingAfter: 'cur2' });
    await client.searchConversationsByContact('c1', 'cur2');
    expect((await client.markConversationRead('1295')).read).toBe(true);
    expect(await client.tagConversation('1295', '81', me.id)).toMatchObject({ id: '81', name: 'csat' });
    await client.addConversationNote('1295', 'CSAT 5', me.id);
    const tickets = await client.searchTicketsByContact('c1');
    expect(tickets.startingAfter).toBeNull();
    expect(tickets.items[0]?.ticket_state).toMatchObject({
      category: 'in_progress',
      external_label: 'In progress',
    });
    expect((await client.getTicket('494')).id).toBe('494');
    expect(await client.createTag('csat')).toMatchObject({ id: '81' });

    expect(fake.received.map((r) => [r.method, r.path, r.body])).toEqual([
      ['GET', '/me', undefined],
      ['GET', '/contacts/find_by_external_id/user%2F70%20x', undefined],
      ['POST', '/contacts/search', { query: { field: 'external_id', operator: '=', value: 'user-70' } }],
      ['POST', '/contacts', { role: 'user', external_id: 'user-70' }],
      ['POST', '/contacts/c1/unarchive', undefined],
      ['PUT', '/contacts/c1', { custom_attributes: { app_version: '4.2.0', device_lang: null } }],
      [
        'POST',
        '/conversations',
        { from: { type: 'user', id: 'c1' }, body: '<p>Hi</p>', attachment_urls: ['https://files.example/a'] },
      ],
      [
        'POST',
        '/conversations/1295/reply',
        { message_type: 'comment', type: 'user', intercom_user_id: 'c1', body: 'again' },
      ],
      ['GET', '/conversations/1295', undefined],
      [
        'POST',
        '/conversations/search',
        { query: { field: 'contact_ids', operator: '=', value: 'c1' }, pagination: { per_page: 20 } },
      ],
      [
        'POST',
        '/conversations/search',
        {
          query: { field: 'contact_ids', operator: '=', value: 'c1' },
          pagination: { per_page: 20, starting_after: 'cur2' },
        },
      ],
      ['PUT', '/conversations/1295', { read: true }],
      ['POST', '/conversations/1295/tags', { id: '81', admin_id: '991267459' }],
      [
        'POST',
        '/conversations/1295/reply',
        { message_type: 'note', type: 'admin', admin_id: '991267459', body: 'CSAT 5' },
      ],
      [
        'POST',
        '/tickets/search',
        { query: { field: 'contact_ids', operator: '=', value: 'c1' }, pagination: { per_page: 20 } },
      ],
      ['GET', '/tickets/494', undefined],
      ['POST', '/tags', { name: 'csat' }],
    ]);
    for (const request of fake.received) {
      expect(request.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['intercom-version']).toBe('2.15');
      if (request.body !== undefined) expect(request.headers['content-type']).toBe('application/json');
    }
  });

  it('refuses more than 10 attachment URLs without calling Intercom', async () => {
    const { client } = clientOf(fake);
    const urls = Array.from({ length: 11 }, (_, i) => `https://files.example/${i}`);
    const error = await failure(
      client.createConversation({ contactId: 'c1', body: 'x', attachmentUrls: urls }),
    );
    expect(error.kind).toBe('invalid');
    expect(fake.count()).toBe(0);
  });
});

describe('errors', () => {
  it('maps 404: a missing contact is null, a missing conversation is not_found', async () => {
    const { client } = clientOf(fake);
    expect(await client.findContactByExternalId('nobody')).toBeNull();
    const error = await failure(client.getConversation('404'));
    expect(error).toMatchObject({ kind: 'not_found', status: 404, code: 'not_found', requestId: 'req-0001' });
  });

  it('maps a duplicate contact to conflict and reads the existing id, archived or not', async () => {
    const { client } = clientOf(fake);
    const duplicate = 'A contact matching those details already exists with id=5f1b2c3d4e5f6a7b8c9d0e1f';
    fake.sequence('POST /contacts', [
      { status: 409, body: errorList('conflict', duplicate) },
      {
        status: 409,
        body: errorList(
          'conflict',
          `An archived contact matching those details already exists with id=abc123`,
        ),
      },
    ]);
    const first = await failure(client.createContact('user-70'));
    expect(first).toMatchObject({ kind: 'conflict', status: 409, code: 'conflict' });
    expect(parseExistingContactId(first.providerMessage)).toEqual({
      id: '5f1b2c3d4e5f6a7b8c9d0e1f',
      archived: false,
    });
    const second = await failure(client.createContact('user-70'));
    expect(parseExistingContactId(second.providerMessage)).toEqual({ id: 'abc123', archived: true });
    expect(parseExistingContactId('Something else')).toBeNull();
    expect(parseExistingContactId(undefined)).toBeNull();
    // The provider's text stays out of the error's message, which is what gets logged.
    expect(first.message).not.toContain('already exists');
  });

  it('maps 401 and 403 to unauthorized, 400 and 422 to invalid', async () => {
    const { client } = clientOf(fake);
    fake.sequence('GET /me', [
      { status: 401, body: errorList('unauthorized', 'Access Token Invalid') },
      { status: 403, body: errorList('api_plan_restricted', 'Active subscription needed.') },
      { status: 400, body: errorList('parameter_invalid', 'bad') },
      { status: 422, raw: 'not json' },
    ]);
    expect((await failure(client.me())).kind).toBe('unauthorized');
    expect((await failure(client.me())).kind).toBe('unauthorized');
    expect(await failure(client.me())).toMatchObject({ kind: 'invalid', code: 'parameter_invalid' });
    expect(await failure(client.me())).toMatchObject({ kind: 'invalid', status: 422, code: undefined });
  });

  it('treats an answer that fails its schema, or is not JSON, as unavailable without retrying it', async () => {
    const { client } = clientOf(fake);
    const stateless = { ...fixtures.conversation, state: undefined };
    fake.on('GET /conversations/1', { body: stateless });
    fake.on('GET /conversations/2', { body: { ...fixtures.conversation, state: 'exploded' } });
    fake.on('GET /conversations/3', { raw: '{"type":"conversation",' });
    fake.on('GET /tickets/4', { body: [] });
    for (const call of [
      client.getConversation('1'),
      client.getConversation('2'),
      client.getConversation('3'),
      client.getTicket('4'),
    ]) {
      expect(await failure(call)).toMatchObject({ kind: 'unavailable', reason: 'malformed_response' });
    }
    expect(fake.count()).toBe(4);
  });
});

describe('logs', () => {
  it('hold method, route template, status, duration and request id; never the token, a body or an id in a path', async () => {
    const { client, logs } = clientOf(fake);
    fake
      .on('GET /conversations/1295', { body: fixtures.conversation, headers: { 'x-request-id': 'rid-42' } })
      .on('GET /contacts/find_by_external_id/secret-user-id', { body: fixtures.contact })
      .on('POST /contacts', { status: 409, body: errorList('conflict', 'already exists with id=zzz999') })
      .on('GET /conversations/9', { body: { ...fixtures.conversation, read: 'Hello, my order is late' } });
    await client.getConversation('1295');
    await client.findContactByExternalId('secret-user-id');
    await client.createContact('secret-user-id').catch(() => undefined);
    await client
      .createConversation({ contactId: 'c1', body: 'Private words of the user' })
      .catch(() => undefined);
    await client.getConversation('9').catch(() => undefined);

    const lines = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        provider: 'intercom',
        method: 'GET',
        route: '/conversations/{id}',
        status: 200,
        requestId: 'rid-42',
        durationMs: expect.any(Number) as unknown,
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ method: 'POST', route: '/contacts', status: 409, requestId: 'req-0001' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        route: '/conversations/{id}',
        issues: [{ path: 'read', code: 'invalid_type' }],
      }),
    );
    for (const secret of [
      TEST_TOKEN,
      'Hello, my order is late',
      'We are on it',
      'Private words',
      'secret-user-id',
      'zzz999',
    ]) {
      expect(logs.text).not.toContain(secret);
    }
  });
});
