import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { sql } from 'slonik';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type RateCommand, rate } from '../../src/commands/csat.ts';
import { CSAT_CATEGORY, type CsatTarget, csatStream } from '../../src/events/csat.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient, type IntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { readProcessorCheckpoint } from '../../src/processors/checkpoints.ts';
import { csatNotesProcessor } from '../../src/processors/csat-notes.ts';
import { type ProcessorRunner, startProcessorRunner } from '../../src/processors/runner.ts';
import { intercomCsatNotes } from '../../src/wiring/provider-notes.ts';
import { useTestDatabase } from '../support/database.ts';
import { replicaLocks } from '../support/replica.ts';

const TOKEN = 'csat-notes-token';
const COMMENT = 'The agent was slow-9f31c';
const eventually = { timeout: 15_000, interval: 20 };
const db = useTestDatabase();
const silent = createLogger('silent');
let store: EventStore;
let sandbox: IntercomSandbox;
let intercom: IntercomClient;
let contactId = '';
const running: ProcessorRunner[] = [];

beforeAll(async () => {
  store = createPostgresEventStore({ connectionString: db.url, logger: silent, recheckIntervalMs: 50 });
  sandbox = await startIntercomSandbox({ accessToken: TOKEN, clientSecret: 'csat-notes-secret' });
  // Short waits, and a breaker that lets a probe through soon, so an outage of a second ends in a second.
  intercom = createIntercomClient({
    baseUrl: sandbox.url,
    accessToken: TOKEN,
    logger: silent,
    maxWaitMs: 200,
    retryInitialDelayMs: 10,
    retryMaxDelayMs: 20,
    breakerHalfOpenAfterMs: 100,
  });
  contactId = (await intercom.createContact('csat-notes-user')).id;
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((runner) => runner.stop()));
  sandbox.operator.clearFaults();
});
afterAll(async () => {
  await store.close();
  await sandbox.close();
});

const start = (registry = new Registry()) => {
  const locks = replicaLocks(db.url, 50);
  const runner = startProcessorRunner({
    pool: db.pool,
    store,
    locks,
    processors: [csatNotesProcessor(intercomCsatNotes(() => intercom))],
    logger: silent,
    registry,
    errorBackoffMs: 20,
    // At least 1.85 s of waits before the last attempt: longer than the outage of the third test.
    retry: { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 500 },
  });
  running.push({
    ...runner,
    stop: async () => {
      await runner.stop();
      await locks.close();
    },
  });
  return runner;
};

const openConversation = async () =>
  (await intercom.createConversation({ contactId, body: 'Help, please' })).conversation_id;
const openTicket = async () => (await sandbox.operator.createTicket({ contactId, title: 'Refund' })).id;

/** Rates through the command itself, as POST /api/csat does once the target is found closed. */
const rateTarget = (target: CsatTarget, rating: number) => {
  const command: RateCommand = {
    ratingId: randomUUID(),
    userId: 'csat-notes-user',
    targetType: target.type,
    targetId: target.id,
    rating,
    comment: COMMENT,
    at: new Date().toISOString(),
    targetEnded: true,
  };
  const context = { actor: { type: 'user', id: 'u' }, commandId: randomUUID(), correlationId: 'c' } as const;
  return rate(store, command, context);
};
const eventIdOf = async (target: CsatTarget) => (await store.readStream(csatStream(target)))[0]?.id ?? '';

const partsOf = (target: CsatTarget) =>
  target.type === 'conversation'
    ? (sandbox.state.conversations.get(target.id)?.parts ?? [])
    : (sandbox.state.tickets.get(target.id)?.parts ?? []);
const notesOn = (target: CsatTarget) =>
  partsOf(target)
    .filter((part) => part.partType === 'note')
    .map((part) => part.body ?? '');
const tagsOn = (target: CsatTarget) => {
  const record =
    target.type === 'conversation'
      ? sandbox.state.conversations.get(target.id)
      : sandbox.state.tickets.get(target.id);
  return (record?.tags ?? []).map((applied) => sandbox.state.tags.get(applied.tagId)?.name);
};
const metric = async (registry: Registry, name: string) =>
  ((await registry.getSingleMetric(name)?.get())?.values ?? []).find(
    (v) => v.labels.processor === 'csat-notes',
  )?.value;

describe('the CSAT note processor, against the Intercom sandbox', () => {
  it('notes the stars on the rated conversation and ticket and tags them csat-<n>, without the comment', async () => {
    const conversation: CsatTarget = { type: 'conversation', id: await openConversation() };
    const ticket: CsatTarget = { type: 'ticket', id: await openTicket() };
    await rateTarget(conversation, 4);
    await rateTarget(ticket, 2);
    start();

    await vi.waitFor(() => {
      expect(tagsOn(conversation)).toEqual(['csat-4']);
      expect(tagsOn(ticket)).toEqual(['csat-2']);
    }, eventually);
    expect(notesOn(conversation)).toEqual([`<p>CSAT 4/5 (ref ${await eventIdOf(conversation)})</p>`]);
    expect(notesOn(ticket)).toEqual([`<p>CSAT 2/5 (ref ${await eventIdOf(ticket)})</p>`]);
    // Notes are for teammates: the user's views of both stay as they were.
    expect(partsOf(conversation).map((p) => p.partType)).toEqual(['note']);
    const provider = [...sandbox.state.conversations.values(), ...sandbox.state.tickets.values()];
    expect(JSON.stringify(provider)).not.toContain(COMMENT);
  });

  it('writes one note however often an event is delivered (at least once), and tags once', async () => {
    const conversation: CsatTarget = { type: 'conversation', id: await openConversation() };
    await rateTarget(conversation, 5);
    const [recorded] = await store.readStream(csatStream(conversation));
    if (!recorded) throw new Error('no rating recorded');
    const processor = csatNotesProcessor(intercomCsatNotes(() => intercom));
    const context = {
      idempotencyKey: recorded.id,
      attempt: 1,
      maxAttempts: 1,
      logger: silent,
      signal: new AbortController().signal,
    };
    // A crash after the note landed, a takeover, a retry whose first answer was lost: the same event again.
    for (let delivery = 0; delivery < 3; delivery += 1) await processor.process(recorded, context);
    expect(notesOn(conversation)).toHaveLength(1);
    expect(tagsOn(conversation)).toEqual(['csat-5']);
  });

  it("notes an erased user's rating like any other: its comment, null once erased, was never in the note", async () => {
    const conversation: CsatTarget = { type: 'conversation', id: await openConversation() };
    await rateTarget(conversation, 2);
    const [stored] = await store.readStream(csatStream(conversation));
    if (!stored) throw new Error('no rating recorded');
    // What the sealing store hands over once the user's key is gone.
    const erased = { ...stored, data: { ...(stored.data as Record<string, unknown>), comment: null } };
    const context = {
      idempotencyKey: erased.id,
      attempt: 1,
      maxAttempts: 1,
      logger: silent,
      signal: new AbortController().signal,
    };
    await csatNotesProcessor(intercomCsatNotes(() => intercom)).process(erased, context);
    expect(notesOn(conversation)).toEqual([`<p>CSAT 2/5 (ref ${erased.id})</p>`]);
    expect(tagsOn(conversation)).toEqual(['csat-2']);
  });

  it('rides out a provider outage: the rating is recorded at once, the note follows after retries', async () => {
    const registry = new Registry();
    start(registry);
    const conversation: CsatTarget = { type: 'conversation', id: await openConversation() };
    sandbox.operator.failFor(1_000, { status: 503 });
    // Recording the rating never waits for the provider.
    const recorded = await rateTarget(conversation, 3);
    expect(recorded.created).toBe(true);
    expect(notesOn(conversation)).toEqual([]);

    await vi.waitFor(() => {
      expect(tagsOn(conversation)).toEqual(['csat-3']);
    }, eventually);
    expect(notesOn(conversation)).toHaveLength(1);
    expect(await metric(registry, 'processor_attempt_failures_total')).toBeGreaterThan(0);
    expect(await metric(registry, 'processor_dead_letters')).toBe(0);
    const checkpoint = await readProcessorCheckpoint(db.pool, 'csat-notes');
    const [last] = await store.readStream(csatStream(conversation));
    expect(checkpoint).toEqual(last?.position);
  });

  it('dead-letters a rating whose provider stays down, with no comment in the letter, and goes on', async () => {
    const registry = new Registry();
    const down: CsatTarget = { type: 'conversation', id: await openConversation() };
    const after: CsatTarget = { type: 'ticket', id: await openTicket() };
    sandbox.operator.failFor(60_000, { status: 503, pathPrefix: `/conversations/${down.id}` });
    await rateTarget(down, 1);
    await rateTarget(after, 5);
    start(registry);

    await vi.waitFor(() => {
      expect(tagsOn(after)).toEqual(['csat-5']);
    }, 30_000);
    expect(notesOn(down)).toEqual([]);
    const letters = await db.pool.any(sql.type(z.object({ event_id: z.string(), last_error: z.string() }))`
      SELECT event_id, last_error FROM processor_dead_letters WHERE processor = 'csat-notes'`);
    expect(letters.map((l) => l.event_id)).toEqual([await eventIdOf(down)]);
    expect(JSON.stringify(letters)).not.toContain(COMMENT);
    expect(await metric(registry, 'processor_dead_letters')).toBe(1);
  }, 40_000);

  it('dead-letters at once a rating of a target the provider no longer has', async () => {
    const gone: CsatTarget = { type: 'ticket', id: '404404404' };
    const after: CsatTarget = { type: 'conversation', id: await openConversation() };
    await rateTarget(gone, 3);
    await rateTarget(after, 3);
    start();
    await vi.waitFor(() => {
      expect(tagsOn(after)).toEqual(['csat-3']);
    }, eventually);
    const letter = await db.pool.one(sql.type(z.object({ attempts: z.number(), last_error: z.string() }))`
      SELECT attempts, last_error FROM processor_dead_letters WHERE event_id = ${await eventIdOf(gone)}`);
    expect(letter.attempts).toBe(1);
    expect(letter.last_error).toMatch(/^ProcessorError: csat note not written/);
  });

  it('follows the csat category only', () => {
    expect(csatNotesProcessor(intercomCsatNotes(() => intercom)).categories).toEqual([CSAT_CATEGORY]);
  });
});
