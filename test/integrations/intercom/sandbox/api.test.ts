import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IntercomSandbox } from '../../../../src/integrations/intercom/sandbox/index.ts';
import { call, contactWithConversation, startSandbox } from './harness.ts';

let sandbox: IntercomSandbox;
let clock: number;

beforeEach(async () => {
  clock = Date.UTC(2025, 0, 1);
  sandbox = await startSandbox({ now: () => clock });
});
afterEach(async () => {
  await sandbox.close();
});

const search = (path: string, field: string, value: string, pagination?: object) =>
  call(sandbox, 'POST', path, {
    query: { field, operator: '=', value },
    ...(pagination ? { pagination } : {}),
  });

describe('what every call must carry', () => {
  it('refuses a missing or wrong token with 401 unauthorized', async () => {
    for (const authorization of [null, 'Bearer nope', 'sandbox-test-token']) {
      const answer = await call(sandbox, 'GET', '/me', undefined, { authorization });
      expect(answer.status).toBe(401);
      expect(answer.body.errors).toEqual([{ code: 'unauthorized', message: 'Access Token Invalid' }]);
    }
  });

  it('answers 406 without Accept: application/json', async () => {
    expect((await call(sandbox, 'GET', '/me', undefined, { accept: null })).status).toBe(406);
    expect((await call(sandbox, 'GET', '/me', undefined, { accept: '*/*' })).status).toBe(406);
    expect(
      (await call(sandbox, 'GET', '/me', undefined, { accept: 'application/json; charset=utf-8' })).status,
    ).toBe(200);
  });

  it('answers 400 for an unknown, other or missing Intercom-Version', async () => {
    for (const version of ['3.0', '2.14', null]) {
      const answer = await call(sandbox, 'GET', '/me', undefined, { 'intercom-version': version });
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].code).toBe('intercom_version_invalid');
    }
  });

  it('gives the admin and the app id code, with rate-limit headers', async () => {
    const answer = await call(sandbox, 'GET', '/me');
    expect(answer.body).toMatchObject({
      type: 'admin',
      id: sandbox.state.me.id,
      app: { id_code: 'sandbox_app' },
    });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('1666');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('1665');
    expect(answer.headers.get('x-ratelimit-reset')).toBe(String(clock / 1000 + 10));
  });
});

describe('contacts', () => {
  it('refuses a duplicate external id with 409 naming the existing contact, archived or not', async () => {
    const created = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'u1' });
    expect(created.body).toMatchObject({ type: 'contact', role: 'user', external_id: 'u1' });
    expect(created.body.id).toMatch(/^[0-9a-f]{24}$/);
    const { id } = created.body;

    const duplicate = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'u1' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toEqual({
      code: 'conflict',
      message: `A contact matching those details already exists with id=${id}`,
    });

    expect((await call(sandbox, 'POST', `/contacts/${id}/archive`)).body).toMatchObject({
      id,
      archived: true,
    });
    expect((await call(sandbox, 'GET', '/contacts/find_by_external_id/u1')).status).toBe(404);
    const archived = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'u1' });
    expect(archived.body.errors[0].message).toBe(
      `An archived contact matching those details already exists with id=${id}`,
    );

    expect((await call(sandbox, 'POST', `/contacts/${id}/unarchive`)).body).toEqual({
      type: 'contact',
      id,
      external_id: 'u1',
      archived: false,
    });
    expect((await call(sandbox, 'GET', '/contacts/find_by_external_id/u1')).body.id).toBe(id);
  });

  it('keeps a new contact out of search until the index catches up', async () => {
    sandbox.operator.setSearchLag(60_000);
    await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'late' });
    expect((await search('/contacts/search', 'external_id', 'late')).body).toMatchObject({
      data: [],
      total_count: 0,
    });
    expect((await call(sandbox, 'GET', '/contacts/find_by_external_id/late')).status).toBe(200);
    clock += 60_000;
    const found = await search('/contacts/search', 'external_id', 'late');
    expect(found.body.data.map((contact) => contact.external_id)).toEqual(['late']);
  });

  it('tags a contact and adds notes as HTML', async () => {
    const contact = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'u2' });
    const tag = await call(sandbox, 'POST', '/tags', { name: 'complaint' });
    expect((await call(sandbox, 'POST', '/tags', { name: 'complaint' })).body.id).toBe(tag.body.id);
    const tagged = await call(sandbox, 'POST', `/contacts/${contact.body.id}/tags`, { id: tag.body.id });
    expect(tagged.body).toMatchObject({ type: 'tag', id: tag.body.id, name: 'complaint' });
    const note = await call(sandbox, 'POST', `/contacts/${contact.body.id}/notes`, {
      body: 'Rated 2 <stars>',
      admin_id: sandbox.state.me.id,
    });
    expect(note.body).toMatchObject({
      type: 'note',
      body: '<p>Rated 2 &lt;stars&gt;</p>',
      author: { type: 'admin' },
    });
    expect((await call(sandbox, 'POST', `/contacts/${contact.body.id}/tags`, { id: '1' })).status).toBe(404);
  });

  it('keeps custom attributes a contact update sets, shows them, and clears one set to null', async () => {
    const contact = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'u3' });
    const path = `/contacts/${contact.body.id}`;
    const first = await call(sandbox, 'PUT', path, {
      custom_attributes: { app_version: '4.2.0', os_version: 'iOS 17.4' },
    });
    expect(first.status).toBe(200);
    expect(first.body.custom_attributes).toEqual({ app_version: '4.2.0', os_version: 'iOS 17.4' });
    await call(sandbox, 'PUT', path, { custom_attributes: { os_version: null, device_lang: 'en' } });
    const found = await call(sandbox, 'GET', '/contacts/find_by_external_id/u3');
    expect(found.body.custom_attributes).toEqual({ app_version: '4.2.0', device_lang: 'en' });
    expect((await call(sandbox, 'PUT', path, { custom_attributes: 'x' })).status).toBe(400);
    expect((await call(sandbox, 'PUT', '/contacts/0123456789abcdef01234567', {})).status).toBe(404);
  });

  it('deletes a contact with its conversations, tickets and notes; a second delete is 404', async () => {
    const { contactId, conversationId } = await contactWithConversation(sandbox, 'u4');
    const other = await contactWithConversation(sandbox, 'u5');
    const ticket = await sandbox.operator.createTicket({ contactId, title: 'Refund' });
    await call(sandbox, 'POST', `/contacts/${contactId}/notes`, { body: 'Called back' });

    const deleted = await call(sandbox, 'DELETE', `/contacts/${contactId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ type: 'contact', id: contactId, external_id: 'u4', deleted: true });
    expect((await call(sandbox, 'GET', '/contacts/find_by_external_id/u4')).status).toBe(404);
    expect((await search('/contacts/search', 'external_id', 'u4')).body.data).toEqual([]);
    expect((await call(sandbox, 'GET', `/conversations/${conversationId}`)).status).toBe(404);
    expect((await call(sandbox, 'GET', `/tickets/${ticket.id}`)).status).toBe(404);
    expect((await search('/conversations/search', 'contact_ids', contactId)).body.conversations).toEqual([]);
    expect([...sandbox.state.notes.values()].filter((note) => note.contactId === contactId)).toEqual([]);
    const again = await call(sandbox, 'DELETE', `/contacts/${contactId}`);
    expect(again.status).toBe(404);
    expect(again.body.errors[0].code).toBe('not_found');
    // Another contact's records stay.
    expect((await call(sandbox, 'GET', `/conversations/${other.conversationId}`)).status).toBe(200);
  });
});

describe('conversations', () => {
  it('creates from a user, answers a message object and keeps the first message as source', async () => {
    const { contactId, conversationId } = await contactWithConversation(
      sandbox,
      'c1',
      'My card <is> blocked',
    );
    const conversation = await call(sandbox, 'GET', `/conversations/${conversationId}`);
    expect(conversation.body).toMatchObject({
      id: conversationId,
      state: 'open',
      open: true,
      created_at: clock / 1000,
      source: { body: '<p>My card &lt;is&gt; blocked</p>', author: { type: 'user', id: contactId } },
      contacts: { contacts: [{ id: contactId, external_id: 'c1' }] },
      conversation_parts: { conversation_parts: [], total_count: 0 },
    });
  });

  it('refuses more than 10 attachment URLs and an unknown contact', async () => {
    const contact = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 'c2' });
    const urls = Array.from({ length: 11 }, (_, index) => `https://files.example/${index}.png`);
    const from = { type: 'user', id: contact.body.id };
    const tooMany = await call(sandbox, 'POST', '/conversations', { from, body: 'x', attachment_urls: urls });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].code).toBe('parameter_invalid');
    const unknown = await call(sandbox, 'POST', '/conversations', {
      from: { type: 'user', id: 'f'.repeat(24) },
      body: 'x',
    });
    expect(unknown.status).toBe(404);
  });

  it('reopens a closed conversation on a user reply, with attachments', async () => {
    const { contactId, conversationId } = await contactWithConversation(sandbox, 'c3');
    await sandbox.operator.close(conversationId);
    expect((await call(sandbox, 'GET', `/conversations/${conversationId}`)).body).toMatchObject({
      state: 'closed',
      open: false,
    });
    const reply = await call(sandbox, 'POST', `/conversations/${conversationId}/reply`, {
      message_type: 'comment',
      type: 'user',
      intercom_user_id: contactId,
      body: 'Still broken',
      attachment_urls: ['https://files.example/shot%201.png'],
    });
    expect(reply.body.state).toBe('open');
    const parts = reply.body.conversation_parts.conversation_parts;
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({
      part_type: 'comment',
      body: '<p>Still broken</p>',
      state: 'open',
      author: { type: 'user', id: contactId },
      attachments: [
        { name: 'shot 1.png', content_type: 'image/png', url: 'https://files.example/shot%201.png' },
      ],
    });
  });

  it('shows a snoozed conversation as state snoozed with open true', async () => {
    const { conversationId } = await contactWithConversation(sandbox, 'c4');
    await sandbox.operator.snooze(conversationId, { until: clock / 1000 + 3600 });
    const snoozed = await call(sandbox, 'GET', `/conversations/${conversationId}`);
    expect(snoozed.body).toMatchObject({ state: 'snoozed', open: true, snoozed_until: clock / 1000 + 3600 });
    await sandbox.operator.open(conversationId);
    const parts = (await call(sandbox, 'GET', `/conversations/${conversationId}`)).body.conversation_parts
      .conversation_parts;
    expect(parts.map((part) => part.part_type)).toEqual(['snoozed', 'unsnoozed']);
  });

  it('returns notes as parts of type note, with the replies a user may see', async () => {
    const { conversationId } = await contactWithConversation(sandbox, 'c5');
    await sandbox.operator.reply(conversationId, { body: '<p>We are on it</p>' });
    const note = await call(sandbox, 'POST', `/conversations/${conversationId}/reply`, {
      message_type: 'note',
      type: 'admin',
      admin_id: sandbox.state.me.id,
      body: 'CSAT: 4 stars',
    });
    expect(note.body.conversation_parts.conversation_parts[0]).toMatchObject({
      part_type: 'note',
      author: { type: 'admin' },
    });
    const parts = (await call(sandbox, 'GET', `/conversations/${conversationId}`)).body.conversation_parts
      .conversation_parts;
    expect(parts.map((part) => [part.part_type, part.body])).toEqual([
      ['comment', '<p>We are on it</p>'],
      ['note', '<p>CSAT: 4 stars</p>'],
    ]);
    const unknownAdmin = { message_type: 'note', type: 'admin', admin_id: '1', body: 'x' };
    expect((await call(sandbox, 'POST', `/conversations/${conversationId}/reply`, unknownAdmin)).status).toBe(
      404,
    );
  });

  it('marks read and tags a conversation', async () => {
    const { conversationId } = await contactWithConversation(sandbox, 'c6');
    expect((await call(sandbox, 'PUT', `/conversations/${conversationId}`, { read: true })).body.read).toBe(
      true,
    );
    const tag = await call(sandbox, 'POST', '/tags', { name: 'csat-1' });
    const tagged = await call(sandbox, 'POST', `/conversations/${conversationId}/tags`, {
      id: tag.body.id,
      admin_id: sandbox.state.me.id,
    });
    expect(tagged.body).toMatchObject({
      id: tag.body.id,
      applied_by: { type: 'admin', id: sandbox.state.me.id },
    });
    const conversation = await call(sandbox, 'GET', `/conversations/${conversationId}`);
    expect(conversation.body.tags.tags).toMatchObject([{ name: 'csat-1' }]);
  });

  it('pages a contact conversations with starting_after in the body', async () => {
    const { contactId, conversationId: first } = await contactWithConversation(sandbox, 'c7');
    const created = [first];
    for (let index = 0; index < 4; index += 1) {
      const message = await call(sandbox, 'POST', '/conversations', {
        from: { type: 'user', id: contactId },
        body: `#${index}`,
      });
      created.push(message.body.conversation_id);
    }
    await contactWithConversation(sandbox, 'someone-else');
    const seen: string[] = [];
    let startingAfter: string | undefined;
    for (let page = 1; page <= 3; page += 1) {
      const answer = await search('/conversations/search', 'contact_ids', contactId, {
        per_page: 2,
        ...(startingAfter ? { starting_after: startingAfter } : {}),
      });
      expect(answer.body).toMatchObject({
        type: 'conversation.list',
        total_count: 5,
        pages: { page, per_page: 2, total_pages: 3 },
      });
      seen.push(...answer.body.conversations.map((conversation) => conversation.id));
      startingAfter = answer.body.pages.next?.starting_after;
    }
    expect(startingAfter).toBeUndefined();
    expect(seen).toEqual(created);
    const bad = await search('/conversations/search', 'contact_ids', contactId, {
      starting_after: 'garbage',
    });
    expect(bad.status).toBe(400);
  });
});

describe('tickets', () => {
  it('lists a contact tickets and shows state, external label and parts', async () => {
    const contact = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: 't1' });
    const contactId = contact.body.id;
    const { id } = await sandbox.operator.createTicket({ contactId, title: 'Refund' });
    await sandbox.operator.setTicketState(id, {
      state: 'waiting_on_customer',
      externalLabel: 'Waiting for your receipt',
    });
    await sandbox.operator.replyToTicket(id, { body: 'Please send the receipt' });
    await sandbox.operator.resolveTicket(id);

    const listed = await search('/tickets/search', 'contact_ids', contactId);
    expect(listed.body).toMatchObject({ type: 'ticket.list', total_count: 1, tickets: [{ id }] });
    const ticket = await call(sandbox, 'GET', `/tickets/${id}`);
    expect(ticket.body).toMatchObject({
      id,
      open: false,
      ticket_attributes: { _default_title_: 'Refund' },
      ticket_state: { category: 'resolved', external_label: 'Resolved' },
    });
    const parts = ticket.body.ticket_parts.ticket_parts.map((part) => [
      part.part_type,
      part.ticket_state ?? part.body,
    ]);
    expect(parts).toEqual([
      ['ticket_state_updated_by_admin', 'submitted'],
      ['ticket_state_updated_by_admin', 'waiting_on_customer'],
      ['comment', '<p>Please send the receipt</p>'],
      ['ticket_state_updated_by_admin', 'resolved'],
    ]);
    expect((await call(sandbox, 'GET', '/tickets/999999')).status).toBe(404);
  });
});
