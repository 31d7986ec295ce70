import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SupportChange } from '../../src/chat/invalidation.ts';
import { saveUserContact } from '../../src/chat/user-contacts.ts';
import { createLogger } from '../../src/http/logger.ts';
import { errorsPlugin } from '../../src/http/plugins/errors.ts';
import { supportWebhookRoutes } from '../../src/http/routes/webhooks/support.ts';
import type { HttpServices } from '../../src/http/services.ts';
import { createIntercomClient } from '../../src/integrations/intercom/client.ts';
import {
  type IntercomSandbox,
  signWebhook,
  startIntercomSandbox,
} from '../../src/integrations/intercom/sandbox/index.ts';
import type { PushRequest } from '../../src/push/dispatcher.ts';
import { startSupportInbox } from '../../src/jobs/support-inbox.ts';
import { eventually } from '../support/eventually.ts';
import { databaseText } from '../support/database-text.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();
const SECRET = 'webhook-client-secret';

const logLines: string[] = [];
const logger = createLogger('debug', {
  write: (line: string) => {
    logLines.push(line);
  },
});

interface WebhookApp {
  readonly url: string;
  readonly wakes: () => number;
  close(): Promise<void>;
}

/** Just the errors plugin and the webhook plugin, plus a JSON route beside it that must still get JSON parsed. */
async function startWebhookApp(
  clientSecret: string | null,
  inbox: { wake(): void } = { wake: () => undefined },
): Promise<WebhookApp> {
  let wakes = 0;
  const loggerInstance: FastifyBaseLogger = logger;
  const typed = Fastify({ loggerInstance }).withTypeProvider<ZodTypeProvider>();
  typed.setValidatorCompiler(validatorCompiler);
  typed.setSerializerCompiler(serializerCompiler);
  await typed.register(errorsPlugin);
  typed.post('/elsewhere', async (request) => ({
    isBuffer: Buffer.isBuffer(request.body),
    body: request.body,
  }));
  // Only what the webhook route reads of the services the app would give it.
  const support = {
    webhookSecret: clientSecret,
    inbox: {
      wake() {
        wakes += 1;
        inbox.wake();
      },
    },
  };
  typed.decorate('services', { pool: db.pool, support } as unknown as HttpServices);
  await typed.register(supportWebhookRoutes);
  const url = await typed.listen({ host: '127.0.0.1', port: 0 });
  return { url, wakes: () => wakes, close: () => typed.close() };
}

const storedIds = () =>
  db.pool.anyFirst(sql.type(z.object({ notification_id: z.string() }))`
    SELECT notification_id FROM processed_events ORDER BY received_at`);

function notification(id = `notif_${String(Math.random()).slice(2)}`) {
  return JSON.stringify({
    type: 'notification_event',
    id,
    topic: 'conversation.admin.replied',
    app_id: 'app',
    created_at: 1_760_000_000,
    delivery_attempts: 1,
    first_sent_at: 1_760_000_000,
    data: {
      type: 'notification_event_data',
      item: {
        type: 'conversation',
        id: '123',
        created_at: 1_759_999_000,
        contacts: { type: 'contact.list', contacts: [{ type: 'contact', id: 'c-1' }] },
        conversation_parts: {
          type: 'conversation_part.list',
          conversation_parts: [
            {
              id: '9',
              part_type: 'comment',
              body: 'hello from the operator',
              created_at: 1_760_000_000,
              author: { type: 'admin', id: '1' },
            },
          ],
        },
      },
    },
  });
}

const post = (url: string, body: string, signature?: string, contentType = 'application/json') =>
  fetch(`${url}/webhooks/support`, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      ...(signature === undefined ? {} : { 'x-hub-signature': signature }),
    },
    body,
  });

describe('POST /webhooks/support: the signature', () => {
  beforeEach(async () => {
    await db.pool.query(sql.unsafe`TRUNCATE processed_events`);
    logLines.length = 0;
  });

  let app: WebhookApp;
  beforeAll(async () => {
    app = await startWebhookApp(SECRET);
  });
  afterAll(async () => {
    await app.close();
  });

  const body = notification();
  const good = signWebhook(body, SECRET);
  const hex = good.slice('sha1='.length);
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['of another secret', signWebhook(body, 'another-secret')],
    ['of another body', signWebhook(`${body} `, SECRET)],
    ['truncated', good.slice(0, -2)],
    ['one digit off', `sha1=${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`],
    ['without its prefix', hex],
    ['with another prefix', `sha256=${hex}`],
    ['too long', `${good}00`],
    ['not hex', `sha1=${'z'.repeat(40)}`],
  ])('%s: 401 unauthenticated, and nothing stored', async (_name, signature) => {
    const res = await post(app.url, body, signature);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(await storedIds()).toEqual([]);
    expect(app.wakes()).toBe(0);
  });

  it('refuses everything when no client secret is configured', async () => {
    const unconfigured = await startWebhookApp(null);
    try {
      for (const signature of [signWebhook(body, ''), good, undefined]) {
        expect((await post(unconfigured.url, body, signature)).status).toBe(401);
      }
      expect(await storedIds()).toEqual([]);
    } finally {
      await unconfigured.close();
    }
  });

  it('a good signature: 200 {} once stored; the same delivery twice is stored once', async () => {
    const id = 'notif_twice';
    const twice = notification(id);
    for (let i = 0; i < 2; i++) {
      const res = await post(app.url, twice, signWebhook(twice, SECRET));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
    }
    expect(await storedIds()).toEqual([id]);
    expect(app.wakes()).toBe(1);
    // Stored is the minimal record, never the body.
    expect(await databaseText(db.pool)).not.toContain('hello from the operator');
  });

  it('accepts an upper-case hex digest and a charset in the content type', async () => {
    const other = notification('notif_upper');
    const upper = `sha1=${signWebhook(other, SECRET).slice('sha1='.length).toUpperCase()}`;
    const res = await post(app.url, other, upper, 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
    expect(await storedIds()).toEqual(['notif_upper']);
  });

  it.each([
    ['not JSON', '{"type": "notification_event",'],
    ['JSON, but not a notification_event', JSON.stringify({ type: 'something_else', id: 'x' })],
    [
      'a notification_event without data',
      JSON.stringify({ type: 'notification_event', id: 'n', topic: 't', app_id: 'a', created_at: 1 }),
    ],
    ['an empty body', ''],
  ])('signed, but %s: 400 and nothing stored', async (_name, text) => {
    const res = await post(app.url, text, signWebhook(text, SECRET));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(await storedIds()).toEqual([]);
  });

  it.each([
    [
      'a NUL in a part body',
      'hello from the operator',
      'hello\u0000 secret operator text',
      'body.data.item.conversation_parts.conversation_parts.0.body',
    ],
    [
      'a lone surrogate in a part body',
      'hello from the operator',
      'secret operator text \ud800',
      'body.data.item.conversation_parts.conversation_parts.0.body',
    ],
    ['a NUL in the item id', '"id":"123"', '"id":"12\\u00003"', 'body.data.item.id'],
  ])(
    'signed, but with %s: 400 naming the field, nothing stored, only the id logged',
    async (_name, from, to, path) => {
      const id = `notif_text_${String(Math.random()).slice(2)}`;
      const original = notification(id);
      const text = from.startsWith('"')
        ? original.replace(from, to)
        : JSON.stringify(JSON.parse(original, (key, value: unknown) => (value === from ? to : value)));
      expect(text).not.toBe(original);
      const before = logLines.length;
      const res = await post(app.url, text, signWebhook(text, SECRET));
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ code: 'validation_failed', errors: [{ path }] });
      expect(await storedIds()).toEqual([]);
      const logged = logLines.slice(before).join('\n');
      expect(logged).toContain(id);
      expect(logged).not.toContain('secret operator text');
      expect(logged).not.toContain('c-1');
    },
  );

  it('accepts a body larger than the app-wide 1 MiB limit, up to 2 MiB', async () => {
    const large = JSON.stringify({
      ...(JSON.parse(notification('notif_large')) as object),
      padding: 'x'.repeat(1_500_000),
    });
    const res = await post(app.url, large, signWebhook(large, SECRET));
    expect(res.status).toBe(200);
    expect(await storedIds()).toEqual(['notif_large']);
  });

  it('refuses a body over 2 MiB with 413, and another content type with 415', async () => {
    const huge = JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024 + 10) });
    expect((await post(app.url, huge, signWebhook(huge, SECRET))).status).toBe(413);
    const text = notification();
    expect((await post(app.url, text, signWebhook(text, SECRET), 'text/plain')).status).toBe(415);
    expect(await storedIds()).toEqual([]);
  });

  it('HEAD answers 200', async () => {
    const res = await fetch(`${app.url}/webhooks/support`, { method: 'HEAD' });
    expect(res.status).toBe(200);
  });

  it('keeps its raw-body parser to itself: other routes still get JSON parsed', async () => {
    const res = await fetch(`${app.url}/elsewhere`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await res.json()).toEqual({ isBuffer: false, body: { a: 1 } });
  });

  it('never logs the signature or the body', async () => {
    const text = notification();
    await post(app.url, text, signWebhook(text, SECRET));
    const logged = logLines.join('\n');
    expect(logged).toContain('support webhook stored');
    expect(logged).not.toContain(signWebhook(text, SECRET).slice(5));
    expect(logged).not.toContain('hello from the operator');
  });
});

describe('deliveries from the Intercom sandbox', () => {
  const USER_BODY = 'My seed words are apple banana cherry';
  const OPERATOR_BODY = 'Please never share those, here is what to do';
  const CLOSING_BODY = 'Closing this now, take care';
  const TICKET_BODY = 'We refunded the order';

  let sandbox: IntercomSandbox;
  let app: WebhookApp;
  const changes: SupportChange[] = [];
  let inbox: ReturnType<typeof startSupportInbox>;
  const dispatched: PushRequest[] = [];

  beforeAll(async () => {
    inbox = startSupportInbox({
      pool: db.pool,
      logger,
      invalidator: {
        async invalidate(change) {
          changes.push(change);
        },
      },
      // The inbox's hand-off, recorded as it comes (the queue behind it is tested in test/jobs/push*.test.ts).
      dispatcher: {
        async dispatch(request) {
          dispatched.push(request);
        },
      },
      intervalMs: 100,
    });
    app = await startWebhookApp(SECRET, inbox);
    sandbox = await startIntercomSandbox({
      accessToken: 'sandbox-token',
      clientSecret: SECRET,
      webhookUrl: `${app.url}/webhooks/support`,
      webhookRetryDelayMs: 50,
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await app.close();
    await inbox.stop();
  });
  afterEach(() => {
    changes.length = 0;
  });

  const client = () =>
    createIntercomClient({
      baseUrl: sandbox.url,
      accessToken: 'sandbox-token',
      logger: createLogger('silent'),
    });

  const processed = (ids: readonly string[]) =>
    eventually(
      () =>
        db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
          SELECT count(*)::int AS n FROM processed_events
          WHERE notification_id = ANY (${sql.array([...ids], 'text')}) AND processed_at IS NOT NULL`),
      (done) => done === ids.length,
    );

  async function conversationOfUser(userId: string) {
    const contact = await client().createContact(userId);
    await saveUserContact(db.pool, userId, contact.id);
    const created = await client().createConversation({ contactId: contact.id, body: USER_BODY });
    return { contactId: contact.id, conversationId: created.conversation_id };
  }

  const pushes = async (userId: string) =>
    Promise.resolve(
      dispatched
        .filter((request) => request.userId === userId)
        .map((request) => ({
          source_id: request.sourceId,
          user_id: request.userId,
          category: request.category,
          conversation_id: request.conversationId ?? null,
          ticket_id: request.ticketId ?? null,
          csat: request.csat ?? false,
        })),
    );

  it('an operator reply arrives signed, is stored, invalidates the conversation and pushes the user once', async () => {
    const { contactId, conversationId } = await conversationOfUser('user-reply');
    const replied = await sandbox.operator.reply(conversationId, { body: OPERATOR_BODY });
    await sandbox.operator.webhooksIdle();
    // Intercom may deliver the same notification again.
    const again = await sandbox.operator.redeliver(replied.notificationId);
    expect(again.status).toBe(200);
    await processed([replied.notificationId]);

    expect(sandbox.operator.deliveries.every((d) => d.status === 200)).toBe(true);
    expect(await pushes('user-reply')).toEqual([
      {
        source_id: replied.notificationId,
        user_id: 'user-reply',
        category: 'chat',
        conversation_id: conversationId,
        ticket_id: null,
        csat: false,
      },
    ]);
    expect(changes).toContainEqual({ contactIds: [contactId], conversationId });
  });

  it('a close records the duration once; deliveries out of order are all processed', async () => {
    const { conversationId } = await conversationOfUser('user-close');
    sandbox.operator.holdWebhooks();
    const replied = await sandbox.operator.reply(conversationId, { body: OPERATOR_BODY });
    const closed = await sandbox.operator.close(conversationId, { body: CLOSING_BODY });
    await sandbox.operator.releaseWebhooks('reverse');
    await sandbox.operator.webhooksIdle();
    await sandbox.operator.redeliver(closed.notificationId);
    await processed([replied.notificationId, closed.notificationId]);

    const durations = await db.pool.anyFirst(sql.type(z.object({ conversation_id: z.string() }))`
      SELECT conversation_id FROM conversation_durations WHERE conversation_id = ${conversationId}`);
    expect(durations).toEqual([conversationId]);
    expect((await pushes('user-close')).map((p) => p.source_id)).toEqual([replied.notificationId]);
  });

  it('a resolved ticket pushes the CSAT prompt once', async () => {
    const contact = await client().createContact('user-ticket');
    await saveUserContact(db.pool, 'user-ticket', contact.id);
    const ticket = await sandbox.operator.createTicket({ contactId: contact.id, title: 'Refund' });
    await sandbox.operator.replyToTicket(ticket.id, { body: TICKET_BODY });
    await sandbox.operator.resolveTicket(ticket.id);
    await sandbox.operator.webhooksIdle();
    await processed(sandbox.operator.notifications.slice(-4).map((n) => n.id));

    expect((await pushes('user-ticket')).map((p) => [p.category, p.ticket_id, p.csat])).toEqual([
      ['ticket', ticket.id, false],
      ['ticket', ticket.id, true],
    ]);
  });

  // Last: it scans what every test of this block left behind.
  it('leaves no message body in any table or log line', async () => {
    const { conversationId } = await conversationOfUser('user-scan');
    await sandbox.operator.reply(conversationId, { body: OPERATOR_BODY });
    await sandbox.operator.note(conversationId, { body: 'internal note about the seed words' });
    await sandbox.operator.close(conversationId, { body: CLOSING_BODY });
    await sandbox.operator.webhooksIdle();
    await processed(sandbox.operator.notifications.map((n) => n.id));

    // The bodies did travel in the webhooks (plain text, as Intercom 2.15 sends them)...
    const sent = sandbox.operator.deliveries.map((d) => d.body).join('\n');
    for (const text of [USER_BODY, OPERATOR_BODY, CLOSING_BODY, 'internal note'])
      expect(sent).toContain(text);
    // ...and are kept nowhere.
    const stored = await databaseText(db.pool);
    const logged = logLines.join('\n');
    for (const text of [
      USER_BODY,
      OPERATOR_BODY,
      CLOSING_BODY,
      TICKET_BODY,
      'internal note',
      'apple banana',
    ]) {
      expect(stored).not.toContain(text);
      expect(logged).not.toContain(text);
    }
  });
});
