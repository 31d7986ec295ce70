import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { devicesOfUser } from '../../src/queries/devices.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { sessionToken } from '../support/jwt.ts';

const service = useRunningApp();

const post = (user: string | null, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.running.url}/api/devices/${path}`, {
    method: 'POST',
    headers: {
      ...(user === null ? {} : bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user))),
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
const register = (user: string, body: unknown, headers?: Record<string, string>) =>
  post(user, 'register', body, headers);
const unregister = (user: string, token: string, headers?: Record<string, string>) =>
  post(user, 'unregister', { token }, headers);

/** What the push fan-out would read for this user, right after the response (read-your-writes). */
const tokensOf = async (user: string) => (await devicesOfUser(service.db.pool, user)).map((d) => d.token);

const eventsOf = (user: string) =>
  service.db.pool.any(sql.type(z.object({ event_id: z.string(), event_type: z.string(), data: z.unknown() }))`
    SELECT event_id, event_type, data FROM events WHERE stream_name = ${`userDevices-${user}`}
    ORDER BY stream_revision`);

describe('POST /api/devices/register', () => {
  it('registers a mobile token and a messenger chat id; the next read shows both', async () => {
    const mobile = await register('ana', { platform: 'mobile', token: 'fcm:APA91b-ana' });
    expect(mobile.status).toBe(200);
    expect(await mobile.json()).toEqual({ registered: true });
    expect((await register('ana', { platform: 'tma', token: '123456789' })).status).toBe(200);

    const devices = await devicesOfUser(service.db.pool, 'ana');
    expect(devices.map(({ token, platform, provider }) => ({ token, platform, provider }))).toEqual([
      { token: 'fcm:APA91b-ana', platform: 'mobile', provider: 'fcm' },
      { token: '123456789', platform: 'tma', provider: 'telegram' },
    ]);
  });

  it('appends nothing when the same (user, token) is registered again', async () => {
    await register('ben', { platform: 'mobile', token: 'fcm-ben' });
    const before = await eventsOf('ben');
    const again = await register('ben', { platform: 'mobile', token: 'fcm-ben' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ registered: true });
    expect(await eventsOf('ben')).toEqual(before);
    expect(await tokensOf('ben')).toEqual(['fcm-ben']);
  });

  it('moves a token to the user who registered it last, and says so in the first user’s history', async () => {
    await register('cat', { platform: 'mobile', token: 'shared-phone' });
    await register('dan', { platform: 'mobile', token: 'shared-phone' });
    expect(await tokensOf('cat')).toEqual([]);
    expect(await tokensOf('dan')).toEqual(['shared-phone']);
    // As the store reads them back: stored, the token is sealed with cat's data key (decision 048).
    const history = await service.running.eventSourcing.store.readStream('userDevices-cat');
    expect(history.map((e) => [e.type, e.data])).toEqual([
      ['deviceRegistered', { platform: 'mobile', token: 'shared-phone', provider: 'fcm' }],
      ['deviceUnregistered', { token: 'shared-phone', reason: 'movedToAnotherUser' }],
    ]);
    expect(JSON.stringify(await eventsOf('cat'))).not.toContain('shared-phone');

    await register('cat', { platform: 'mobile', token: 'shared-phone' });
    expect(await tokensOf('cat')).toEqual(['shared-phone']);
    expect(await tokensOf('dan')).toEqual([]);
  });

  it.each([
    ['an unknown platform', { platform: 'web', token: 'x' }],
    ['a messenger chat id that is not a number', { platform: 'tma', token: 'abc' }],
    ['an empty token', { platform: 'mobile', token: '' }],
    ['a token with spaces', { platform: 'mobile', token: 'a b' }],
    ['a token over 4096 characters', { platform: 'mobile', token: 'x'.repeat(4097) }],
    ['an unknown field', { platform: 'mobile', token: 'x', extra: true }],
    ['no token', { platform: 'mobile' }],
  ])('refuses %s with 400 validation_failed and stores nothing', async (_name, body) => {
    const res = await register('eve', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(((await res.json()) as { code: string }).code).toBe('validation_failed');
    expect(await eventsOf('eve')).toEqual([]);
  });

  it('needs a session', async () => {
    const res = await post(null, 'register', { platform: 'mobile', token: 'anon' });
    expect(res.status).toBe(401);
  });
});

describe('POST /api/devices/unregister', () => {
  it('removes the device with 204, and answers 204 again when it is already gone, appending nothing', async () => {
    await register('fay', { platform: 'mobile', token: 'fcm-fay' });
    const first = await unregister('fay', 'fcm-fay');
    expect(first.status).toBe(204);
    expect(await first.text()).toBe('');
    expect(await tokensOf('fay')).toEqual([]);
    const events = await eventsOf('fay');
    expect(events.map((e) => e.event_type)).toEqual(['deviceRegistered', 'deviceUnregistered']);

    expect((await unregister('fay', 'fcm-fay')).status).toBe(204);
    expect((await unregister('fay', 'never-registered')).status).toBe(204);
    expect(await eventsOf('fay')).toEqual(events);
  });

  it("cannot remove another user's device", async () => {
    await register('gus', { platform: 'mobile', token: 'fcm-gus' });
    expect((await unregister('hal', 'fcm-gus')).status).toBe(204);
    expect(await tokensOf('gus')).toEqual(['fcm-gus']);
  });
});

describe('Idempotency-Key', () => {
  it('answers a retry with the first response, marked as replayed, and changes nothing', async () => {
    const key = { 'idempotency-key': 'register-ivy-1' };
    const first = await register('ivy', { platform: 'mobile', token: 'fcm-ivy' }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const events = await eventsOf('ivy');

    await unregister('ivy', 'fcm-ivy');
    const retry = await register('ivy', { platform: 'mobile', token: 'fcm-ivy' }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ registered: true });
    // The retry did not register the device again after the unregistration.
    expect(await tokensOf('ivy')).toEqual([]);
    expect((await eventsOf('ivy')).length).toBe(events.length + 1);
  });

  it('replays a 204 as a 204 without a body', async () => {
    await register('jon', { platform: 'mobile', token: 'fcm-jon' });
    const key = { 'idempotency-key': 'unregister-jon' };
    expect((await unregister('jon', 'fcm-jon', key)).status).toBe(204);
    const retry = await unregister('jon', 'fcm-jon', key);
    expect(retry.status).toBe(204);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe('');
  });

  it('refuses the same key for a different request with 422, changing nothing', async () => {
    const key = { 'idempotency-key': 'kim-key' };
    await register('kim', { platform: 'mobile', token: 'fcm-kim-1' }, key);
    const reused = await register('kim', { platform: 'mobile', token: 'fcm-kim-2' }, key);
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { code: string }).code).toBe('idempotency_key_reused');
    expect(await tokensOf('kim')).toEqual(['fcm-kim-1']);
  });

  it('keeps keys apart per caller', async () => {
    const key = { 'idempotency-key': 'same-key' };
    await register('lea', { platform: 'mobile', token: 'fcm-lea' }, key);
    const other = await register('max', { platform: 'mobile', token: 'fcm-max' }, key);
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await tokensOf('max')).toEqual(['fcm-max']);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const key = { 'idempotency-key': 'ned-busy' };
    await register('ned', { platform: 'mobile', token: 'fcm-ned' }, key);
    // As the row looks while the first request is between its claim and its response.
    await service.db.pool.query(sql.unsafe`
      UPDATE idempotency_keys SET status_code = NULL, response = NULL WHERE caller = 'ned' AND key = 'ned-busy'`);
    const res = await register('ned', { platform: 'mobile', token: 'fcm-ned' }, key);
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { code: string }).code).toBe('conflict');
  });

  it('refuses a key that is empty, too long or not visible ASCII', async () => {
    for (const bad of ['', 'x'.repeat(101), 'with space', 'cl\u00e9']) {
      const res = await register('oli', { platform: 'mobile', token: 'fcm-oli' }, { 'idempotency-key': bad });
      expect(res.status, bad).toBe(400);
    }
    expect(await eventsOf('oli')).toEqual([]);
  });

  it('runs a retry again once the first claim is abandoned, and appends nothing new', async () => {
    const key = { 'idempotency-key': 'pam-crash' };
    await register('pam', { platform: 'mobile', token: 'fcm-pam' }, key);
    const events = await eventsOf('pam');
    // As if the process had died after appending, before it stored the response: the claim is
    // abandoned, and a retry a minute later runs the command again.
    await service.db.pool.query(sql.unsafe`
      UPDATE idempotency_keys SET status_code = NULL, response = NULL, created_at = now() - interval '2 minutes'
      WHERE caller = 'pam' AND key = 'pam-crash'`);
    const retry = await register('pam', { platform: 'mobile', token: 'fcm-pam' }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await eventsOf('pam')).toEqual(events);
  });
});

describe('OpenAPI', () => {
  it('documents both device routes with their bodies, the Idempotency-Key and their answers', async () => {
    const doc = (await (await fetch(`${service.running.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        {
          post?: {
            requestBody?: unknown;
            parameters?: { in: string; name: string }[];
            responses: Record<string, unknown>;
          };
        }
      >;
    };
    for (const [path, ok] of [
      ['/api/devices/register', '200'],
      ['/api/devices/unregister', '204'],
    ] as const) {
      const post = doc.paths[path]?.post;
      expect(post?.requestBody, path).toBeDefined();
      expect(post?.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]),
      );
      expect(Object.keys(post?.responses ?? {})).toEqual(
        expect.arrayContaining([ok, '400', '401', '409', '422', '429']),
      );
    }
  });
});
