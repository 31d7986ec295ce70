import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contactOfUser, saveUserContact } from '../../src/chat/user-contacts.ts';
import { submitComplaint } from '../../src/commands/complaints.ts';
import { complaintCodec, complaintStream, type ComplaintSubmittedData } from '../../src/events/complaints.ts';
import { reached, type RecordedEvent } from '../../src/events/envelope.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient, type IntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { readProcessorCheckpoint } from '../../src/processors/checkpoints.ts';
import { complaintNotesProcessor, type ComplaintNotesPort } from '../../src/processors/complaint-notes.ts';
import type { ProcessorContext } from '../../src/processors/processor.ts';
import { type ProcessorRunner, startProcessorRunner } from '../../src/processors/runner.ts';
import { useTestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { replicaLocks } from '../support/replica.ts';
import type { LeaderLocks } from '../../src/db/leader-lock.ts';

const db = useTestDatabase();
const silent = createLogger('silent');
const TOKEN = 'sandbox-token';
const TEXT = 'complaint-text-91c4: the operator shared my address';
const reason = { id: randomUUID(), title: 'Privacy <concern> & "leak"' };

let sandbox: IntercomSandbox;
let intercom: IntercomClient;
let port: ComplaintNotesPort;

beforeAll(async () => {
  sandbox = await startIntercomSandbox({ accessToken: TOKEN, clientSecret: 'secret' });
  intercom = createIntercomClient({ baseUrl: sandbox.url, accessToken: TOKEN, logger: silent });
  // What the wiring fills the port with: the contact mapping's table and the Intercom client.
  port = {
    contactOf: (userId) => contactOfUser(db.pool, userId),
    noteOnContact: (contactId, body) => intercom.addContactNote(contactId, body),
  };
});
afterAll(async () => {
  await sandbox.close();
});

/** A user with a contact at the sandbox, mapped in `user_contacts` as the chat would have mapped them. */
async function userWithContact(): Promise<{ userId: string; contactId: string }> {
  const userId = `user-${randomUUID()}`;
  const contact = await intercom.createContact(userId);
  await saveUserContact(db.pool, userId, contact.id);
  return { userId, contactId: contact.id };
}

const notesOf = (contactId: string) =>
  [...sandbox.state.notes.values()].filter((note) => note.contactId === contactId);
const noteCalls = (contactId: string) =>
  sandbox.calls.filter((c) => c.method === 'POST' && c.path === `/contacts/${contactId}/notes`);

const submission = (userId: string, extra: Partial<ComplaintSubmittedData> = {}): ComplaintSubmittedData => ({
  userId,
  reason,
  text: TEXT,
  attachments: [],
  at: new Date().toISOString(),
  ...extra,
});

/** A submitted complaint as the runner would hand it over, without the store. */
function recorded(complaintId: string, data: ComplaintSubmittedData): RecordedEvent {
  return {
    id: randomUUID(),
    type: 'complaintSubmitted',
    data,
    metadata: {
      actor: { type: 'user', id: data.userId },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: data.at,
      schemaVersion: complaintCodec.schemaVersion('complaintSubmitted'),
    },
    streamName: complaintStream(complaintId),
    streamRevision: 0n,
    position: { commit: 1n, prepare: 1n },
    recordedAt: new Date(),
  };
}

const context = (event: RecordedEvent): ProcessorContext => ({
  idempotencyKey: event.id,
  attempt: 1,
  maxAttempts: 1,
  logger: silent,
  signal: new AbortController().signal,
});

describe('the complaint note, processed directly', () => {
  it("notes the reason's title, the targets and the complaint's id on the user's contact, never the text", async () => {
    const { userId, contactId } = await userWithContact();
    const complaintId = randomUUID();
    const event = recorded(complaintId, submission(userId, { conversationId: '215', ticketId: '77' }));
    await complaintNotesProcessor(port).process(event, context(event));

    const notes = notesOf(contactId);
    expect(notes).toHaveLength(1);
    const body = notes[0]?.body ?? '';
    // Escaped: an admin's title never becomes markup in the team's inbox.
    expect(body).toContain('Privacy &lt;concern&gt; &amp; &quot;leak&quot;');
    expect(body).toContain('conversation 215 and ticket 77');
    expect(body).toContain(complaintId);
    expect(body).not.toContain('complaint-text-91c4');
  });

  it('writes nothing for a user without a contact, and does not make one', async () => {
    const userId = `user-${randomUUID()}`;
    const event = recorded(randomUUID(), submission(userId));
    const calls = sandbox.calls.length;
    await complaintNotesProcessor(port).process(event, context(event));
    expect(sandbox.calls.length).toBe(calls);
    expect(await contactOfUser(db.pool, userId)).toBeNull();
  });

  it('writes nothing for a complaint whose user was erased (its text reads as null)', async () => {
    const { userId, contactId } = await userWithContact();
    const event = recorded(randomUUID(), submission(userId, { text: null }));
    const calls = sandbox.calls.length;
    await complaintNotesProcessor(port).process(event, context(event));
    expect(sandbox.calls.length).toBe(calls);
    expect(notesOf(contactId)).toHaveLength(0);
  });

  it('gives up at once on a contact the provider no longer knows (a refusal no retry changes)', async () => {
    const { userId, contactId } = await userWithContact();
    sandbox.state.contacts.delete(contactId); // deleted at Intercom, still in user_contacts
    const event = recorded(randomUUID(), submission(userId));
    await expect(complaintNotesProcessor(port).process(event, context(event))).rejects.toMatchObject({
      name: 'ProcessorError',
      permanent: true,
      message: expect.stringMatching(
        /complaint note not written: Intercom POST \/contacts\/\{id\}\/notes: not_found/,
      ) as string,
    });
  });

  it('lets the runner back off on an outage (the error is retried, not permanent)', async () => {
    const { userId, contactId } = await userWithContact();
    sandbox.operator.failNext(1, { status: 503, method: 'POST', pathPrefix: `/contacts/${contactId}/notes` });
    const event = recorded(randomUUID(), submission(userId));
    const error: unknown = await complaintNotesProcessor(port)
      .process(event, context(event))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'unavailable' });
    expect(notesOf(contactId)).toHaveLength(0);
  });
});

describe('the complaint notes processor under its runner', () => {
  let store: EventStore;
  let runner: ProcessorRunner;
  const processor = () => ({ ...complaintNotesProcessor(port), startFrom: 'beginning' as const });

  let locks: LeaderLocks;
  beforeAll(() => {
    locks = replicaLocks(db.url, 50);
    store = createPostgresEventStore({ connectionString: db.url, logger: silent, recheckIntervalMs: 50 });
    runner = startProcessorRunner({
      pool: db.pool,
      store,
      locks,
      processors: [processor()],
      logger: silent,
      errorBackoffMs: 20,
      retry: { maxAttempts: 8, baseDelayMs: 50, maxDelayMs: 200 },
    });
  });
  afterAll(async () => {
    await runner.stop();
    await locks.close();
    await store.close();
  });

  const file = async (userId: string, extra: Partial<ComplaintSubmittedData> = {}) => {
    const commandId = randomUUID();
    const context = { actor: { type: 'user' as const, id: userId }, commandId, correlationId: commandId };
    const { complaintId, position } = await submitComplaint(
      store,
      { type: 'submit', ...submission(userId, extra) },
      context,
    );
    return { complaintId, position };
  };
  const deadLetters = () =>
    db.pool.any(sql.type(z.object({ attempts: z.number(), last_error: z.string() }))`
      SELECT attempts, last_error FROM processor_dead_letters WHERE processor = 'complaint-notes'`);

  it('writes the note once a complaint is filed', async () => {
    const { userId, contactId } = await userWithContact();
    const { complaintId, position } = await file(userId, { conversationId: '9' });
    const notes = await eventually(
      async () => notesOf(contactId),
      (found) => found.length > 0,
    );
    expect(notes.map((n) => n.body)).toEqual([expect.stringContaining(complaintId)]);
    await eventually(
      () => readProcessorCheckpoint(db.pool, 'complaint-notes'),
      (at) => position !== null && reached(at ?? null, position),
    );
  });

  it('retries through a provider outage and writes the note exactly once when it ends', async () => {
    const { userId, contactId } = await userWithContact();
    // Every note call fails for a while: each attempt of the runner meets the outage until it passes.
    sandbox.operator.failFor(250, { status: 503, method: 'POST', pathPrefix: '/contacts/' });
    const { complaintId } = await file(userId);
    const notes = await eventually(
      async () => notesOf(contactId),
      (found) => found.length > 0,
      // Four refusals at most fit in the outage, under the breaker's five; if it opened anyway, its
      // half-open wait (10 s) is what the runner waits.
      15_000,
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]?.body).toContain(complaintId);
    // At least one refused attempt before the one that landed, and nothing after it.
    expect(noteCalls(contactId).length).toBeGreaterThanOrEqual(2);
    expect(await deadLetters()).toEqual([]);
    // A later complaint is noted too: the outage held it back, it did not lose it.
    const next = await file(userId);
    await eventually(
      async () => notesOf(contactId),
      (found) => found.some((n) => n.body.includes(next.complaintId)),
    );
    expect(notesOf(contactId)).toHaveLength(2);
  });

  it('dead-letters a complaint whose contact is gone, at once, with no text in the record, and goes on', async () => {
    const gone = await userWithContact();
    sandbox.state.contacts.delete(gone.contactId);
    await file(gone.userId);
    const letters = await eventually(deadLetters, (rows) => rows.length > 0);
    expect(letters).toEqual([{ attempts: 1, last_error: expect.stringContaining('not_found') as string }]);
    expect(letters[0]?.last_error).not.toContain('complaint-text-91c4');

    const { userId, contactId } = await userWithContact();
    const { complaintId } = await file(userId);
    await eventually(
      async () => notesOf(contactId),
      (found) => found.some((n) => n.body.includes(complaintId)),
    );
  });
});
