import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError } from '../../src/lib/error-text.ts';
import { createLogger } from '../../src/http/logger.ts';
import { LogCapture, type RunningApp, startApp, TEST_SECRETS } from '../support/app.ts';
import { adminCall, createTestAdmin, loginToken, postLogin, uniqueEmail } from '../support/admin.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { nowSeconds, signJwt } from '../support/jwt.ts';

let db: TestDatabase;
let running: RunningApp;
beforeAll(async () => {
  db = await createTestDatabase();
  running = await startApp({ db, env: { LOG_LEVEL: 'trace' } });
});
afterAll(async () => {
  await running.close();
  await db.drop();
});

describe('logs of a run that handled secrets', () => {
  it('contain no token, signature, cookie or body', async () => {
    const valid = signJwt({ sub: 'logger-user', exp: nowSeconds() + 600 }, TEST_SECRETS.JWT_SECRET);
    const forged = signJwt(
      { sub: 'logger-user', exp: nowSeconds() + 600 },
      'wrong-secret-wrong-secret-wrong-secret',
    );
    const bodyMarker = 'body-marker-7f3a';
    const signature = 'sha1=0123456789abcdef0123456789abcdef01234567';
    const fileSignature = '1999999999.c2lnbmF0dXJlLXRoYXQtbXVzdC1ub3QtYmUtbG9nZ2Vk';

    await fetch(`${running.url}/api/settings/notifications`, {
      headers: { authorization: `Bearer ${valid}` },
    });
    await fetch(`${running.url}/api/settings/notifications`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${valid}`,
        'content-type': 'application/json',
        cookie: `session=${valid}`,
      },
      body: JSON.stringify({ chatMessages: false }),
    });
    await fetch(`${running.url}/api/settings/notifications`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${valid}`, 'content-type': 'application/json' },
      body: JSON.stringify({ chatMessages: bodyMarker }),
    });
    await fetch(`${running.url}/api/settings/notifications`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    await fetch(`${running.url}/webhooks/support`, {
      method: 'POST',
      headers: { 'x-hub-signature': signature },
    });
    await fetch(`${running.url}/files/abc?t=${fileSignature}`);
    // A push token lets whoever holds it (with our FCM key) reach the device: as private as a secret.
    const pushToken = 'fcm-token-marker-91e2';
    for (const [path, body, key] of [
      ['register', { platform: 'mobile', token: pushToken }, 'idem-key-marker-91e2'],
      ['register', { platform: 'mobile', token: pushToken }, 'idem-key-marker-91e2'],
      ['unregister', { token: pushToken }, undefined],
    ] as const) {
      const res = await fetch(`${running.url}/api/devices/${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${valid}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
    }

    // Admin passwords and session tokens, on success and on failure.
    const admin = await createTestAdmin(db.pool, 'owner', 'logged');
    const wrongPassword = 'wrong-password-marker-4c1d';
    const newPassword = 'new-password-marker-4c1d';
    const madePassword = 'made-password-marker-4c1d';
    await postLogin(running.url, { email: admin.email, password: wrongPassword });
    const adminToken = await loginToken(running.url, admin);
    const made = await adminCall(running.url, adminToken, 'POST', '/admin/admins', {
      email: uniqueEmail('made'),
      name: 'Made',
      role: 'author',
      password: madePassword,
    });
    expect(made.status).toBe(201);
    const madeId = (made.body as { id: string }).id;
    await adminCall(running.url, adminToken, 'POST', `/admin/admins/${madeId}/password`, {
      password: 'short',
    });
    const set = await adminCall(running.url, adminToken, 'POST', `/admin/admins/${madeId}/password`, {
      password: newPassword,
    });
    expect(set.status).toBe(204);
    await adminCall(running.url, adminToken, 'POST', '/admin/auth/logout-all');
    await adminCall(running.url, adminToken, 'GET', '/admin/me');

    // File bytes and names: an upload that is stored and one that is refused.
    const fileMarker = 'file-content-marker-2b8e';
    for (const content of [`${fileMarker}\n`, `<html>${fileMarker}</html>`]) {
      const form = new FormData();
      form.append('file', new Blob([content]), 'name-marker-2b8e.txt');
      await fetch(`${running.url}/api/files/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${valid}` },
        body: form,
      });
    }

    const logs = running.logs.text;
    expect(logs).toContain('/api/files/upload');
    for (const secret of [
      fileMarker,
      'name-marker-2b8e',
      admin.password,
      wrongPassword,
      newPassword,
      madePassword,
      adminToken,
      ...adminToken.split('.'),
      TEST_SECRETS.ADMIN_SESSION_SECRET,
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).toContain('/admin/auth/login');
    expect(running.logs.lines.length).toBeGreaterThanOrEqual(6); // the run did log: a line per request at least
    for (const secret of [
      valid,
      forged,
      TEST_SECRETS.JWT_SECRET,
      bodyMarker,
      signature,
      fileSignature,
      'marker-91e2',
    ]) {
      expect(logs).not.toContain(secret);
    }
    // The parts of a JWT are secrets too (the signature alone could be replayed with the header).
    for (const part of valid.split('.')) expect(logs).not.toContain(part);
    expect(logs).toContain('/api/settings/notifications');
  });

  it('log errors by type, message and stack only, never the data they carry', () => {
    const logs = new LogCapture();
    const error = Object.assign(new Error('insert failed'), {
      code: '23505',
      values: ['comment text marker 5d1c'],
      row: { body: 'message body marker 5d1c' },
    });
    createLogger('info', logs).error({ err: error }, 'request failed');
    // A data exception quotes the value it refused.
    const quoted = Object.assign(new Error('invalid input syntax for type uuid: "token marker 5d1c"'), {
      code: '22P02',
    });
    createLogger('info', logs).error({ err: quoted }, 'request failed');
    expect(describeError(quoted)).toBe('Error: invalid input syntax for type uuid: "[redacted]"');
    const named = Object.assign(new Error('relation "devices" does not exist'), { code: '42P01' });
    expect(describeError(named)).toBe('Error: relation "devices" does not exist');
    expect(logs.text).toContain('insert failed');
    expect(logs.text).toContain('23505');
    expect(logs.text).not.toContain('marker 5d1c');
  });
});
