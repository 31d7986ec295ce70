import { describe, expect, it } from 'vitest';
import { envSchema } from '../../../../src/config.ts';
import { INTERCOM_REGION_URLS, intercomBaseUrl } from '../../../../src/integrations/intercom/base-url.ts';
import { ProviderError, type ProviderErrorInit } from '../../../../src/integrations/intercom/errors.ts';
import { providerProblem } from '../../../../src/integrations/intercom/problem.ts';

const config = (env: Record<string, string>) => envSchema.parse(env);

describe('base URL', () => {
  it('follows SUPPORT_REGION', () => {
    expect(intercomBaseUrl(config({}))).toBe('https://api.intercom.io');
    expect(intercomBaseUrl(config({ SUPPORT_REGION: 'us' }))).toBe(INTERCOM_REGION_URLS.us);
    expect(intercomBaseUrl(config({ SUPPORT_REGION: 'eu' }))).toBe('https://api.eu.intercom.io');
    expect(intercomBaseUrl(config({ SUPPORT_REGION: 'au', NODE_ENV: 'production' }))).toBe(
      'https://api.au.intercom.io',
    );
  });

  it('takes SUPPORT_BASE_URL outside production and refuses it in production', () => {
    const sandbox = { SUPPORT_BASE_URL: 'http://127.0.0.1:4010/', SUPPORT_REGION: 'eu' };
    expect(intercomBaseUrl(config({ ...sandbox, NODE_ENV: 'development' }))).toBe('http://127.0.0.1:4010');
    expect(intercomBaseUrl(config({ ...sandbox, NODE_ENV: 'test' }))).toBe('http://127.0.0.1:4010');
    expect(() => intercomBaseUrl(config({ ...sandbox, NODE_ENV: 'production' }))).toThrow(
      /SUPPORT_BASE_URL is refused in production/,
    );
  });
});

describe('providerProblem', () => {
  const error = (init: Omit<ProviderErrorInit, 'method' | 'route'>) =>
    new ProviderError({ ...init, method: 'GET', route: '/me' });

  it('answers 503 provider_unavailable with Retry-After in whole seconds for outages and limits', () => {
    expect(providerProblem(error({ kind: 'unavailable', reason: 'timeout' }))).toEqual({
      status: 503,
      code: 'provider_unavailable',
      detail: expect.any(String) as unknown,
      headers: { 'retry-after': '5' },
    });
    expect(
      providerProblem(error({ kind: 'unavailable', reason: 'breaker_open', retryAfterMs: 7_200 })).headers,
    ).toEqual({ 'retry-after': '8' });
    expect(providerProblem(error({ kind: 'rate_limited', retryAfterMs: 10 }))).toMatchObject({
      status: 503,
      code: 'provider_unavailable',
      headers: { 'retry-after': '1' },
    });
    expect(providerProblem(error({ kind: 'unauthorized', status: 401 }))).toMatchObject({
      status: 503,
      code: 'provider_unavailable',
      headers: { 'retry-after': '60' },
    });
  });

  it('maps not_found, conflict and invalid to their problem codes without the provider message', () => {
    const secret = 'A contact matching those details already exists with id=42';
    expect(providerProblem(error({ kind: 'not_found', status: 404 }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const conflict = providerProblem(error({ kind: 'conflict', status: 409, providerMessage: secret }));
    expect(conflict).toMatchObject({ status: 409, code: 'conflict', headers: {} });
    expect(JSON.stringify(conflict)).not.toContain('already exists');
    expect(providerProblem(error({ kind: 'invalid', status: 400 }))).toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
  });
});
