import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError } from '../../src/lib/error-text.ts';
import { chooseLogFormat, createLogger } from '../../src/http/logger.ts';
import { LogCapture, type RunningApp, startApp, TEST_SECRETS } from '../support/app.ts';
import { adminCall, createTestAdmin, loginToken, postLogin, uniqueEmail } from '../support/admin.ts';
import { createTestDatabase, type TestDatabase, useTestDatabase } from '../support/database.ts';
import { nowSeconds, signJwt } from '../support/jwt.ts';
import { spawnService } from '../support/process.ts';

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

/** The JSON log lines `running` wrote, parsed. */
const logLines = (): Record<string, unknown>[] =>
  running.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('outbound provider calls', () => {
  it('carry the id of the request that made them, and none outside a request', async () => {
    const reqId = 'outbound-trace-5e21';
    const token = signJwt({ sub: 'outbound-user', exp: nowSeconds() + 600 }, TEST_SECRETS.JWT_SECRET);
    // A JSON body that arrives in two parts, the second later: the handler runs once its end was read.
    const body = Buffer.from(JSON.stringify({ text: 'Hello from the outbound trace' }));
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `${running.url}/api/conversations`,
        {
          method: 'POST',
          agent: false,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': body.length,
            'x-request-id': reqId,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            resolve(res.statusCode);
          });
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 10));
      setTimeout(() => req.end(body.subarray(10)), 50);
    });
    expect(status).toBe(201);

    const calls = logLines().filter((l) => l['provider'] === 'intercom' && l['msg'] === 'intercom call');
    const traced = calls.filter((l) => l['reqId'] === reqId);
    // The contact lookup (or creation) and the conversation, at least.
    expect(traced.map((l) => l['route'])).toContain('/conversations');
    expect(traced.length).toBeGreaterThanOrEqual(2);
    // The request's own line carries the same id.
    expect(logLines().some((l) => l['reqId'] === reqId && l['msg'] === 'request completed')).toBe(true);
    // Once per line, not a second copy beside fastify's.
    for (const line of running.logs.lines.filter((l) => l.includes(reqId))) {
      expect(line.split('"reqId"').length).toBe(2);
    }

    // The same client called from no request (as the inbox and processor workers do): no reqId.
    const before = running.logs.lines.length;
    await running.support.intercom.me();
    const outside = running.logs.lines
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l['provider'] === 'intercom');
    expect(outside.map((l) => l['route'])).toContain('/me');
    for (const line of outside) expect(line).not.toHaveProperty('reqId');
  });
});

describe('the log format', () => {
  it('is pretty only for development at a terminal, unless LOG_FORMAT says', () => {
    expect(chooseLogFormat('auto', 'development', true)).toBe('pretty');
    expect(chooseLogFormat('auto', 'development', false)).toBe('json');
    expect(chooseLogFormat('auto', 'production', true)).toBe('json');
    expect(chooseLogFormat('auto', 'test', true)).toBe('json');
    expect(chooseLogFormat('pretty', 'production', false)).toBe('pretty');
    expect(chooseLogFormat('json', 'development', true)).toBe('json');
  });

  it('falls back to JSON with a one-line note when pino-pretty is not installed', async () => {
    // As in the production image, which has no dev dependencies: resolving pino-pretty fails.
    const hook = `import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) {
  if (specifier !== 'pino-pretty') return next(specifier, context);
  throw Object.assign(new Error("Cannot find package 'pino-pretty'"), { code: 'ERR_MODULE_NOT_FOUND' });
} });`;
    const script = `const { createLogger, logDestination } = await import('./src/http/logger.ts');
createLogger('info', await logDestination('pretty')).info({ n: 1 }, 'still logging');`;
    const run = spawnService(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(hook)}`,
        '--input-type=module',
        '--eval',
        script,
      ],
      {},
    );
    expect(await run.exited).toBe(0);
    expect(JSON.parse(run.stdout())).toMatchObject({ level: 30, n: 1, msg: 'still logging' });
    expect(run.stderr()).toBe(
      'Pretty logs need pino-pretty, a development dependency that is not installed; logging JSON.\n',
    );
  });
});

describe('the service process, stdout piped', () => {
  const serviceDb = useTestDatabase();
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-log-streams-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Starts src/main.ts in development, serves one request, stops it; its two streams. */
  const runService = async (env: Record<string, string>) => {
    const run = spawnService(process.execPath, ['src/main.ts'], {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DATABASE_URL: serviceDb.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    });
    try {
      const [, url] = await run.waitFor(/Service listening on (http:\/\/\S+)/, 60_000);
      await run.waitFor(/export TOKEN=\S+\n(.*\n){2}/, 5_000);
      // A request line (the health routes log nothing below warn).
      expect((await fetch(`${url ?? ''}/api/settings/notifications`)).status).toBe(401);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    return { stdout: run.stdout(), stderr: run.stderr() };
  };

  it('writes JSON lines only to stdout, and the banner to stderr', async () => {
    const { stdout, stderr } = await runService({});
    const lines = stdout.split('\n').filter((line) => line !== '');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((l) => l['msg'])).toEqual(
      expect.arrayContaining(['first owner created', 'request completed', 'shutting down']),
    );
    for (const line of parsed) {
      expect(typeof line['level']).toBe('number');
      expect(typeof line['msg']).toBe('string');
    }
    // The banner, the demo token with it, is on stderr and nowhere in the log stream.
    expect(stderr).toMatch(/^\nService listening on http:\/\/127\.0\.0\.1:\d+\n {2}API docs: /);
    expect(stderr).toContain('export TOKEN=eyJ');
    expect(stdout).not.toContain('export TOKEN');
    expect(stdout).not.toContain('Service listening on');
    expect(stderr.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
  }, 90_000);

  it('writes human lines, not JSON and not coloured on a pipe, with LOG_FORMAT=pretty', async () => {
    const { stdout, stderr } = await runService({ LOG_FORMAT: 'pretty' });
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.some((line) => /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: request completed$/.test(line))).toBe(
      true,
    );
    expect(lines.some((line) => line.startsWith('{"level"'))).toBe(false);
    expect(stdout).not.toContain('\u001b[');
    expect(stdout).not.toContain('export TOKEN');
    expect(stderr).toContain('Service listening on');
    expect(stderr).toContain('export TOKEN=eyJ');
  }, 90_000);
});
