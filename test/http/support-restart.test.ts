import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SANDBOX_RECORDS_FILE } from '../../src/wiring/support.ts';
import { type RunningApp, startApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';

// Issue 25, "a sandbox that remembers": the service restarted on the same database and DATA_DIR shows the
// same chat history, because the sandbox standing in for Intercom keeps its records there (decision 035).

let db: TestDatabase;
let dataDir: string;
let running: RunningApp | null = null;

const start = async (): Promise<RunningApp> => {
  running = await startApp({ db, env: { ENABLE_DEVTOOLS: '1' }, support: { dataDir } });
  return running;
};
const stop = async (): Promise<void> => {
  await running?.close();
  running = null;
};
const api = clientApi(() => {
  if (!running) throw new Error('the service is not running');
  return running.url;
});

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'support-restart-'));
});
afterAll(async () => {
  await stop();
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const sent = z.object({ conversationId: z.string() });
// Loose: every field the routes answer is compared across the restart, not only the ones named here.
const list = z.looseObject({ items: z.array(z.looseObject({ id: z.string(), state: z.string() })) });
const thread = z.looseObject({
  id: z.string(),
  state: z.string(),
  messages: z.array(z.object({ id: z.string(), author: z.object({ type: z.string() }), body: z.string() })),
});
const ticket = z.looseObject({
  id: z.string(),
  title: z.string(),
  state: z.string(),
  parts: z.array(z.object({ id: z.string(), body: z.string().nullable() })),
});
const tickets = z.looseObject({ items: z.array(z.looseObject({ id: z.string() })) });
const operatorAction = z.object({ partId: z.string(), notificationId: z.string() });

/** Everything the user sees of their support chat and tickets, as the client API serves it. */
async function history(user: string) {
  const conversations = list.parse((await api.get(user, '/conversations')).json);
  const threads = await Promise.all(
    conversations.items.map(async (c) => thread.parse((await api.get(user, `/conversations/${c.id}`)).json)),
  );
  const ticketList = tickets.parse((await api.get(user, '/tickets')).json);
  const ticketViews = await Promise.all(
    ticketList.items.map(async (t) => ticket.parse((await api.get(user, `/tickets/${t.id}`)).json)),
  );
  return { conversations, threads, tickets: ticketList, ticketViews };
}

describe('the service restarted on the same DATA_DIR', () => {
  let conversationId = '';
  let ticketId = '';
  let before: Awaited<ReturnType<typeof history>> | null = null;

  it('shows the same conversations, messages and tickets after a restart', async () => {
    await start();
    const opened = await api.post('rue', '/conversations', { text: 'My parcel is lost' });
    expect(opened.status).toBe(201);
    ({ conversationId } = sent.parse(opened.json));
    const replied = await api.post('rue', '/devtools/operator-reply', {
      conversationId,
      text: 'We are looking for it',
    });
    expect(replied.status).toBe(202);
    const created = await api.post('rue', '/devtools/tickets', { title: 'Lost parcel 7' });
    expect(created.status).toBe(201);
    ({ ticketId } = z.object({ ticketId: z.string() }).parse(created.json));
    const answered = await api.post('rue', `/devtools/tickets/${ticketId}/reply`, { text: 'Found it' });
    operatorAction.parse(answered.json);
    const closed = await api.post('rue', `/devtools/conversations/${conversationId}/close`, {});
    expect(closed.status).toBe(202);
    // Every webhook processed: the service's cache has caught up with the sandbox.
    before = await eventually(
      () => history('rue'),
      // The list is read before the threads: both must have heard the close.
      (h) =>
        h.conversations.items[0]?.state === 'closed' &&
        h.threads[0]?.state === 'closed' &&
        h.threads[0].messages.length === 2 &&
        h.ticketViews[0]?.parts.some((part) => part.body === '<p>Found it</p>') === true,
    );
    expect(before.conversations.items).toEqual([
      expect.objectContaining({ id: conversationId, state: 'closed' }),
    ]);
    expect(before.threads[0]?.messages.map((m) => [m.author.type, m.body])).toEqual([
      ['user', '<p>My parcel is lost</p>'],
      ['operator', '<p>We are looking for it</p>'],
    ]);
    expect(before.ticketViews[0]).toMatchObject({ id: ticketId, title: 'Lost parcel 7', state: 'submitted' });
    await stop();
    expect(await readdir(dataDir)).toEqual([SANDBOX_RECORDS_FILE]);

    const again = await start();
    // A new sandbox process (another port), the same records; the service's cache starts empty and fills
    // from it on demand.
    expect(requireSandbox(again.support.sandbox).state.conversations.has(conversationId)).toBe(true);
    expect(await history('rue')).toEqual(before);
    // The contact mapping is used as it is: no contact was made again.
    expect(requireSandbox(again.support.sandbox).state.contacts.size).toBe(1);
  });

  it('continues ids after the old ones, and the history goes on', async () => {
    const app = running ?? (await start());
    const lastId = requireSandbox(app.support.sandbox).state.counters().lastId;
    const opened = await api.post('rue', '/conversations', { text: 'And another thing' });
    expect(opened.status).toBe(201);
    const next = sent.parse(opened.json).conversationId;
    // The user's request goes on in their conversation or opens a new one: either way no id is reused.
    expect(next === conversationId || Number(next) > lastId, `${next} after ${lastId}`).toBe(true);
    const reply = await api.post('rue', '/devtools/operator-reply', { conversationId: next, text: 'Yes?' });
    expect(reply.status).toBe(202);
    const parts = requireSandbox(app.support.sandbox).state.conversations.get(next)?.parts ?? [];
    expect(Number(parts.at(-1)?.id)).toBeGreaterThan(lastId);
    await stop();
    await start();
    const after = await eventually(
      () => history('rue'),
      (h) => h.threads.some((t) => t.messages.some((m) => m.body === '<p>Yes?</p>')),
    );
    expect(after.ticketViews).toEqual(before?.ticketViews);
  });

  it('moves a corrupt records file aside, warns, and starts with an empty sandbox', async () => {
    await stop();
    const file = join(dataDir, SANDBOX_RECORDS_FILE);
    await writeFile(file, '{"format":1,"conversations":[{"id":');
    const app = await start();
    const moved = (await readdir(dataDir)).filter((name) =>
      name.startsWith(`${SANDBOX_RECORDS_FILE}.corrupt-`),
    );
    expect(moved).toHaveLength(1);
    expect(requireSandbox(app.support.sandbox).state.conversations.size).toBe(0);
    const warning = app.logs.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line['movedTo'] !== undefined);
    expect(warning).toMatchObject({ level: 40, file, reason: 'not JSON' });
    // The service works on: the user's old contact is gone, so their next request makes a new one.
    const opened = await api.post('rue', '/conversations', { text: 'Hello again' });
    expect(opened.status).toBe(201);
    const fresh = await eventually(
      () => history('rue'),
      (h) => h.threads.length === 1,
    );
    expect(fresh.threads[0]?.messages.map((m) => m.body)).toEqual(['<p>Hello again</p>']);
    expect(fresh.tickets.items).toEqual([]);
  });
});
