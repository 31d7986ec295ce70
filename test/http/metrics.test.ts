import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
import { lintExposition, lintFamily, parseExposition } from '../support/promlint.ts';

const service = useRunningApp({
  env: { API_RATE_LIMIT_PER_MINUTE: '3', ADMIN_LOGIN_MAX_FAILURES: '1' },
});
const api = clientApi(() => service.running.url);
const scrape = async () => (await fetch(`${service.running.url}/metrics`)).text();

/** The value of the one series of `name` whose labels are exactly `labels` (0 when it is not there). */
function valueOf(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name || match[2] === undefined) continue;
    if (match[2].split(',').sort().join(',') === wanted) return Number(match[3]);
  }
  return 0;
}

/** Every series of `name` with its labels. */
function seriesOf(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .map((line) => /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line))
    .filter((m) => m?.[1] === name)
    .map((m) => ({
      labels: Object.fromEntries(
        [...(m?.[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l): [string, string] => [
          l[1] ?? '',
          l[2] ?? '',
        ]),
      ),
      value: Number(m?.[3]),
    }));
}

describe('provider_requests_total', () => {
  it('counts every Intercom call by route template and status, as many as the sandbox received', async () => {
    const sandbox = requireSandbox(service.running.support.sandbox);
    const opened = await api.post('metrics-chat', '/conversations', { text: 'Hello from metrics' });
    expect(opened.status).toBe(201);
    // Intercom answers the next write with its rate limit: the user gets a 503, the counter a 429.
    sandbox.operator.failNext(1, { status: 429, method: 'POST', pathPrefix: '/conversations' });
    const refused = await api.post('metrics-chat-2', '/conversations', { text: 'Busy?' });
    expect(refused.status).toBe(503);

    // The same calls on both sides (the reconciler may add a search at any time: read until they agree).
    const { series } = await eventually(
      async () => {
        const intercom = seriesOf(await scrape(), 'provider_requests_total').filter(
          (s) => s.labels.provider === 'intercom',
        );
        return { series: intercom, received: sandbox.calls.length };
      },
      ({ series: counted, received }) => counted.reduce((sum, s) => sum + s.value, 0) === received,
    );
    expect(series.find((s) => s.labels.status === '429')?.labels).toMatchObject({
      method: 'POST',
      route: '/conversations',
    });
    expect(series.some((s) => s.labels.method === 'POST' && s.labels.status === '200')).toBe(true);
    // Templates only: no contact, conversation or user id in a label.
    for (const s of series) expect(s.labels.route).toMatch(/^(\/([a-z_]+|\{\w+\}))+$/);
  });
});

describe('http_rate_limited_total', () => {
  it('counts the API limit’s 429s by route and code', async () => {
    const headers = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'metrics-busy'));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      statuses.push((await fetch(`${service.running.url}/api/unread`, { headers })).status);
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    const text = await scrape();
    const labels = { method: 'GET', route: '/api/unread', code: 'rate_limited', limit: 'api' };
    expect(valueOf(text, 'http_rate_limited_total', labels)).toBe(2);
    expect(
      valueOf(text, 'http_requests_total', { method: 'GET', route: '/api/unread', status_code: '429' }),
    ).toBe(2);
  });

  it('counts a route’s own limit (the admin login lockout) apart from the API limit', async () => {
    const login = () =>
      fetch(`${service.running.url}/admin/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password-at-all' }),
      });
    expect((await login()).status).toBe(401);
    expect((await login()).status).toBe(429);
    const text = await scrape();
    const labels = { method: 'POST', route: '/admin/auth/login', code: 'login_locked', limit: 'route' };
    expect(valueOf(text, 'http_rate_limited_total', labels)).toBe(1);
  });
});

describe('metric names', () => {
  it('the promlint port finds what promtool finds', () => {
    const bad = [
      '# TYPE jobs_done counter',
      'jobs_done 1',
      '# HELP queue_depth_total Jobs waiting',
      '# TYPE queue_depth_total gauge',
      'queue_depth_total 3',
      '# HELP request_time_ms Time',
      '# TYPE request_time_ms histogram',
      'request_time_ms_bucket{le="+Inf",routeName="/x"} 1',
      'request_time_ms_sum{routeName="/x"} 1',
      'request_time_ms_count{routeName="/x"} 1',
      '# HELP upload_kilobytes Size',
      '# TYPE upload_kilobytes gauge',
      'upload_kilobytes{le="1"} 2',
    ].join('\n');
    const problems = lintExposition(bad).map((p) => `${p.metric}: ${p.text}`);
    expect(problems).toEqual([
      'jobs_done: no help text',
      'jobs_done: counter metrics should have "_total" suffix',
      'queue_depth_total: non-counter metrics should not have "_total" suffix',
      "request_time_ms: label names should be written in 'snake_case' not 'camelCase'",
      'request_time_ms: metric names should not contain abbreviated units',
      'upload_kilobytes: use base unit "bytes" instead of "kilobytes"',
      'upload_kilobytes: non-histogram metrics should not have "le" label',
    ]);
    const [histogram] = parseExposition(bad).filter((f) => f.name === 'request_time_ms');
    expect(histogram && [...histogram.labelNames]).toEqual(['routeName']);
    expect(
      lintFamily({ name: 'ok_seconds_total', type: 'counter', help: 'x', labelNames: new Set() }),
    ).toEqual([]);
  });

  it('/metrics passes the lint, with every family the service registers', async () => {
    await api.get('metrics-lint', '/settings/notifications');
    const text = await scrape();
    const names = parseExposition(text).map((f) => f.name);
    for (const name of [
      'http_requests_total',
      'http_request_duration_seconds',
      'http_rate_limited_total',
      'provider_requests_total',
      'push_deliveries_total',
      'projection_lag_seconds',
      'processor_dead_letters',
      'support_webhooks_pending',
      'nodejs_active_handles',
    ]) {
      expect(names).toContain(name);
    }
    expect(lintExposition(text)).toEqual([]);
  });

  const promtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
  it.runIf(promtool)(
    '/metrics passes promtool check metrics itself, where promtool is installed',
    async () => {
      const text = await scrape();
      expect(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })).toBe('');
    },
  );
});
