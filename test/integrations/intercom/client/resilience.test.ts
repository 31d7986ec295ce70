import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientOf, errorList, FakeIntercom, failure, useFakeIntercom, fixtures } from './fake-intercom.ts';

const fake = useFakeIntercom();

/** An answer that is held back until the test lets it go: a slow Intercom, for as long as needed. */
function heldBack() {
  let release = (): void => undefined;
  const until = new Promise<void>((done) => {
    release = done;
  });
  return { until, release };
}

const serverError = { status: 500, body: errorList('server_error', 'boom') };
const badGateway = { status: 502, raw: '<html>bad gateway</html>' };

describe('timeouts', () => {
  it('give up on a slow answer as unavailable, and do not send a write twice', async () => {
    const { client } = clientOf(fake, { timeoutMs: 100 });
    const slow = heldBack();
    fake.on('POST /tags', { body: fixtures.tag, until: slow.until });
    // The answer is held until after the call settles: only the client's own timeout can end it.
    const error = await failure(client.createTag('slow'));
    slow.release();
    expect(error).toMatchObject({ kind: 'unavailable', reason: 'timeout' });
    expect(fake.count('POST /tags')).toBe(1);
  });

  it('report a connection that nobody answers as unavailable', async () => {
    const closed = await FakeIntercom.start();
    await closed.close();
    const { client } = clientOf(closed, { maxRetries: 0 });
    expect(await failure(client.me())).toMatchObject({ kind: 'unavailable', reason: 'network' });
  });
});

describe('retries', () => {
  it('retry a read that found Intercom unavailable, until it succeeds', async () => {
    const { client } = clientOf(fake, { maxRetries: 2 });
    fake.sequence('GET /conversations/1295', [serverError, badGateway, { body: fixtures.conversation }]);
    expect((await client.getConversation('1295')).id).toBe('1295');
    expect(fake.count()).toBe(3);
  });

  it('retry a search, which is a read sent as POST, and a read that timed out', async () => {
    const { client } = clientOf(fake, { maxRetries: 1, timeoutMs: 100 });
    const slow = heldBack();
    fake.sequence('POST /contacts/search', [
      { until: slow.until, body: {} },
      { body: { type: 'list', data: [fixtures.contact] } },
    ]);
    expect(await client.searchContactsByExternalId('user-70')).toHaveLength(1);
    slow.release();
    expect(fake.count()).toBe(2);
  });

  it('give up on a read after the last retry', async () => {
    const { client } = clientOf(fake, { maxRetries: 2 });
    fake.on('GET /me', serverError);
    expect(await failure(client.me())).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(fake.count()).toBe(3);
  });

  it('never retry a write, even on 5xx', async () => {
    const { client } = clientOf(fake, { maxRetries: 2 });
    fake.on('POST /conversations', serverError).on('POST /conversations/1/reply', badGateway);
    expect(await failure(client.createConversation({ contactId: 'c1', body: 'x' }))).toMatchObject({
      kind: 'unavailable',
      status: 500,
    });
    expect(
      await failure(client.replyAsUser({ conversationId: '1', contactId: 'c1', body: 'x' })),
    ).toMatchObject({
      kind: 'unavailable',
      status: 502,
    });
    expect(fake.count('POST /conversations')).toBe(1);
    expect(fake.count('POST /conversations/1/reply')).toBe(1);
  });

  it('do not retry answers a retry cannot change (404)', async () => {
    const { client } = clientOf(fake, { maxRetries: 2 });
    expect((await failure(client.getTicket('1'))).kind).toBe('not_found');
    expect(fake.count()).toBe(1);
  });
});

describe('circuit breaker', () => {
  // The breaker is cockatiel's, which reads the time from `Date.now()`: the tests move that clock by hand.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('opens after repeated outages, fails fast without reaching Intercom, and closes after a good probe', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { client, logs } = clientOf(fake, {
      breakerThreshold: 3,
      breakerHalfOpenAfterMs: 300,
      maxRetries: 0,
    });
    fake.on('GET /me', serverError);
    for (let i = 0; i < 3; i++) expect((await failure(client.me())).status).toBe(500);
    expect(client.state().breaker).toBe('open');

    const fast = await failure(client.me());
    expect(fast).toMatchObject({ kind: 'unavailable', reason: 'breaker_open', retryAfterMs: 300 });
    // Writes are held back too, until the last millisecond of the wait.
    expect((await failure(client.createTag('x'))).reason).toBe('breaker_open');
    vi.setSystemTime(Date.now() + 299);
    expect(await failure(client.me())).toMatchObject({ reason: 'breaker_open', retryAfterMs: 1 });
    expect(fake.count()).toBe(3);

    vi.setSystemTime(Date.now() + 1);
    fake.on('GET /me', { body: fixtures.admin });
    expect((await client.me()).id).toBe(fixtures.admin.id);
    expect(client.state().breaker).toBe('closed');
    await client.me();
    expect(fake.count()).toBe(5);
    expect(logs.text).toContain('intercom circuit opened');
    expect(logs.text).toContain('intercom circuit closed');
  });

  it('opens again when the half-open probe fails', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { client } = clientOf(fake, { breakerThreshold: 2, breakerHalfOpenAfterMs: 150, maxRetries: 0 });
    fake.on('GET /me', serverError);
    await failure(client.me());
    await failure(client.me());
    vi.setSystemTime(Date.now() + 150);
    expect((await failure(client.me())).status).toBe(500);
    expect((await failure(client.me())).reason).toBe('breaker_open');
    expect(fake.count()).toBe(3);
  });

  it('counts only outages: 404s and 409s do not open it', async () => {
    const { client } = clientOf(fake, { breakerThreshold: 2, maxRetries: 0 });
    fake.on('POST /contacts', { status: 409, body: errorList('conflict', 'exists with id=1') });
    for (let i = 0; i < 4; i++) await failure(client.getTicket('missing'));
    for (let i = 0; i < 2; i++) await failure(client.createContact('u'));
    expect(client.state().breaker).toBe('closed');
    expect(fake.count()).toBe(6);
  });

  it('counts every failed attempt of a retried read', async () => {
    const { client } = clientOf(fake, { breakerThreshold: 3, breakerHalfOpenAfterMs: 10_000, maxRetries: 5 });
    fake.on('GET /me', serverError);
    // The third attempt opens the breaker; the retry policy stops at the open breaker.
    expect((await failure(client.me())).reason).toBe('breaker_open');
    expect(fake.count()).toBe(3);
  });
});
