import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IntercomSandbox } from '../../../../src/integrations/intercom/sandbox/index.ts';
import { call, contactWithConversation, startSandbox } from './harness.ts';

// The sandbox kept in a file (decision 035): what one sandbox wrote, the next one started on the file has,
// ids continue after the old ones, and a file it cannot read is moved aside rather than stopping the start.

let dir: string;
let file: string;
const open: IntercomSandbox[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-records-'));
  file = join(dir, 'intercom-sandbox.json');
});
afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

/** A log line as pino writes it. */
type Line = Record<string, unknown>;

/** A pino logger, as the service gives the sandbox, whose lines land in `lines`. */
function capturingLogger(lines: Line[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(text) as Line);
      }
      done();
    },
  });
  return pino({ level: 'info' }, stream);
}

async function start(saveDelayMs = 250, lines: Line[] = []): Promise<IntercomSandbox> {
  const logger = capturingLogger(lines);
  const sandbox = await startSandbox({ recordsFile: file, saveDelayMs, logger });
  open.push(sandbox);
  return sandbox;
}

async function stop(sandbox: IntercomSandbox): Promise<void> {
  open.splice(open.indexOf(sandbox), 1);
  await sandbox.close();
}

describe('the sandbox kept in a file', () => {
  it('a second sandbox on the file has the records of the first, and ids continue after them', async () => {
    const first = await start();
    const { contactId, conversationId } = await contactWithConversation(first, 'ann', 'My card is blocked');
    await first.operator.reply(conversationId, { body: 'Unblocked it' });
    await first.operator.note(conversationId, { body: 'Checked with the bank' });
    await first.operator.close(conversationId);
    const tag = await call(first, 'POST', '/tags', { name: 'vip' });
    await call(first, 'POST', `/conversations/${conversationId}/tags`, {
      id: tag.body.id,
      admin_id: first.state.operator.id,
    });
    const ticket = await first.operator.createTicket({ contactId, title: 'New card' });
    await first.operator.setTicketState(ticket.id, { state: 'in_progress', externalLabel: 'Printing' });
    await first.operator.replyToTicket(ticket.id, { body: 'It is on its way' });
    await call(first, 'POST', `/contacts/${contactId}/notes`, { body: 'Prefers email' });
    const before = await call(first, 'GET', `/conversations/${conversationId}`);
    const ticketBefore = await call(first, 'GET', `/tickets/${ticket.id}`);
    const counters = first.state.counters();
    await stop(first);

    const second = await start();
    expect(second.state.counters()).toEqual(counters);
    // The same answers, field for field, from the restarted sandbox.
    expect((await call(second, 'GET', `/conversations/${conversationId}`)).body).toEqual(before.body);
    expect((await call(second, 'GET', `/tickets/${ticket.id}`)).body).toEqual(ticketBefore.body);
    expect((await call(second, 'GET', '/contacts/find_by_external_id/ann')).body.id).toBe(contactId);
    const search = await call(second, 'POST', '/conversations/search', {
      query: { field: 'contact_ids', operator: '=', value: contactId },
    });
    expect(search.body.conversations.map((c) => c.id)).toEqual([conversationId]);
    // A duplicate is still a duplicate: the 409 names the stored contact.
    const again = await call(second, 'POST', '/contacts', { role: 'user', external_id: 'ann' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].message).toContain(contactId);

    // New records get ids after every stored one, and the next ticket number.
    const next = await call(second, 'POST', '/conversations', {
      from: { type: 'user', id: contactId },
      body: 'Another thing',
    });
    expect(Number(next.body.conversation_id)).toBeGreaterThan(counters.lastId);
    const nextTicket = await second.operator.createTicket({ contactId, title: 'Second card' });
    expect(Number(nextTicket.id)).toBeGreaterThan(Number(next.body.conversation_id));
    expect(second.state.tickets.get(nextTicket.id)?.ticketNumber).toBe(String(counters.lastTicketNumber + 1));
  });

  it('a deleted contact stays deleted, with its conversations and tickets, in the next sandbox', async () => {
    const first = await start();
    const { contactId, conversationId } = await contactWithConversation(first, 'del', 'Erase me');
    const kept = await contactWithConversation(first, 'kept', 'Keep me');
    const ticket = await first.operator.createTicket({ contactId, title: 'Old order' });
    expect((await call(first, 'DELETE', `/contacts/${contactId}`)).status).toBe(200);
    await stop(first);

    expect(await readFile(file, 'utf8')).not.toContain('Erase me');
    const second = await start();
    expect(second.state.contacts.has(contactId)).toBe(false);
    expect(second.state.conversations.has(conversationId)).toBe(false);
    expect(second.state.tickets.has(ticket.id)).toBe(false);
    expect((await call(second, 'DELETE', `/contacts/${contactId}`)).status).toBe(404);
    expect(second.state.conversations.has(kept.conversationId)).toBe(true);
  });

  it('loads a file with more ids than a call stack holds, and counts on after the largest', async () => {
    const first = await start();
    const { conversationId } = await contactWithConversation(first, 'bea', 'A long chat');
    await first.operator.reply(conversationId, { body: 'Part one' });
    await stop(first);
    const stored = JSON.parse(await readFile(file, 'utf8')) as {
      conversations: { id: string; parts: { id: string }[] }[];
    };
    const conversation = stored.conversations.find((c) => c.id === conversationId);
    const part = conversation?.parts[0];
    if (!conversation || !part) throw new Error('no stored part');
    const base = 5_000_000;
    for (let i = 1; i <= 150_000; i++) conversation.parts.push({ ...part, id: String(base + i) });
    await writeFile(file, JSON.stringify(stored));

    const second = await start();
    expect(second.state.conversations.get(conversationId)?.parts.length).toBe(150_001);
    expect(second.state.counters().lastId).toBe(base + 150_000);
  });

  it('saves once per delay while changes come in, atomically, and the last changes on close', async () => {
    const sandbox = await start(150);
    const { conversationId } = await contactWithConversation(sandbox, 'bea');
    for (let i = 0; i < 5; i += 1) await sandbox.operator.reply(conversationId, { body: `reply ${i}` });
    // Not yet: the first change started the wait.
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await sleep(400);
    const saved = JSON.parse(await readFile(file, 'utf8')) as {
      format: number;
      conversations: { id: string; parts: unknown[] }[];
    };
    expect(saved.format).toBe(1);
    expect(saved.conversations.find((c) => c.id === conversationId)?.parts).toHaveLength(5);
    // Only the file itself: every temporary file was renamed over it.
    expect(await readdir(dir)).toEqual(['intercom-sandbox.json']);

    await sandbox.operator.close(conversationId);
    await stop(sandbox);
    const reopened = await start();
    expect(reopened.state.conversations.get(conversationId)?.state).toBe('closed');
  });

  it('moves a file it cannot read aside, says so without its content, and starts empty', async () => {
    const first = await start();
    await contactWithConversation(first, 'cid', 'A secret message');
    await stop(first);
    const valid = await readFile(file, 'utf8');

    const broken = [
      ['not JSON', valid.slice(0, -40)],
      ['not the stored shape', JSON.stringify({ ...JSON.parse(valid), conversations: [{ id: 7 }] })],
      ['not the stored shape', JSON.stringify({ ...JSON.parse(valid), format: 2 })],
    ] as const;
    for (const [reason, text] of broken) {
      await writeFile(file, text);
      const lines: Line[] = [];
      const sandbox = await start(250, lines);
      expect(sandbox.state.contacts.size, reason).toBe(0);
      expect(sandbox.state.conversations.size).toBe(0);
      // One warning (pino's level 40), naming the file and why, never what it holds.
      expect(lines).toHaveLength(1);
      const [warning] = lines;
      expect(warning).toMatchObject({ level: 40, file });
      expect(String(warning?.['reason'])).toContain(reason);
      expect(JSON.stringify(lines)).not.toContain('A secret message');
      const movedTo = String(warning?.['movedTo']);
      expect(movedTo).toMatch(/intercom-sandbox\.json\.corrupt-\d{4}-\d\d-\d\dT/);
      // The broken file is kept as it was, for a look; the sandbox's file is gone until it saves.
      expect(await readFile(movedTo, 'utf8')).toBe(text);
      await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
      // It works, and saves afresh.
      await contactWithConversation(sandbox, 'dee');
      await stop(sandbox);
      const saved = JSON.parse(await readFile(file, 'utf8')) as { contacts: unknown[] };
      expect(saved.contacts).toHaveLength(1);
      await rm(movedTo);
    }
  });

  it('without a file, nothing is written', async () => {
    const sandbox = await startSandbox();
    await contactWithConversation(sandbox, 'eve');
    await sandbox.close();
    expect(await readdir(dir)).toEqual([]);
  });
});
