import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeFcm, type FakeFcm } from '../../../src/dev/push-fakes/index.ts';
import {
  classifyFcmError,
  createMobileSender,
  parseRetryAfter,
  validateServiceAccount,
} from '../../../src/integrations/push/fcm.ts';
import {
  MOBILE_BATCH_LIMIT,
  type MobileMessage,
  type MobileSender,
} from '../../../src/integrations/push/port.ts';

const PROJECT = 'demo-push-project';
let dir: string;
let accountPath: string;
let fake: FakeFcm;
const senders: MobileSender[] = [];

function logCapture() {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, text: () => lines.join('') };
}

function sender(options: { baseUrl?: string; serviceAccountPath?: string; logger?: pino.Logger } = {}) {
  const created = createMobileSender({
    serviceAccountPath: options.serviceAccountPath ?? accountPath,
    baseUrl: options.baseUrl ?? fake.url,
    logger: options.logger ?? pino({ level: 'silent' }),
  });
  senders.push(created);
  return created;
}

const message = (token: string, i = 0): MobileMessage => ({
  token,
  notification: { title: `Title ${i}`, body: `Body ${i}` },
  data: { kind: 'chat', conversationId: `c-${i}` },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-test-fcm-'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  accountPath = join(dir, 'service-account.json');
  await writeFile(
    accountPath,
    JSON.stringify({
      type: 'service_account',
      project_id: PROJECT,
      private_key_id: 'k1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: `push@${PROJECT}.iam.gserviceaccount.com`,
    }),
  );
  fake = await startFakeFcm();
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  fake.clear();
  fake.resetFailures();
  vi.restoreAllMocks();
});

afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe('mobile sender against the fake FCM', () => {
  it('delivers the payload intact: token, notification, string data, the project of the service account', async () => {
    const outcomes = await sender().sendEach([message('tok-a', 1), message('tok-b', 2)]);
    expect(outcomes).toEqual([{ outcome: 'sent' }, { outcome: 'sent' }]);
    const received = [...fake.received()].sort((a, b) => a.token.localeCompare(b.token));
    expect(
      received.map(({ project, token, notification, data, status }) => ({
        project,
        token,
        notification,
        data,
        status,
      })),
    ).toEqual([
      {
        project: PROJECT,
        token: 'tok-a',
        notification: { title: 'Title 1', body: 'Body 1' },
        data: { kind: 'chat', conversationId: 'c-1' },
        status: 200,
      },
      {
        project: PROJECT,
        token: 'tok-b',
        notification: { title: 'Title 2', body: 'Body 2' },
        data: { kind: 'chat', conversationId: 'c-2' },
        status: 200,
      },
    ]);
  });

  it('sends a batch of 500 and refuses 501 without sending any', async () => {
    const s = sender();
    const batch = Array.from({ length: MOBILE_BATCH_LIMIT }, (_, i) => message(`tok-${i}`, i));
    const outcomes = await s.sendEach(batch);
    expect(outcomes).toHaveLength(500);
    expect(outcomes.every((o) => o.outcome === 'sent')).toBe(true);
    expect(fake.count).toBe(500);
    await expect(s.sendEach([...batch, message('one-too-many')])).rejects.toThrow(/at most 500/);
    expect(fake.count).toBe(500);
    expect(await s.sendEach([])).toEqual([]);
  });

  it('classifies each failure, in order, and one failing token does not hold back the others', async () => {
    fake.failToken('t-unregistered', 'unregistered');
    fake.failToken('t-invalid-token', 'invalid-token');
    fake.failToken('t-invalid-payload', 'invalid-payload');
    fake.failToken('t-quota', 'quota', { retryAfterSeconds: 7 });
    fake.failToken('t-internal', 'internal');
    const tokens = [
      'ok-1',
      't-unregistered',
      't-invalid-token',
      'ok-2',
      't-invalid-payload',
      't-quota',
      't-internal',
      'ok-3',
    ];
    const outcomes = await sender().sendEach(tokens.map((t, i) => message(t, i)));
    expect(outcomes).toEqual([
      { outcome: 'sent' },
      { outcome: 'rejected', code: 'messaging/registration-token-not-registered' },
      { outcome: 'rejected', code: 'messaging/invalid-argument' },
      { outcome: 'sent' },
      { outcome: 'failed', code: 'messaging/invalid-argument' },
      { outcome: 'retry', code: 'messaging/message-rate-exceeded', retryAfterMs: 7_000 },
      { outcome: 'retry', code: 'messaging/internal-error' },
      { outcome: 'sent' },
    ]);
    expect(fake.count).toBe(tokens.length);
  });

  it('answers retry for a 5xx, and the next attempt goes through', async () => {
    fake.failAll('internal', { times: 2 });
    const s = sender();
    expect(await s.sendEach([message('a'), message('b')])).toEqual([
      { outcome: 'retry', code: 'messaging/internal-error' },
      { outcome: 'retry', code: 'messaging/internal-error' },
    ]);
    expect(await s.sendEach([message('a'), message('b')])).toEqual([
      { outcome: 'sent' },
      { outcome: 'sent' },
    ]);
  });

  it('leaves a 503 to firebase-admin, which retries it itself', async () => {
    fake.failToken('flaky', 'unavailable', { times: 1 });
    expect(await sender().sendEach([message('flaky')])).toEqual([{ outcome: 'sent' }]);
    expect(fake.received().map((m) => m.status)).toEqual([503, 200]);
  });

  it('answers retry when the service cannot be reached', async () => {
    const closed = await startFakeFcm();
    const url = closed.url;
    await closed.close();
    const outcomes = await sender({ baseUrl: url }).sendEach([message('a'), message('b')]);
    expect(outcomes).toEqual([
      { outcome: 'retry', code: 'app/network-error' },
      { outcome: 'retry', code: 'app/network-error' },
    ]);
  });

  it('opens no connection but to the fake: no TLS, no Google host, no OAuth token request', async () => {
    const targets: string[] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the socket as `this`
    const connect = net.Socket.prototype.connect;
    vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
      this: net.Socket,
      ...args: unknown[]
    ) {
      const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
      const target = first as { host?: string; port?: number; path?: string };
      targets.push(target.path ?? `${target.host ?? '?'}:${String(target.port)}`);
      return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    });
    const batch = Array.from({ length: 120 }, (_, i) => message(`tok-${i}`, i));
    const outcomes = await sender().sendEach(batch);
    expect(outcomes.every((o) => o.outcome === 'sent')).toBe(true);
    expect(fake.count).toBe(120);
    const port = new URL(fake.url).port;
    expect(targets.length).toBeGreaterThan(0);
    // Keep-alive with at most 50 sockets: 120 requests never open more than 50 connections.
    expect(targets.length).toBeLessThanOrEqual(50);
    expect(new Set(targets)).toEqual(new Set([`127.0.0.1:${port}`]));
  });

  it('reuses its connections across batches', async () => {
    const s = sender();
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    await s.sendEach([message('a')]);
    await s.sendEach([message('b')]);
    await s.sendEach([message('c')]);
    expect(connect).toHaveBeenCalledTimes(1);
  });

  it('uses a placeholder project when the service account file is missing (loopback only)', async () => {
    await sender({ serviceAccountPath: join(dir, 'absent.json') }).sendEach([message('a')]);
    expect(fake.received()[0]?.project).toBe('loopback-project');
  });

  it('lets many senders live in one process, each closed on its own', async () => {
    const [one, two] = [sender(), sender()];
    await two.close();
    expect(await one.sendEach([message('a')])).toEqual([{ outcome: 'sent' }]);
    await expect(two.sendEach([message('b')])).rejects.toThrow(/closed/);
    await two.close();
  });

  it('never logs a token, a title, a body or a data value', async () => {
    const { logger, text } = logCapture();
    fake.failToken('secret-token-unregistered', 'unregistered');
    fake.failToken('secret-token-invalid', 'invalid-token');
    fake.failToken('secret-token-payload', 'invalid-payload');
    fake.failToken('secret-token-quota', 'quota');
    fake.failToken('secret-token-internal', 'internal');
    const tokens = [
      'secret-token-ok',
      'secret-token-unregistered',
      'secret-token-invalid',
      'secret-token-payload',
      'secret-token-quota',
      'secret-token-internal',
    ];
    const s = sender({ logger });
    await s.sendEach(
      tokens.map((token) => ({
        token,
        notification: { title: 'secret-title', body: 'secret-body' },
        data: { note: 'secret-data' },
      })),
    );
    const closed = await startFakeFcm();
    await closed.close();
    await sender({ baseUrl: closed.url, logger }).sendEach([
      { token: 'secret-token-net', notification: { title: 'secret-title', body: 'secret-body' }, data: {} },
    ]);
    const logs = text();
    expect(logs).toContain('messaging/registration-token-not-registered');
    expect(logs).toContain('app/network-error');
    expect(logs).not.toMatch(/secret-/);
  });
});

describe('production sender', () => {
  it('starts from a valid service account without reaching the network, and closes', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const s = createMobileSender({ serviceAccountPath: accountPath, logger: pino({ level: 'silent' }) });
    await s.close();
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses a missing or broken service account with the reason', () => {
    const logger = pino({ level: 'silent' });
    expect(() => createMobileSender({ serviceAccountPath: join(dir, 'absent.json'), logger })).toThrow(
      'FCM service account: file not readable (ENOENT)',
    );
  });
});

describe('validateServiceAccount', () => {
  const file = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  it('accepts a service account and names its project', () => {
    expect(validateServiceAccount(accountPath)).toEqual({ ok: true, projectId: PROJECT });
  });

  it('names what is wrong, never the key', async () => {
    const key = '-----BEGIN PRIVATE KEY-----\nnot-really-a-key\n-----END PRIVATE KEY-----\n';
    const account = { type: 'service_account', project_id: 'p', client_email: 'e@p.iam', private_key: key };
    const cases: [string, string, string][] = [
      ['not-json.json', `{"private_key": "${'x'.repeat(20)}`, 'file is not JSON'],
      ['array.json', '[1, 2]', 'file is not a JSON object'],
      [
        'wrong-type.json',
        JSON.stringify({ ...account, type: 'authorized_user' }),
        'not a service account: missing or wrong type',
      ],
      [
        'no-email.json',
        JSON.stringify({ ...account, client_email: undefined }),
        'not a service account: missing or wrong client_email',
      ],
      [
        'no-key.json',
        JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'e', private_key: 5 }),
        'not a service account: missing or wrong private_key',
      ],
      ['bad-pem.json', JSON.stringify(account), 'private_key is not a PEM private key'],
    ];
    for (const [name, content, reason] of cases) {
      const result = validateServiceAccount(await file(name, content));
      expect(result, name).toEqual({ ok: false, reason });
    }
    expect(validateServiceAccount(join(dir, 'absent.json'))).toEqual({
      ok: false,
      reason: 'file not readable (ENOENT)',
    });
    expect(validateServiceAccount(dir)).toEqual({ ok: false, reason: 'file not readable (EISDIR)' });
  });
});

describe('classifyFcmError', () => {
  const invalidArgument = (data: unknown) => ({
    code: 'messaging/invalid-argument',
    message: 'x',
    httpResponse: { status: 400, headers: {}, data },
  });

  it('rejects an invalid-argument that names the token by field or by message, and only that', () => {
    const byField = {
      error: {
        message: 'Request contains an invalid argument.',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'message.token' }],
          },
        ],
      },
    };
    const byMessage = { error: { message: 'The registration token is not a valid FCM registration token' } };
    const other = { error: { message: "Invalid value at 'message.data[0].value'" } };
    expect(classifyFcmError(invalidArgument(byField)).outcome).toBe('rejected');
    expect(classifyFcmError(invalidArgument(byMessage)).outcome).toBe('rejected');
    expect(classifyFcmError(invalidArgument(other)).outcome).toBe('failed');
    // Refused before sending (firebase-admin's own check): no response, nothing about the token.
    expect(classifyFcmError({ code: 'messaging/invalid-argument', message: 'x' }).outcome).toBe('failed');
  });

  it('retries quota, 5xx, network and credential failures; fails the rest', () => {
    for (const code of [
      'messaging/quota-exceeded',
      'messaging/server-unavailable',
      'messaging/unavailable',
      'app/network-timeout',
      'app/invalid-credential',
    ]) {
      expect(classifyFcmError({ code }), code).toEqual({ outcome: 'retry', code });
    }
    expect(classifyFcmError({ code: 'messaging/invalid-payload' })).toEqual({
      outcome: 'failed',
      code: 'messaging/invalid-payload',
    });
    expect(classifyFcmError({ code: 'messaging/mismatched-credential' }).outcome).toBe('failed');
    expect(classifyFcmError(new Error('no code'))).toEqual({ outcome: 'failed', code: 'unknown-error' });
    expect(classifyFcmError(undefined)).toEqual({ outcome: 'failed', code: 'unknown-error' });
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('12')).toBe(12_000);
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(parseRetryAfter(inAMinute)).toBeGreaterThan(55_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
