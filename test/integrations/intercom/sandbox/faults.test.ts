import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  OPERATOR_PREFIX,
  type IntercomSandbox,
} from '../../../../src/integrations/intercom/sandbox/index.ts';
import { call, startSandbox, TOKEN } from './harness.ts';

let sandbox: IntercomSandbox;
let clock: number;

beforeEach(async () => {
  clock = Date.UTC(2025, 0, 1, 0, 0, 3);
  sandbox = await startSandbox({ now: () => clock, rateLimit: { perWindow: 3, windowSeconds: 10 } });
});
afterEach(async () => {
  await sandbox.close();
});

const windowEnd = () => String(Date.UTC(2025, 0, 1, 0, 0, 10) / 1000);

it('answers 429 rate_limit_exceeded past the window limit, with Reset in unix seconds and no Retry-After', async () => {
  const remaining = [];
  for (let index = 0; index < 3; index += 1)
    remaining.push((await call(sandbox, 'GET', '/me')).headers.get('x-ratelimit-remaining'));
  expect(remaining).toEqual(['2', '1', '0']);
  const limited = await call(sandbox, 'GET', '/me');
  expect(limited.status).toBe(429);
  expect(limited.body.errors[0].code).toBe('rate_limit_exceeded');
  expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(limited.headers.get('x-ratelimit-reset')).toBe(windowEnd());
  expect(limited.headers.get('retry-after')).toBeNull();
  clock += 7_000;
  expect((await call(sandbox, 'GET', '/me')).status).toBe(200);
});

it('fails the next N matching calls on demand, writes only when asked', async () => {
  sandbox.operator.failNext(2, { status: 503, method: 'POST' });
  expect((await call(sandbox, 'GET', '/me')).status).toBe(200);
  const failed = await call(sandbox, 'POST', '/tags', { name: 'a' });
  expect(failed.status).toBe(503);
  expect(failed.body).toMatchObject({ type: 'error.list', errors: [{ code: 'service_unavailable' }] });
  expect(failed.headers.get('x-ratelimit-limit')).toBe('3');
  expect((await call(sandbox, 'POST', '/tags', { name: 'a' })).status).toBe(503);
  expect((await call(sandbox, 'POST', '/tags', { name: 'a' })).status).toBe(200);
});

it('fails every call for a while, with a 429 that carries the rate-limit headers', async () => {
  sandbox.operator.failFor(5_000, { status: 429 });
  const limited = await call(sandbox, 'GET', '/me');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('x-ratelimit-reset')).toBe(windowEnd());
  expect(limited.headers.get('retry-after')).toBeNull();
  clock += 5_000;
  expect((await call(sandbox, 'GET', '/me')).status).toBe(200);
});

it('takes faults over HTTP on the operator side, which needs the token', async () => {
  const operator = (method: string, path: string, body?: unknown, token = TOKEN) =>
    fetch(`${sandbox.url}${OPERATOR_PREFIX}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : null,
    });
  expect((await operator('POST', '/faults', { status: 500 }, 'wrong')).status).toBe(401);
  expect((await operator('POST', '/faults', { status: 500, count: 1, pathPrefix: '/me' })).status).toBe(204);
  expect((await call(sandbox, 'GET', '/me')).status).toBe(500);
  expect((await operator('POST', '/faults', { status: 502, forMs: 60_000 })).status).toBe(204);
  expect((await call(sandbox, 'GET', '/me')).status).toBe(502);
  expect((await operator('DELETE', '/faults')).status).toBe(204);
  expect((await call(sandbox, 'GET', '/me')).status).toBe(200);
});
