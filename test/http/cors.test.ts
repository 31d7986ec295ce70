import { describe, expect, it } from 'vitest';
import { originAllowed } from '../../src/http/plugins/cors.ts';
import { type EnvOverrides, type RunningApp, startApp } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();

async function preflight(running: RunningApp, origin: string): Promise<Response> {
  return fetch(`${running.url}/api/settings/notifications`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization,content-type',
    },
  });
}

async function withApp(env: EnvOverrides, fn: (running: RunningApp) => Promise<void>): Promise<void> {
  const running = await startApp({ db, env });
  try {
    await fn(running);
  } finally {
    await running.close();
  }
}

describe('CORS over HTTP', () => {
  it('allows exactly the configured origins', async () => {
    await withApp({ CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' }, async (running) => {
      const ok = await preflight(running, 'https://admin.example.com');
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
      expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');

      const get = await fetch(`${running.url}/health/live`, {
        headers: { origin: 'https://app.example.com' },
      });
      expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(get.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('etag');

      for (const refused of [
        'https://evil.example.com',
        'https://app.example.com.evil.com',
        'http://app.example.com',
        'null',
        'http://localhost:5173',
      ]) {
        const res = await preflight(running, refused);
        expect(res.headers.get('access-control-allow-origin'), refused).toBeNull();
      }
    });
  });

  it('allows any localhost origin in development when none is configured, never null', async () => {
    await withApp({ NODE_ENV: 'development' }, async (running) => {
      for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'https://localhost']) {
        expect((await preflight(running, origin)).headers.get('access-control-allow-origin'), origin).toBe(
          origin,
        );
      }
      for (const origin of ['null', 'http://localhost.evil.com', 'https://example.com']) {
        expect(
          (await preflight(running, origin)).headers.get('access-control-allow-origin'),
          origin,
        ).toBeNull();
      }
    });
  });
});

describe('originAllowed', () => {
  it.each([
    ['https://a.example', ['https://a.example'], true, true],
    ['https://b.example', ['https://a.example'], true, false],
    ['null', ['null'], false, false],
    ['http://localhost:3000', [], false, true],
    ['http://[::1]:3000', [], false, true],
    ['http://localhost:3000', [], true, false],
    ['http://localhost:3000', ['https://a.example'], false, false],
  ] as const)('%s with %j (production %s) -> %s', (origin, allowed, production, expected) => {
    expect(originAllowed(origin, allowed, production)).toBe(expected);
  });
});
