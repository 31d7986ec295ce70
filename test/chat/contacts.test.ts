import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactMapping } from '../../src/chat/contacts.ts';
import { contactOfUser } from '../../src/chat/user-contacts.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { createDatabasePool } from '../../src/db/pool.ts';
import { createChangeFeed } from '../../src/projections/changes.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';
import { startStatementCounter } from '../support/statement-counter.ts';
import { replicaChangeFeed } from '../support/replica.ts';

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
/** A change feed of one process, which hears no other. */
const stamps = () => createChangeFeed({ logger: createLogger('silent') });
const contactsOf = (externalId: string) =>
  [...sandbox.state.contacts.values()].filter((c) => c.externalId === externalId);

describe('user -> Intercom contact', () => {
  it('creates the contact on first use, stores it, and never asks Intercom again', async () => {
    const mapping = contactMapping(db.pool, client(), stamps());
    const id = await mapping.contactFor('ann');
    expect(contactsOf('ann').map((c) => c.id)).toEqual([id]);
    expect(await contactOfUser(db.pool, 'ann')).toBe(id);
    // Intercom down: the stored mapping still answers.
    sandbox.operator.failNext(10, { status: 503 });
    expect(await contactMapping(db.pool, client(), stamps()).contactFor('ann')).toBe(id);
    sandbox.operator.clearFaults();
  });

  it('finds a contact Intercom already has', async () => {
    const existing = await client().createContact('bob');
    expect(await contactMapping(db.pool, client(), stamps()).contactFor('bob')).toBe(existing.id);
    expect(contactsOf('bob')).toHaveLength(1);
  });

  it('unarchives an archived contact instead of creating another (the 409 names it)', async () => {
    const archived = await client().createContact('cat');
    sandbox.operator.archiveContact(archived.id);
    expect(await contactMapping(db.pool, client(), stamps()).contactFor('cat')).toBe(archived.id);
    expect(contactsOf('cat').map((c) => [c.id, c.archived])).toEqual([[archived.id, false]]);
  });

  it('creates one contact for concurrent first requests, in one process and across replicas', async () => {
    const here = contactMapping(db.pool, client(), stamps());
    const there = contactMapping(db.pool, client(), stamps());
    const ids = await Promise.all([
      ...Array.from({ length: 10 }, () => here.contactFor('dan')),
      ...Array.from({ length: 10 }, () => there.contactFor('dan')),
    ]);
    expect(new Set(ids).size).toBe(1);
    expect(contactsOf('dan')).toHaveLength(1);
  });

  it('remembers that a user has no contact, with no query per poll, until a replica maps one', async () => {
    const logger = createLogger('silent');
    const [feedHere, feedThere] = [replicaChangeFeed(db.url, logger), replicaChangeFeed(db.url, logger)];
    const counter = await startStatementCounter(db.url);
    const counted = await createDatabasePool(counter.url, { maximumPoolSize: 2 });
    try {
      await waitUntil(() => feedHere.listening() && feedThere.listening());
      const here = contactMapping(db.pool, client(), feedHere);
      const there = contactMapping(counted, client(), feedThere);
      expect(await there.knownContact('eve')).toBeNull();
      const afterFirst = counter.statements.length;
      for (let i = 0; i < 5; i += 1) expect(await there.knownContact('eve')).toBeNull();
      expect(counter.statements.slice(afterFirst)).toEqual([]);

      const id = await here.contactFor('eve');
      await waitUntil(async () => (await there.knownContact('eve')) === id);
    } finally {
      await counted.end();
      await counter.close();
      await Promise.all([feedHere.close(), feedThere.close()]);
    }
  });
});
