import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type PushFakes, startPushFakes } from '../../src/dev/push-fakes/index.ts';
import { publishDuePosts } from '../../src/jobs/publish-scheduled.ts';
import { deviceKey } from '../../src/push/queues.ts';
import { createTestAdmin, loginToken, adminCall } from '../support/admin.ts';
import { type RunningApp, startApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually, waitUntil } from '../support/eventually.ts';
import { postThrough } from '../support/posts.ts';

// Push delivery end to end: the real firebase-admin and telegraf against the loopback fakes, the real
// queue (pg-boss) on the test database, pushes coming from webhooks, the schedule job and admin notices.

const WINDOW_MS = 1_500;
let fakes: PushFakes;
let db: TestDatabase;
let running: RunningApp;
const api = clientApi(() => running.url);

beforeAll(async () => {
  fakes = await startPushFakes({ fcm: { record: true } });
  db = await createTestDatabase();
  running = await startApp({
    db,
    env: {
      ...fakes.env,
      MESSENGER_BOT_USERNAME: 'HelpDeskBot',
      PUSH_ONLINE_WINDOW_MS: String(WINDOW_MS),
      MESSENGER_MESSAGES_PER_SECOND: '30',
      ENABLE_DEVTOOLS: '1',
    },
  });
});
afterAll(async () => {
  await running.close();
  await db.drop();
  await fakes.close();
});
beforeEach(() => {
  fakes.fcm.resetFailures();
  fakes.telegram.resetFailures();
});

const register = async (user: string, platform: 'mobile' | 'tma', token: string) => {
  const answer = await api.post(user, '/devices/register', { platform, token });
  expect(answer.status).toBe(200);
};
const toToken = (token: string) => fakes.fcm.received().filter((m) => m.token === token);
const toChat = (chatId: string) => fakes.telegram.received().filter((m) => m.chatId === chatId);
const deliveries = (sourceId: string) =>
  db.pool.any(sql.type(
    z.object({
      device_key: z.string(),
      outcome: z.string(),
      code: z.string().nullable(),
      attempts: z.number(),
    }),
  )`
    SELECT device_key, outcome, code, attempts FROM push_deliveries WHERE source_id = ${sourceId} ORDER BY device_key`);
const outcomeOf = async (sourceId: string, token: string) =>
  (await deliveries(sourceId)).find((d) => d.device_key === deviceKey(token))?.outcome;
const settled = (sourceId: string, count: number) =>
  waitUntil(async () => {
    const rows = await deliveries(sourceId);
    return rows.length === count && rows.every((r) => r.outcome !== 'queued');
  }, 15_000);
const chat = (sourceId: string, userId: string, conversationId: string) =>
  running.push.dispatcher.dispatch({ sourceId, userId, category: 'chat', conversationId });

describe('an operator reply through the webhook', () => {
  it('goes to every device of the user: FCM with the spec payload, Telegram with a button to the chat', async () => {
    await register('ann', 'mobile', 'ann-phone');
    await register('ann', 'tma', '5001');
    const sent = await api.post('ann', '/conversations', { text: 'my order is late' });
    const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
    const sandbox = requireSandbox(running.support.sandbox);
    await sandbox.operator.reply(conversationId, { body: 'Operator words nobody may quote' });

    const [mobile] = await eventually(
      () => Promise.resolve(toToken('ann-phone')),
      (m) => m.length === 1,
      10_000,
    );
    expect(mobile).toMatchObject({
      status: 200,
      notification: { title: 'New reply from support', body: 'Open the chat to read it.' },
      data: { type: 'chat', conversationId },
    });
    const [messenger] = await eventually(
      () => Promise.resolve(toChat('5001')),
      (m) => m.length === 1,
      10_000,
    );
    expect(messenger?.text).toBe('New reply from support\nOpen the chat to read it.');
    expect(messenger?.replyMarkup).toEqual({
      inline_keyboard: [
        [{ text: 'Open chat', url: `https://t.me/HelpDeskBot/app?startapp=chat_${conversationId}` }],
      ],
    });
  });
});

describe('who gets what', () => {
  it('a muted category sends nothing; the other categories still go', async () => {
    await register('mia', 'mobile', 'mia-phone');
    const muted = await api.call('mia', 'PUT', '/settings/notifications', { chatMessages: false });
    expect(muted.status).toBe(200);
    await chat('mute-1', 'mia', 'c-mia');
    await running.push.dispatcher.dispatch({
      sourceId: 'mute-2',
      userId: 'mia',
      category: 'ticket',
      ticketId: 't-mia',
      csat: true,
    });
    await settled('mute-1', 1);
    await settled('mute-2', 1);
    expect(await outcomeOf('mute-1', 'mia-phone')).toBe('muted');
    expect(await outcomeOf('mute-2', 'mia-phone')).toBe('sent');
    expect(toToken('mia-phone').map((m) => m.data)).toEqual([
      { type: 'ticket', ticketId: 't-mia', csat: 'true' },
    ]);
  });

  it('waits while the user polls: a poll after the reply delivered it, so no push goes', async () => {
    await register('pol', 'mobile', 'pol-phone');
    expect((await api.get('pol', '/unread')).status).toBe(200);
    await chat('online-1', 'pol', 'c-pol');
    await new Promise((r) => setTimeout(r, 200));
    expect((await api.get('pol', '/unread')).status).toBe(200);
    await settled('online-1', 1);
    expect(await outcomeOf('online-1', 'pol-phone')).toBe('online');
    expect(toToken('pol-phone')).toEqual([]);
  });

  it('sends once the user has gone: no poll within the window after the reply', async () => {
    await register('gon', 'mobile', 'gon-phone');
    expect((await api.get('gon', '/unread')).status).toBe(200);
    const at = Date.now();
    await chat('gone-1', 'gon', 'c-gon');
    await settled('gone-1', 1);
    expect(await outcomeOf('gone-1', 'gon-phone')).toBe('sent');
    // It waited for the window after the last poll before it went.
    expect(toToken('gon-phone')[0]?.at).toBeGreaterThanOrEqual(at + WINDOW_MS - 300);
  });

  it('one failing device does not hold back the others; a token FCM no longer knows is removed by an event', async () => {
    for (const token of ['fan-a', 'fan-b', 'fan-gone', 'fan-bad']) await register('fan', 'mobile', token);
    fakes.fcm.failToken('fan-gone', 'unregistered');
    fakes.fcm.failToken('fan-bad', 'internal');
    await chat('fan-1', 'fan', 'c-fan');
    await settled('fan-1', 4);
    expect(await outcomeOf('fan-1', 'fan-a')).toBe('sent');
    expect(await outcomeOf('fan-1', 'fan-b')).toBe('sent');
    expect(await outcomeOf('fan-1', 'fan-gone')).toBe('removed');
    // Server errors are tried again (three tries here) and never remove the device.
    expect(await outcomeOf('fan-1', 'fan-bad')).toBe('failed');
    expect(toToken('fan-bad')).toHaveLength(3);
    const devices = await eventually(
      () =>
        db.pool.anyFirst(
          sql.type(
            z.object({ token: z.string() }),
          )`SELECT token FROM devices WHERE user_id = 'fan' ORDER BY token`,
        ),
      (tokens) => tokens.length === 3,
    );
    expect(devices).toEqual(['fan-a', 'fan-b', 'fan-bad']);
    const events = (await running.eventSourcing.store.readStream('userDevices-fan'))
      .filter((e) => e.type === 'deviceRejectedByProvider')
      .map((e) => ({ type: e.type, data: e.data }));
    expect(events).toEqual([
      {
        type: 'deviceRejectedByProvider',
        data: { token: 'fan-gone', provider: 'fcm', reason: expect.any(String) as string },
      },
    ]);
  });

  it('an invalid argument naming the token removes the device; one about the payload does not', async () => {
    await register('arg', 'mobile', 'arg-token');
    await register('arg', 'mobile', 'arg-payload');
    fakes.fcm.failToken('arg-token', 'invalid-token');
    fakes.fcm.failToken('arg-payload', 'invalid-payload');
    await chat('arg-1', 'arg', 'c-arg');
    await settled('arg-1', 2);
    expect(await outcomeOf('arg-1', 'arg-token')).toBe('removed');
    expect(await outcomeOf('arg-1', 'arg-payload')).toBe('failed');
  });

  it('a 5xx is retried and then delivered', async () => {
    await register('five', 'mobile', 'five-phone');
    fakes.fcm.failToken('five-phone', 'internal', { times: 1 });
    await chat('five-1', 'five', 'c-five');
    await settled('five-1', 1);
    expect(await deliveries('five-1')).toEqual([
      { device_key: deviceKey('five-phone'), outcome: 'sent', code: null, attempts: 2 },
    ]);
    expect(toToken('five-phone').map((m) => m.status)).toEqual([500, 200]);
  });

  it('a messenger chat that keeps refusing is removed after three refusals; chat not found at once', async () => {
    await register('tg', 'tma', '6001');
    await register('tg', 'tma', '6002');
    fakes.telegram.failChat('6001', 'blocked');
    fakes.telegram.failChat('6002', 'not-found');
    for (const n of [1, 2, 3]) {
      await chat(`tg-${n}`, 'tg', 'c-tg');
      await settled(`tg-${n}`, n === 1 ? 2 : 1);
    }
    expect(await outcomeOf('tg-1', '6001')).toBe('refused');
    expect(await outcomeOf('tg-1', '6002')).toBe('removed');
    expect(await outcomeOf('tg-2', '6001')).toBe('refused');
    expect(await outcomeOf('tg-3', '6001')).toBe('removed');
    await eventually(
      () =>
        db.pool.anyFirst(
          sql.type(z.object({ token: z.string() }))`SELECT token FROM devices WHERE user_id = 'tg'`,
        ),
      (tokens) => tokens.length === 0,
    );
  });
});

describe('pushes to many', () => {
  let owner: string;
  beforeAll(async () => {
    owner = await loginToken(running.url, await createTestAdmin(db.pool, 'owner'));
  });

  it('a 429 holds the whole messenger queue for its retry_after', async () => {
    for (const [user, chatId] of [
      ['r1', '7001'],
      ['r2', '7002'],
      ['r3', '7003'],
    ] as const)
      await register(user, 'tma', chatId);
    fakes.telegram.failChat('7001', 'rate', { times: 1, retryAfterSeconds: 1 });
    const sent = await adminCall(running.url, owner, 'POST', '/admin/notices', {
      userIds: ['r1', 'r2', 'r3'],
      title: 'Maintenance',
      body: 'Tonight at ten.',
    });
    expect(sent.status).toBe(202);
    const id = z.object({ id: z.string() }).parse(sent.body).id;
    await settled(`notice:${id}`, 3);
    const to = (chatId: string) => toChat(chatId).filter((m) => m.text.startsWith('Maintenance'));
    const limited = to('7001')[0]?.at ?? 0;
    expect(to('7001').map((m) => m.status)).toEqual([429, 200]);
    const after = [...to('7001').slice(1), ...to('7002'), ...to('7003')].filter((m) => m.at > limited);
    for (const message of after) expect(message.at).toBeGreaterThanOrEqual(limited + 1_000);
  });

  it('a notice with userIds reaches those users; without, everyone with a device, progress shown', async () => {
    await register('n1', 'mobile', 'n1-phone');
    await register('n2', 'mobile', 'n2-phone');
    const some = await adminCall(running.url, owner, 'POST', '/admin/notices', {
      userIds: ['n1'],
      title: 'Hello n1',
      body: 'Just you.',
    });
    expect(some.status).toBe(202);
    const someId = z.object({ id: z.string() }).parse(some.body).id;
    await settled(`notice:${someId}`, 1);
    expect(toToken('n1-phone').map((m) => m.notification?.title)).toContain('Hello n1');
    expect(toToken('n2-phone').map((m) => m.notification?.title)).not.toContain('Hello n1');

    const all = await adminCall(running.url, owner, 'POST', '/admin/notices', {
      title: 'Hello all',
      body: 'Everyone.',
    });
    const allId = z.object({ id: z.string() }).parse(all.body).id;
    const devices = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM devices`,
    );
    await settled(`notice:${allId}`, devices);
    expect(toToken('n2-phone').map((m) => m.notification?.title)).toContain('Hello all');
    expect(toToken('n2-phone').find((m) => m.notification?.title === 'Hello all')?.data).toEqual({
      type: 'system',
      noticeId: allId,
    });
    const shown = await adminCall(running.url, owner, 'GET', `/admin/notices/${allId}`);
    expect(shown.body).toMatchObject({ id: allId, userIds: null, push: { state: 'done' } });
  });

  it('a notice that breaks the rules is a 400 and sends nothing; without a token, 401', async () => {
    const before = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM push_notices`,
    );
    for (const body of [
      { title: '', body: 'x' },
      { title: 'T', body: '' },
      { title: 'T\u0000', body: 'x' },
      { title: 'T', body: '\ud800' },
      { title: 'T', body: 'x', userIds: [] },
      { title: 'T', body: 'x', userIds: ['a', 'a'] },
      { title: 'T'.repeat(101), body: 'x' },
      { title: 'T', body: 'x', extra: true },
    ]) {
      const answer = await adminCall(running.url, owner, 'POST', '/admin/notices', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(
      (await adminCall(running.url, null, 'POST', '/admin/notices', { title: 'T', body: 'x' })).status,
    ).toBe(401);
    const after = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM push_notices`,
    );
    expect(after).toBe(before);
  });

  it('notices need notices.send (owner and support), and each is audited without its text', async () => {
    const author = await loginToken(running.url, await createTestAdmin(db.pool, 'author'));
    const support = await loginToken(running.url, await createTestAdmin(db.pool, 'support'));
    const auditor = await loginToken(running.url, await createTestAdmin(db.pool, 'auditor'));
    const notice = { userIds: ['nobody'], title: 'Audit me', body: 'Private words of the notice' };
    expect((await adminCall(running.url, author, 'POST', '/admin/notices', notice)).status).toBe(403);
    expect((await adminCall(running.url, auditor, 'POST', '/admin/notices', notice)).status).toBe(403);
    expect((await adminCall(running.url, auditor, 'GET', '/admin/notices')).status).toBe(200);
    const sent = await adminCall(running.url, support, 'POST', '/admin/notices', notice);
    expect(sent.status).toBe(202);
    const id = z.object({ id: z.string() }).parse(sent.body).id;
    const entries = await db.pool.any(sql.type(
      z.object({ action: z.string(), target_id: z.string().nullable(), detail: z.unknown() }),
    )`
      SELECT action, target_id, detail FROM admin_logs WHERE action = 'notices.send' ORDER BY id`);
    expect(entries.filter((e) => e.target_id === id)).toEqual([
      { action: 'notices.send', target_id: id, detail: { recipients: 1 } },
    ]);
    expect(JSON.stringify(entries)).not.toContain('Private words');
  });

  it('a post published with notify by the schedule job is pushed once, however often the job runs', async () => {
    await register('reader', 'mobile', 'reader-phone');
    const channel = await adminCall(running.url, owner, 'POST', '/admin/channels', { title: 'News' });
    const channelId = z.object({ id: z.string() }).parse(channel.body).id;
    const postId = await postThrough(running.url, owner, channelId, []);
    const scheduled = await adminCall(running.url, owner, 'POST', `/admin/posts/${postId}/schedule`, {
      publishAt: new Date(Date.now() + 300).toISOString(),
      notify: true,
    });
    expect(scheduled.status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    const deps = { pool: db.pool, store: running.eventSourcing.store };
    await Promise.all([publishDuePosts(deps, new Date()), publishDuePosts(deps, new Date())]);
    const devices = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM devices`,
    );
    await settled(`post:${postId}`, devices);
    const pushes = toToken('reader-phone').filter((m) => m.data?.['postId'] === postId);
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({
      data: { type: 'system', postId, channelId },
      notification: { title: 'New post in the channel' },
    });
    const stats = await adminCall(running.url, owner, 'GET', `/admin/posts/${postId}/stats`);
    expect(stats.body).toMatchObject({ push: { state: 'done' } });
  });
});

describe('what a push leaves behind', () => {
  it('/metrics has deliveries by platform and outcome, the queues and the providers’ latency', async () => {
    const text = await (await fetch(`${running.url}/metrics`)).text();
    expect(text).toMatch(/^push_deliveries_total\{platform="mobile",outcome="sent"\} [1-9]/m);
    expect(text).toMatch(/^push_deliveries_total\{platform="mobile",outcome="removed"\} [1-9]/m);
    expect(text).toMatch(/^push_deliveries_total\{platform="tma",outcome="refused"\} [1-9]/m);
    expect(text).toMatch(/^push_deliveries_total\{platform="mobile",outcome="muted"\} [1-9]/m);
    expect(text).toMatch(/^push_queue_jobs\{queue="push-mobile",state="queued"\} \d+/m);
    expect(text).toMatch(/^push_provider_request_seconds_count\{provider="fcm"\} [1-9]/m);
    expect(text).toMatch(/^push_provider_request_seconds_count\{provider="telegram"\} [1-9]/m);
    // Each request to a provider by endpoint template and the status it answered (the fakes' real ones).
    const fcm = 'provider="fcm",method="POST",route="/v1/projects/\\{project\\}/messages:send"';
    expect(text).toMatch(new RegExp(`^provider_requests_total\\{${fcm},status="200"\\} [1-9]`, 'm'));
    expect(text).toMatch(new RegExp(`^provider_requests_total\\{${fcm},status="404"\\} [1-9]`, 'm'));
    const telegram = 'provider="telegram",method="POST",route="sendMessage"';
    expect(text).toMatch(new RegExp(`^provider_requests_total\\{${telegram},status="200"\\} [1-9]`, 'm'));
    expect(text).toMatch(new RegExp(`^provider_requests_total\\{${telegram},status="403"\\} [1-9]`, 'm'));
  });

  it('no message text in logs, tables, queue rows or push records when previews are off', async () => {
    const secret = 'Operator words nobody may quote';
    await waitUntil(
      async () =>
        (await db.pool.oneFirst(
          sql.type(
            z.object({ n: z.number() }),
          )`SELECT count(*)::int AS n FROM push_deliveries WHERE outcome = 'sent'`,
        )) > 0,
    );
    expect(running.logs.text).not.toContain(secret);
    const rows = await db.pool.anyFirst(sql.type(z.object({ t: z.string() }))`
      SELECT t FROM (
        SELECT row_to_json(l)::text AS t FROM push_log l
        UNION ALL SELECT row_to_json(d)::text FROM push_deliveries d
        UNION ALL SELECT row_to_json(j)::text FROM pgboss.job j
      ) x`);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).not.toContain(secret);
    for (const message of fakes.fcm.received()) expect(JSON.stringify(message)).not.toContain(secret);
    for (const message of fakes.telegram.received()) expect(message.text).not.toContain(secret);
    const devtools = await api.get('ann', '/devtools/pushes?limit=100');
    expect(devtools.status).toBe(200);
    expect(JSON.stringify(devtools.json)).not.toContain(secret);
    expect(JSON.stringify(devtools.json)).not.toContain('ann-phone');
  });
});

describe('with PUSH_SHOW_PREVIEW=1', () => {
  let previewDb: TestDatabase;
  let previewing: RunningApp;
  const previewApi = clientApi(() => previewing.url);
  beforeAll(async () => {
    previewDb = await createTestDatabase();
    previewing = await startApp({ db: previewDb, env: { ...fakes.env, PUSH_SHOW_PREVIEW: '1' } });
  });
  afterAll(async () => {
    await previewing.close();
    await previewDb.drop();
  });

  it('a chat push quotes the start of the operator reply', async () => {
    expect(
      (await previewApi.post('pia', '/devices/register', { platform: 'mobile', token: 'pia-phone' })).status,
    ).toBe(200);
    const sent = await previewApi.post('pia', '/conversations', { text: 'where is my parcel' });
    const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
    await requireSandbox(previewing.support.sandbox).operator.reply(conversationId, {
      body: 'It left the depot today',
    });
    const [push] = await eventually(
      () => Promise.resolve(toToken('pia-phone')),
      (m) => m.length === 1,
      10_000,
    );
    expect(push?.notification).toEqual({ title: 'New reply from support', body: 'It left the depot today' });
  });
});
