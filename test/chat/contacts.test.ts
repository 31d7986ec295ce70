import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactMapping } from '../../src/chat/contacts.ts';
import { contactOfUser } from '../../src/chat/user-contacts.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();
let sandbox: IntercomSandbox;
beforeAll(async () => {
  sandbox = await startIntercomSandbox({ accessToken: 'sandbox-token', clientSecret: 'sandbox-secret' });
});
afterAll(async () => {
  await sandbox.close();
});

const client = () =>
  createIntercomClient({
    baseUrl: sandbox.url,
    accessToken: 'sandbox-token',
    logger: createLogger('silent'),
  });
const contactsOf = (externalId: string) =>
  [...sandbox.state.contacts.values()].filter((c) => c.externalId === externalId);

describe('user -> Intercom contact', () => {
  it('creates the contact on first use, stores it, and never asks Intercom again', async () => {
    const mapping = contactMapping(db.pool, client());
    const id = await mapping.contactFor('ann');
    expect(contactsOf('ann').map((c) => c.id)).toEqual([id]);
    expect(await contactOfUser(db.pool, 'ann')).toBe(id);
    // Intercom down: the stored mapping still answers.
    sandbox.operator.failNext(10, { status: 503 });
    expect(await contactMapping(db.pool, client()).contactFor('ann')).toBe(id);
    sandbox.operator.clearFaults();
  });

  it('finds a contact Intercom already has', async () => {
    const existing = await client().createContact('bob');
    expect(await contactMapping(db.pool, client()).contactFor('bob')).toBe(existing.id);
    expect(contactsOf('bob')).toHaveLength(1);
  });

  it('unarchives an archived contact instead of creating another (the 409 names it)', async () => {
    const archived = await client().createContact('cat');
    sandbox.operator.archiveContact(archived.id);
    expect(await contactMapping(db.pool, client()).contactFor('cat')).toBe(archived.id);
    expect(contactsOf('cat').map((c) => [c.id, c.archived])).toEqual([[archived.id, false]]);
  });

  it('creates one contact for concurrent first requests, in one process and across replicas', async () => {
    const here = contactMapping(db.pool, client());
    const there = contactMapping(db.pool, client());
    const ids = await Promise.all([
      ...Array.from({ length: 10 }, () => here.contactFor('dan')),
      ...Array.from({ length: 10 }, () => there.contactFor('dan')),
    ]);
    expect(new Set(ids).size).toBe(1);
    expect(contactsOf('dan')).toHaveLength(1);
  });
});
