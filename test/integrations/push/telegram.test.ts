import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../../../src/dev/push-fakes/index.ts';
import type { MessengerSender } from '../../../src/integrations/push/port.ts';
import { classifyTelegramError, createMessengerSender } from '../../../src/integrations/push/telegram.ts';

let fake: FakeTelegram;
const senders: MessengerSender[] = [];

function sender(
  options: { apiRoot?: string; token?: string; logger?: pino.Logger; timeoutMs?: number } = {},
) {
  const created = createMessengerSender({
    token: options.token ?? fake.token,
    apiRoot: options.apiRoot ?? fake.apiRoot,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  senders.push(created);
  return created;
}

beforeAll(async () => {
  fake = await startFakeTelegram();
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  fake.clear();
  fake.resetFailures();
});

afterAll(async () => {
  await fake.close();
});

describe('messenger sender against the fake Bot API', () => {
  it('sends the text with a button that opens the mini-app', async () => {
    const outcome = await sender().send({
      chatId: '4242',
      text: 'New reply in your chat',
      button: { text: 'Open', url: 'https://t.me/demo_bot/app?startapp=c-1' },
    });
    expect(outcome).toEqual({ outcome: 'sent' });
    expect(fake.received()).toMatchObject([
      {
        chatId: '4242',
        text: 'New reply in your chat',
        replyMarkup: { inline_keyboard: [[{ text: 'Open', url: 'https://t.me/demo_bot/app?startapp=c-1' }]] },
        status: 200,
      },
    ]);
  });

  it('sends no markup without a button', async () => {
    expect(await sender().send({ chatId: '4243', text: 'Plain' })).toEqual({ outcome: 'sent' });
    const [only] = fake.received();
    expect(only).toMatchObject({ chatId: '4243', text: 'Plain', status: 200 });
    expect(only).not.toHaveProperty('replyMarkup');
  });

  it('takes an API root with or without a trailing slash', async () => {
    expect(await sender({ apiRoot: `${fake.apiRoot}/` }).send({ chatId: '1', text: 'a' })).toEqual({
      outcome: 'sent',
    });
    expect(await sender({ apiRoot: fake.apiRoot }).send({ chatId: '1', text: 'b' })).toEqual({
      outcome: 'sent',
    });
  });

  it('answers refused for each 403 flavour', async () => {
    fake.failChat('10', 'blocked');
    fake.failChat('11', 'deactivated');
    fake.failChat('12', 'not-started');
    const s = sender();
    expect(await s.send({ chatId: '10', text: 'x' })).toEqual({ outcome: 'refused', code: 'bot_blocked' });
    expect(await s.send({ chatId: '11', text: 'x' })).toEqual({
      outcome: 'refused',
      code: 'user_deactivated',
    });
    expect(await s.send({ chatId: '12', text: 'x' })).toEqual({ outcome: 'refused', code: 'not_started' });
  });

  it('answers rejected when the chat is not found', async () => {
    fake.failChat('13', 'not-found');
    expect(await sender().send({ chatId: '13', text: 'x' })).toEqual({
      outcome: 'rejected',
      code: 'chat_not_found',
    });
  });

  it('answers retry with retry_after for a 429', async () => {
    fake.failChat('14', 'rate', { retryAfterSeconds: 7 });
    expect(await sender().send({ chatId: '14', text: 'x' })).toEqual({
      outcome: 'retry',
      code: 'too_many_requests',
      retryAfterMs: 7_000,
    });
  });

  it('answers retry for a 5xx and does not retry by itself', async () => {
    fake.failChat('15', 'internal', { times: 1 });
    const s = sender();
    expect(await s.send({ chatId: '15', text: 'x' })).toEqual({ outcome: 'retry', code: 'http_500' });
    expect(fake.count).toBe(1);
    expect(await s.send({ chatId: '15', text: 'x' })).toEqual({ outcome: 'sent' });
    expect(fake.received().map((m) => m.status)).toEqual([500, 200]);
  });

  it('answers retry for a refused bot token (an operator fix, not the message)', async () => {
    expect(await sender({ token: '1:wrong' }).send({ chatId: '16', text: 'x' })).toEqual({
      outcome: 'retry',
      code: 'unauthorized',
    });
    expect(fake.count).toBe(0);
  });

  it('answers retry when the Bot API cannot be reached', async () => {
    const gone = await startFakeTelegram();
    await gone.close();
    expect(await sender({ apiRoot: gone.apiRoot }).send({ chatId: '17', text: 'x' })).toEqual({
      outcome: 'retry',
      code: 'ECONNREFUSED',
    });
  });

  it('answers retry when the Bot API does not answer in time', async () => {
    const silent: Server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const outcome = await sender({ apiRoot: `http://127.0.0.1:${port}`, timeoutMs: 200 }).send({
        chatId: '18',
        text: 'x',
      });
      expect(outcome).toEqual({ outcome: 'retry', code: 'timeout' });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('never logs the bot token, a chat id or a text', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    fake.failChat('990001', 'blocked');
    fake.failChat('990002', 'not-found');
    fake.failChat('990003', 'rate');
    fake.failChat('990004', 'internal');
    const s = sender({ logger });
    for (const chatId of ['990000', '990001', '990002', '990003', '990004']) {
      await s.send({
        chatId,
        text: 'secret-text',
        button: { text: 'secret-button', url: 'https://secret.example' },
      });
    }
    await sender({ logger, token: '777:secret-wrong-token' }).send({ chatId: '990005', text: 'secret-text' });
    const gone = await startFakeTelegram();
    await gone.close();
    await sender({ logger, apiRoot: gone.apiRoot }).send({ chatId: '990006', text: 'secret-text' });
    const logs = lines.join('');
    expect(logs).toContain('bot_blocked');
    expect(logs).toContain('ECONNREFUSED');
    expect(logs).not.toMatch(/secret|99000\d|loopback-bot-token/);
  });
});

describe('classifyTelegramError', () => {
  it('fails a payload the Bot API refused and anything it cannot read', () => {
    expect(classifyTelegramError(new Error('boom'))).toEqual({ outcome: 'failed', code: 'unknown_error' });
    expect(
      classifyTelegramError(Object.assign(new Error('x'), { name: 'FetchError', type: 'invalid-json' })),
    ).toEqual({
      outcome: 'retry',
      code: 'fetch_invalid-json',
    });
  });
});

describe('fake Bot API', () => {
  const url = (method: string, token = fake.token) => `${fake.apiRoot}/bot${token}/${method}`;

  it('takes urlencoded and multipart bodies as the Bot API does', async () => {
    const form = new URLSearchParams({
      chat_id: '21',
      text: 'form text',
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Go', url: 'https://example.com' }]] }),
    });
    const a = await fetch(url('sendMessage'), { method: 'POST', body: form });
    expect(await a.json()).toMatchObject({ ok: true, result: { chat: { id: 21 }, text: 'form text' } });
    const multipart = new FormData();
    multipart.set('chat_id', '22');
    multipart.set('text', 'multipart text');
    const b = await fetch(url('sendMessage'), { method: 'POST', body: multipart });
    expect(await b.json()).toMatchObject({ ok: true, result: { chat: { id: 22 }, text: 'multipart text' } });
    expect(fake.received()).toMatchObject([
      { chatId: '21', text: 'form text', replyMarkup: { inline_keyboard: [[{ text: 'Go' }]] } },
      { chatId: '22', text: 'multipart text' },
    ]);
  });

  it('answers 401 to an unknown token and 400 to an empty text', async () => {
    const unknown = await fetch(url('sendMessage', '1:nope'), { method: 'POST' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const empty = await fetch(url('sendMessage'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: 5 }),
    });
    expect(empty.status).toBe(400);
  });

  it('reports the peak rates it saw, overall and per chat', async () => {
    const s = sender();
    await Promise.all(['31', '32', '33'].map((chatId) => s.send({ chatId, text: 'x' })));
    await s.send({ chatId: '31', text: 'again' });
    expect(fake.peakRates()).toEqual({ overall: 4, perChat: 2 });
  });
});
