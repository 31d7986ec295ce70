import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type RunningApp, startApp, TEST_SECRETS } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';

const path = '/api/settings/notifications';
let db: TestDatabase;
let running: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  running = await startApp({ db });
});
afterAll(async () => {
  await running.close();
  await db.drop();
});

const auth = (user: string) => bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user));
const put = (url: string, user: string, body: string, contentType = 'application/json') =>
  fetch(url + path, { method: 'PUT', headers: { ...auth(user), 'content-type': contentType }, body });
const get = async (url: string, user: string) => {
  const res = await fetch(url + path, { headers: auth(user) });
  expect(res.status).toBe(200);
  return res.json();
};

describe('GET /api/settings/notifications', () => {
  it('answers all three categories on for a user who never changed anything', async () => {
    expect(await get(running.url, 'new-user')).toEqual({
      chatMessages: true,
      ticketUpdates: true,
      systemNotices: true,
    });
  });
});

describe('PUT /api/settings/notifications', () => {
  it('changes only the fields sent and answers the full settings', async () => {
    const first = await put(running.url, 'partial', JSON.stringify({ ticketUpdates: false }));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ chatMessages: true, ticketUpdates: false, systemNotices: true });

    const second = await put(running.url, 'partial', JSON.stringify({ systemNotices: false }));
    expect(await second.json()).toEqual({ chatMessages: true, ticketUpdates: false, systemNotices: false });

    const third = await put(running.url, 'partial', JSON.stringify({ ticketUpdates: true }));
    expect(await third.json()).toEqual({ chatMessages: true, ticketUpdates: true, systemNotices: false });
  });

  it('treats an empty object as no change', async () => {
    await put(running.url, 'empty', JSON.stringify({ chatMessages: false }));
    const res = await put(running.url, 'empty', '{}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ chatMessages: false, ticketUpdates: true, systemNotices: true });
  });

  it('keeps the settings across a restart of the app', async () => {
    await put(running.url, 'durable', JSON.stringify({ chatMessages: false, ticketUpdates: false }));
    await running.close();
    running = await startApp({ db });
    expect(await get(running.url, 'durable')).toEqual({
      chatMessages: false,
      ticketUpdates: false,
      systemNotices: true,
    });
  });

  const invalid: [string, string, string, string[]][] = [
    [
      'an unknown field',
      JSON.stringify({ chatMessages: false, sound: true }),
      'application/json',
      ['body.sound'],
    ],
    [
      'a string instead of a boolean',
      JSON.stringify({ chatMessages: 'false' }),
      'application/json',
      ['body.chatMessages'],
    ],
    [
      'a number instead of a boolean',
      JSON.stringify({ systemNotices: 0 }),
      'application/json',
      ['body.systemNotices'],
    ],
    [
      'null instead of a boolean',
      JSON.stringify({ ticketUpdates: null }),
      'application/json',
      ['body.ticketUpdates'],
    ],
    ['an array body', JSON.stringify([true]), 'application/json', ['body']],
    ['a JSON string body', JSON.stringify('chatMessages'), 'application/json', ['body']],
  ];

  it.each(invalid)(
    'refuses %s with 400 validation_failed naming the field, and changes nothing',
    async (_n, body, type, paths) => {
      await put(running.url, 'validated', JSON.stringify({ chatMessages: false }));
      const res = await put(running.url, 'validated', body, type);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await res.json()) as { code: string; errors: { path: string }[] };
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors.map((e) => e.path)).toEqual(paths);
      expect(await get(running.url, 'validated')).toEqual({
        chatMessages: false,
        ticketUpdates: true,
        systemNotices: true,
      });
    },
  );

  it('refuses a body that is not JSON with 400, and another content type with 415', async () => {
    const broken = await put(running.url, 'bad-json', '{"chatMessages": fal');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { code: string }).code).toBe('validation_failed');
    const text = await put(running.url, 'bad-json', 'chatMessages=false', 'text/plain');
    expect(text.status).toBe(415);
    expect(((await text.json()) as { code: string }).code).toBe('unsupported_media_type');
    expect(await get(running.url, 'bad-json')).toEqual({
      chatMessages: true,
      ticketUpdates: true,
      systemNotices: true,
    });
  });

  it('refuses an anonymous update before reading the body', async () => {
    const send = (body: string) =>
      fetch(running.url + path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    // Neither a broken body nor one over the size limit is looked at: the answer is 401, not 400 or 413.
    for (const body of ['{"chatMessages": fal', `{"x":"${'y'.repeat(2 * 1024 * 1024)}"}`]) {
      const res = await send(body);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('unauthenticated');
    }
  });
});
