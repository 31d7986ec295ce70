import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/http/logger.ts';
import { createIntercomClient } from '../../../../src/integrations/intercom/client.ts';
import { ProviderError } from '../../../../src/integrations/intercom/errors.ts';
import {
  type IntercomSandbox,
  startIntercomSandbox,
} from '../../../../src/integrations/intercom/sandbox/index.ts';
import { sandboxCalls } from '../../../support/chat.ts';

// `deleteContact` over loopback HTTP against the sandbox: Intercom's DELETE /contacts/{id}.

let sandbox: IntercomSandbox;
beforeAll(async () => {
  sandbox = await startIntercomSandbox({ accessToken: 'token', clientSecret: 'secret' });
});
afterAll(async () => {
  await sandbox.close();
});

const client = () =>
  createIntercomClient({
    baseUrl: sandbox.url,
    accessToken: 'token',
    logger: createLogger('silent'),
    retryInitialDelayMs: 1,
  });

describe('deleteContact', () => {
  it('deletes the contact, which no read finds after; a second deletion answers absent', async () => {
    const intercom = client();
    const contact = await intercom.createContact('del-ann');
    const kept = await intercom.createContact('del-bob');

    expect(await intercom.deleteContact(contact.id)).toBe('deleted');
    expect(await intercom.findContactByExternalId('del-ann')).toBeNull();
    expect(await intercom.searchContactsByExternalId('del-ann')).toEqual([]);
    expect(sandbox.state.contacts.has(contact.id)).toBe(false);
    expect(await intercom.deleteContact(contact.id)).toBe('absent');
    // Another contact is untouched.
    expect((await intercom.findContactByExternalId('del-bob'))?.id).toBe(kept.id);
  });

  it('takes the contact conversations with it', async () => {
    const intercom = client();
    const contact = await intercom.createContact('del-cat');
    const { conversation_id: id } = await intercom.createConversation({ contactId: contact.id, body: 'hi' });
    expect(await intercom.deleteContact(contact.id)).toBe('deleted');
    expect((await intercom.searchConversationsByContact(contact.id)).items).toEqual([]);
    await expect(intercom.getConversation(id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('fails as unavailable on a 5xx, once (a write is not retried), and the contact stays', async () => {
    const intercom = client();
    const contact = await intercom.createContact('del-dan');
    const before = sandboxCalls(sandbox, 'DELETE', '/contacts/');
    sandbox.operator.failNext(1, { status: 503, method: 'DELETE' });
    const failed = await intercom.deleteContact(contact.id).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ProviderError);
    expect(failed).toMatchObject({ kind: 'unavailable', reason: 'server_error', status: 503 });
    expect(sandboxCalls(sandbox, 'DELETE', '/contacts/') - before).toBe(1);
    expect(sandbox.state.contacts.has(contact.id)).toBe(true);
    expect(await intercom.deleteContact(contact.id)).toBe('deleted');
  });
});
