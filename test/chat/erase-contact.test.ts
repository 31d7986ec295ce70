import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contactMapping } from '../../src/chat/contacts.ts';
import { eraseContact, type EraseContactDeps, supportExportNotice } from '../../src/chat/erase-contact.ts';
import type { NotificationRecord } from '../../src/chat/notifications.ts';
import { markProcessed, storeNotification } from '../../src/chat/processed-events.ts';
import { createSupportCache, type SupportCache } from '../../src/chat/support-cache.ts';
import { supportReads } from '../../src/chat/support-reads.ts';
import { contactOfUser, saveContactTelemetry } from '../../src/chat/user-contacts.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { createChangeFeed } from '../../src/projections/changes.ts';
import { useTestDatabase } from '../support/database.ts';

// The support side of erasing a user, over loopback HTTP against the sandbox and on a real database.

const db = useTestDatabase();
const logger = createLogger('silent');
let sandbox: IntercomSandbox;
let cache: SupportCache;
const client = () =>
  createIntercomClient({ baseUrl: sandbox.url, accessToken: 'token', logger, retryInitialDelayMs: 1 });

beforeAll(async () => {
  sandbox = await startIntercomSandbox({ accessToken: 'token', clientSecret: 'secret' });
  cache = await createSupportCache({ intercom: client(), logger, ttlMs: 60_000 });
});
afterAll(async () => {
  await cache.close();
  await sandbox.close();
});

/** The service's support parts as the erasure job gets them, on one process's change feed. */
function services() {
  const stamps = createChangeFeed({ logger });
  const intercom = client();
  const reads = supportReads(db.pool, stamps);
  const contacts = contactMapping(db.pool, intercom, stamps);
  const deps: EraseContactDeps = { pool: db.pool, intercom, contacts, reads, cache };
  return { deps, intercom, reads, contacts };
}

/** A user who wrote to support, read their conversation, saw a ticket and has telemetry on the contact. */
async function supportUser(userId: string) {
  const { intercom, reads, contacts } = services();
  const contactId = await contacts.contactFor(userId);
  const { conversation_id: conversationId } = await intercom.createConversation({
    contactId,
    body: `help for ${userId}`,
  });
  const ticket = await sandbox.operator.createTicket({ contactId, title: 'Refund' });
  await reads.markConversationRead(userId, conversationId, { id: '1', createdAt: new Date().toISOString() });
  await reads.markTicketSeen(userId, ticket.id, new Date().toISOString());
  await saveContactTelemetry(db.pool, userId, contactId, 'digest');
  return { contactId, conversationId, ticketId: ticket.id };
}

/** What this service keeps of a user's support side. */
async function storedOf(userId: string) {
  const n = sql.type(z.object({ n: z.number() }));
  return {
    mapping: await db.pool.maybeOne(
      sql.type(z.object({ contact_id: z.string(), telemetry_digest: z.string().nullable() }))`
        SELECT contact_id, telemetry_digest FROM user_contacts WHERE user_id = ${userId}`,
    ),
    conversationReads: await db.pool.oneFirst(n`
      SELECT count(*)::int AS n FROM conversation_reads WHERE user_id = ${userId}`),
    ticketReads: await db.pool.oneFirst(n`
      SELECT count(*)::int AS n FROM ticket_reads WHERE user_id = ${userId}`),
  };
}

const inboxRows = (contactId: string) =>
  db.pool.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT notification_id AS id FROM processed_events
    WHERE notification -> 'contactIds' ? ${contactId} OR notification ->> 'contactId' = ${contactId}
    ORDER BY notification_id`);

function notification(id: string, contactIds: string[]): NotificationRecord {
  return {
    notificationId: id,
    topic: 'conversation.admin.replied',
    createdAt: 1_700_000_000,
    conversation: { id: `c-${id}`, createdAt: 1_700_000_000 },
    ticket: null,
    contactId: null,
    contactIds,
    parts: [],
  };
}

describe('eraseContact', () => {
  it('deletes the contact at Intercom, then the mapping, read markers and inbox rows; others stay', async () => {
    const ann = await supportUser('erase-ann');
    const bob = await supportUser('erase-bob');
    await storeNotification(db.pool, notification('n-ann-done', [ann.contactId]));
    await markProcessed(db.pool, 'n-ann-done');
    await storeNotification(db.pool, notification('n-ann-pending', [ann.contactId]));
    await storeNotification(db.pool, notification('n-shared-pending', [ann.contactId, bob.contactId]));
    await storeNotification(db.pool, notification('n-bob', [bob.contactId]));
    const bobBefore = await storedOf('erase-bob');

    const { deps, reads } = services();
    expect((await reads.markers('erase-ann')).size).toBe(1);
    expect(await eraseContact(deps, 'erase-ann')).toEqual({ contactId: ann.contactId, provider: 'deleted' });

    expect(sandbox.state.contacts.has(ann.contactId)).toBe(false);
    expect(sandbox.state.conversations.has(ann.conversationId)).toBe(false);
    expect(sandbox.state.tickets.has(ann.ticketId)).toBe(false);
    expect(await storedOf('erase-ann')).toEqual({ mapping: null, conversationReads: 0, ticketReads: 0 });
    // The markers this process held in memory are gone too.
    expect((await reads.markers('erase-ann')).size).toBe(0);
    expect((await reads.seen('erase-ann')).size).toBe(0);
    // A pending row that also names Bob stays for his effects.
    expect(await inboxRows(ann.contactId)).toEqual(['n-shared-pending']);

    expect(await storedOf('erase-bob')).toEqual(bobBefore);
    expect(bobBefore.mapping).toEqual({ contact_id: bob.contactId, telemetry_digest: 'digest' });
    expect(sandbox.state.conversations.has(bob.conversationId)).toBe(true);
    expect(await inboxRows(bob.contactId)).toEqual(['n-bob', 'n-shared-pending']);
  });

  it('run again, finds nothing and succeeds', async () => {
    const cat = await supportUser('erase-cat');
    const { deps } = services();
    expect((await eraseContact(deps, 'erase-cat')).provider).toBe('deleted');
    expect(await eraseContact(deps, 'erase-cat')).toEqual({ contactId: null, provider: 'none' });
    expect(sandbox.state.contacts.has(cat.contactId)).toBe(false);
  });

  it('forgets the mapping to a contact Intercom deleted already (absent)', async () => {
    const dan = await supportUser('erase-dan');
    sandbox.operator.deleteContact(dan.contactId);
    expect(await eraseContact(services().deps, 'erase-dan')).toEqual({
      contactId: dan.contactId,
      provider: 'absent',
    });
    expect((await storedOf('erase-dan')).mapping).toBeNull();
  });

  it('finds by external id a contact whose mapping was never saved, and deletes it', async () => {
    const orphan = await client().createContact('erase-eve');
    expect(await contactOfUser(db.pool, 'erase-eve')).toBeNull();
    expect(await eraseContact(services().deps, 'erase-eve')).toEqual({
      contactId: orphan.id,
      provider: 'deleted',
    });
    expect(sandbox.state.contacts.has(orphan.id)).toBe(false);
  });

  it('throws when Intercom fails, and forgets nothing: the retry finds the contact id and finishes', async () => {
    const fay = await supportUser('erase-fay');
    const before = await storedOf('erase-fay');
    sandbox.operator.failNext(1, { status: 503, method: 'DELETE' });
    await expect(eraseContact(services().deps, 'erase-fay')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await storedOf('erase-fay')).toEqual(before);
    expect(before.mapping?.contact_id).toBe(fay.contactId);
    expect(sandbox.state.contacts.has(fay.contactId)).toBe(true);

    expect((await eraseContact(services().deps, 'erase-fay')).provider).toBe('deleted');
    expect((await storedOf('erase-fay')).mapping).toBeNull();
  });

  it('drops the cached reads, so not even an outage answers them again', async () => {
    const gus = await supportUser('erase-gus');
    expect((await cache.conversation(gus.conversationId)).value.found).toBe(true);
    expect((await cache.conversations(gus.contactId)).value.items).toHaveLength(1);
    await eraseContact(services().deps, 'erase-gus');
    sandbox.operator.failFor(60_000, { status: 503 });
    try {
      await expect(cache.conversation(gus.conversationId)).rejects.toMatchObject({ kind: 'unavailable' });
      await expect(cache.conversations(gus.contactId)).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      sandbox.operator.clearFaults();
    }
  });

  it('a user with no contact anywhere: nothing to delete, and no error', async () => {
    expect(await eraseContact(services().deps, 'erase-nobody')).toEqual({
      contactId: null,
      provider: 'none',
    });
  });
});

describe('supportExportNotice', () => {
  it('names the contact and says a workspace admin exports and deletes it in Intercom', () => {
    const text = supportExportNotice('user-1', '0123456789abcdef01234567');
    expect(text).toContain('"0123456789abcdef01234567"');
    expect(text).toContain('"user-1"');
    expect(text).toMatch(/admin of our Intercom workspace exports/);
    expect(text).toMatch(/deletes them there/);
    expect(supportExportNotice('user-2', null)).toMatch(/No Intercom contact is recorded/);
  });
});
