import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SupportCacheInvalidator, SupportChange } from '../../src/chat/invalidation.ts';
import { notificationEventSchema, toNotificationRecord } from '../../src/chat/notifications.ts';
import { storeNotification } from '../../src/chat/processed-events.ts';
import { contactOfUser, saveUserContact } from '../../src/chat/user-contacts.ts';
import { createLogger } from '../../src/http/logger.ts';
import type { PushDispatcher, PushRequest } from '../../src/push/dispatcher.ts';
import {
  type SupportInbox,
  type SupportInboxOptions,
  startSupportInbox,
} from '../../src/jobs/support-inbox.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';

const db = useTestDatabase();

// Notifications in Intercom's shape (INTEGRATIONS.md), stored as the webhook route stores them.

const T0 = 1_760_000_000;
let sequence = 0;

function event(topic: string, item: Record<string, unknown>, createdAt = T0 + 100) {
  sequence += 1;
  return {
    type: 'notification_event',
    id: `notif_${String(sequence)}_${randomUUID()}`,
    topic,
    app_id: 'app_test',
    created_at: createdAt,
    delivery_attempts: 1,
    first_sent_at: createdAt,
    data: { type: 'notification_event_data', item },
  };
}

const conversation = (
  id: string,
  contactIds: readonly string[],
  parts: readonly Record<string, unknown>[] = [],
) => ({
  type: 'conversation',
  id,
  created_at: T0,
  state: 'open',
  contacts: { type: 'contact.list', contacts: contactIds.map((c) => ({ type: 'contact', id: c })) },
  conversation_parts: {
    type: 'conversation_part.list',
    conversation_parts: parts,
    total_count: parts.length,
  },
});

const part = (id: string, partType: string, createdAt: number, body: string | null = null) => ({
  type: 'conversation_part',
  id,
  part_type: partType,
  body,
  created_at: createdAt,
  author: { type: 'admin', id: '1', name: 'Op' },
});

const reply = (conversationId: string, contactId: string, body = 'an operator answer') =>
  event(
    'conversation.admin.replied',
    conversation(conversationId, [contactId], [part(randomUUID(), 'comment', T0 + 50, body)]),
  );

async function store(...events: ReturnType<typeof event>[]): Promise<boolean[]> {
  const stored: boolean[] = [];
  for (const e of events)
    stored.push(await storeNotification(db.pool, toNotificationRecord(notificationEventSchema.parse(e))));
  return stored;
}

function recordingInvalidator(): SupportCacheInvalidator & { readonly changes: SupportChange[] } {
  const changes: SupportChange[] = [];
  return {
    changes,
    async invalidate(change) {
      changes.push(change);
    },
  };
}

function recordingDispatcher(): PushDispatcher & { readonly requests: PushRequest[] } {
  const requests: PushRequest[] = [];
  return {
    requests,
    async dispatch(request) {
      requests.push(request);
    },
  };
}

const logLines: string[] = [];
const logger = createLogger('debug', {
  write: (line: string) => {
    logLines.push(line);
  },
});

const running: SupportInbox[] = [];
function start(options: Partial<SupportInboxOptions> = {}): SupportInbox {
  const inbox = startSupportInbox({
    pool: db.pool,
    logger,
    invalidator: recordingInvalidator(),
    dispatcher: recordingDispatcher(),
    retry: { baseDelayMs: 20, maxDelayMs: 50 },
    ...options,
  });
  running.push(inbox);
  return inbox;
}

const rowSchema = z.object({
  notification_id: z.string(),
  attempts: z.number(),
  processed: z.boolean(),
  failed: z.boolean(),
  last_error: z.string().nullable(),
});
const rows = () =>
  db.pool.any(sql.type(rowSchema)`
    SELECT notification_id, attempts, processed_at IS NOT NULL AS processed, failed_at IS NOT NULL AS failed, last_error
    FROM processed_events ORDER BY received_at`);
const pending = () =>
  db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM processed_events WHERE processed_at IS NULL AND failed_at IS NULL`);

const allDone = async () => (await pending()) === 0;

beforeEach(async () => {
  await db.pool.query(sql.unsafe`TRUNCATE processed_events, conversation_durations, push_log, user_contacts`);
  logLines.length = 0;
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((inbox) => inbox.stop()));
});

describe('the support inbox', () => {
  it('processes at its start what was stored while no worker ran (a crash after the 200), in received order', async () => {
    await saveUserContact(db.pool, 'user-a', 'contact-a');
    const events = [reply('c1', 'contact-a'), reply('c2', 'contact-unmapped'), reply('c3', 'contact-a')];
    await store(...events);
    expect(await pending()).toBe(3);

    const invalidator = recordingInvalidator();
    const dispatcher = recordingDispatcher();
    start({ invalidator, dispatcher, intervalMs: 60_000 });
    await waitUntil(allDone);

    expect(invalidator.changes.map((c) => c.conversationId)).toEqual(['c1', 'c2', 'c3']);
    // The unmapped contact is no user of ours: no push for it.
    expect(dispatcher.requests).toEqual([
      { sourceId: events[0]?.id, userId: 'user-a', category: 'chat', conversationId: 'c1' },
      { sourceId: events[2]?.id, userId: 'user-a', category: 'chat', conversationId: 'c3' },
    ]);
    expect((await rows()).map((r) => [r.processed, r.attempts, r.last_error])).toEqual([
      [true, 1, null],
      [true, 1, null],
      [true, 1, null],
    ]);
  });

  it('processes a new row at once on wake(), and without a wake on its next round', async () => {
    const invalidator = recordingInvalidator();
    const inbox = start({ invalidator, intervalMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store(reply('c-wake', 'x'));
    inbox.wake();
    await waitUntil(allDone, 2_000);
    expect(invalidator.changes.map((c) => c.conversationId)).toEqual(['c-wake']);

    // Another replica stored this one: no wake here, the interval finds it.
    const polling = recordingInvalidator();
    start({ invalidator: polling, intervalMs: 100 });
    await store(reply('c-poll', 'x'));
    await waitUntil(allDone, 2_000);
    expect([...invalidator.changes, ...polling.changes].map((c) => c.conversationId)).toEqual([
      'c-wake',
      'c-poll',
    ]);
  });

  it('does not lose a wake that comes while it is busy', async () => {
    const seen: string[] = [];
    const slow: SupportCacheInvalidator = {
      async invalidate(change) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        seen.push(change.conversationId ?? '');
      },
    };
    const inbox = start({ invalidator: slow, intervalMs: 60_000 });
    await store(reply('c-busy-1', 'x'));
    inbox.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store(reply('c-busy-2', 'x'));
    inbox.wake();
    await waitUntil(allDone, 2_000);
    expect(seen).toEqual(['c-busy-1', 'c-busy-2']);
  });

  it('stores a duplicate delivery once and processes it once', async () => {
    await saveUserContact(db.pool, 'user-d', 'contact-d');
    const once = reply('c-dup', 'contact-d');
    expect(await store(once, once)).toEqual([true, false]);
    const dispatcher = recordingDispatcher();
    const inbox = start({ dispatcher });
    await waitUntil(allDone);
    expect(await store(once)).toEqual([false]);
    inbox.wake();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(dispatcher.requests).toHaveLength(1);
    expect(await rows()).toHaveLength(1);
  });

  it('records a close once, however often and in whatever order it arrives', async () => {
    await saveUserContact(db.pool, 'user-o', 'contact-o');
    const close = event(
      'conversation.admin.closed',
      conversation('c-close', ['contact-o'], [part('p-close', 'close', T0 + 600)]),
      T0 + 601,
    );
    // The same close again under another notification id (a second subscription, a replay), and an
    // earlier reply delivered after the close.
    const closeAgain = { ...close, id: `${close.id}-again` };
    const earlierReply = reply('c-close', 'contact-o');
    const dispatcher = recordingDispatcher();
    const inbox = start({ dispatcher, intervalMs: 60_000 });
    await store(close, closeAgain, close, earlierReply);
    inbox.wake();
    await waitUntil(allDone);

    const durations = await db.pool.any(
      sql.type(
        z.object({ conversation_id: z.string(), duration_seconds: z.number(), notification_id: z.string() }),
      )`SELECT conversation_id, duration_seconds, notification_id FROM conversation_durations`,
    );
    expect(durations).toEqual([
      { conversation_id: 'c-close', duration_seconds: 600, notification_id: close.id },
    ]);
    expect(dispatcher.requests.map((r) => r.sourceId)).toEqual([earlierReply.id]);
  });

  it('retries a notification whose invalidation fails, with backoff, then processes it', async () => {
    let failures = 2;
    const changes: SupportChange[] = [];
    const flaky: SupportCacheInvalidator = {
      async invalidate(change) {
        if (failures > 0) {
          failures -= 1;
          throw Object.assign(new Error('redis says: the secret content'), { code: 'ECONNREFUSED' });
        }
        changes.push(change);
      },
    };
    await saveUserContact(db.pool, 'user-f', 'contact-f');
    const dispatcher = recordingDispatcher();
    const notification = reply('c-flaky', 'contact-f');
    await store(notification);
    start({ invalidator: flaky, dispatcher, intervalMs: 20 });
    await waitUntil(allDone);

    expect(await rows()).toEqual([
      { notification_id: notification.id, attempts: 3, processed: true, failed: false, last_error: null },
    ]);
    expect(changes).toHaveLength(1);
    // The push waits for the invalidation: it went out once, after the retries.
    expect(dispatcher.requests).toHaveLength(1);
    const warnings = logLines.filter((line) => line.includes('will retry'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"error":"Error:ECONNREFUSED"');
    expect(logLines.join('\n')).not.toContain('secret content');
  });

  it('gives up after the last attempt, leaves the row as failed with an error code, and goes on', async () => {
    const broken: PushDispatcher = {
      async dispatch() {
        throw new TypeError('push service refused the body "an operator answer"');
      },
    };
    await saveUserContact(db.pool, 'user-g', 'contact-g');
    const doomed = reply('c-doomed', 'contact-g', 'an operator answer');
    const fine = reply('c-fine', 'contact-without-user');
    await store(doomed, fine);
    start({ dispatcher: broken, retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 }, intervalMs: 20 });
    await waitUntil(async () => (await rows()).every((r) => r.processed || r.failed));

    expect(await rows()).toEqual([
      { notification_id: doomed.id, attempts: 3, processed: false, failed: true, last_error: 'TypeError' },
      { notification_id: fine.id, attempts: 1, processed: true, failed: false, last_error: null },
    ]);
    const errors = logLines.filter((line) => line.includes('failed for good'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0] ?? '{}')).toMatchObject({
      level: 50,
      notificationId: doomed.id,
      attempts: 3,
    });
    expect(logLines.join('\n')).not.toContain('an operator answer');

    // A failed row stays failed: a new worker leaves it alone.
    const later = recordingInvalidator();
    start({ invalidator: later, intervalMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(later.changes).toEqual([]);
  });

  it('processes each row once with two workers at once', async () => {
    await saveUserContact(db.pool, 'user-t', 'contact-t');
    const events = Array.from({ length: 60 }, (_, i) => reply(`c-${String(i)}`, 'contact-t'));
    await store(...events);
    const slow = (changes: SupportChange[]): SupportCacheInvalidator => ({
      async invalidate(change) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        changes.push(change);
      },
    });
    const first: SupportChange[] = [];
    const second: SupportChange[] = [];
    const dispatcher = recordingDispatcher();
    start({ invalidator: slow(first), dispatcher });
    start({ invalidator: slow(second), dispatcher });
    await waitUntil(allDone, 10_000);

    const all = [...first, ...second].map((c) => c.conversationId);
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    expect(new Set(dispatcher.requests.map((r) => r.sourceId)).size).toBe(60);
    expect(dispatcher.requests).toHaveLength(60);
  });

  it('stopped in the middle, leaves the rest to the next worker, and nothing is done twice', async () => {
    const events = Array.from({ length: 8 }, (_, i) => reply(`s-${String(i)}`, 'x'));
    await store(...events);
    const seen: string[] = [];
    const slow: SupportCacheInvalidator = {
      async invalidate(change) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen.push(change.conversationId ?? '');
      },
    };
    const first = start({ invalidator: slow });
    await waitUntil(() => seen.length >= 2);
    await first.stop();
    const leftAfterStop = await pending();
    expect(leftAfterStop).toBeGreaterThan(0);
    expect(leftAfterStop).toBe(8 - seen.length);

    start({ invalidator: slow });
    await waitUntil(allDone);
    expect(seen).toEqual(events.map((_, i) => `s-${String(i)}`));
  });

  it('forgets the mapping of a contact Intercom deleted', async () => {
    await saveUserContact(db.pool, 'user-del', 'contact-del');
    await saveUserContact(db.pool, 'user-keep', 'contact-keep');
    const invalidator = recordingInvalidator();
    await store(
      event('contact.deleted', {
        type: 'contact',
        id: 'contact-del',
        external_id: 'user-del',
        deleted: true,
      }),
    );
    start({ invalidator });
    await waitUntil(allDone);
    expect(await contactOfUser(db.pool, 'user-del')).toBeNull();
    expect(await contactOfUser(db.pool, 'user-keep')).toBe('contact-keep');
    expect(invalidator.changes).toEqual([{ contactIds: ['contact-del'] }]);
  });

  it('leaves an unreadable stored record as failed at once', async () => {
    await db.pool.query(sql.unsafe`
      INSERT INTO processed_events (notification_id, topic, notification)
      VALUES ('notif_old_shape', 'conversation.admin.replied', '{"shape":"old"}'::jsonb)`);
    const good = reply('c-after', 'x');
    await store(good);
    start();
    await waitUntil(async () => (await rows()).every((r) => r.processed || r.failed));
    expect((await rows()).map((r) => [r.notification_id, r.failed, r.last_error])).toEqual([
      ['notif_old_shape', true, 'invalid_record'],
      [good.id, false, null],
    ]);
  });
});
