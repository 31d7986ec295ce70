import { describe, expect, it } from 'vitest';
import { clientIp } from '../../src/http/plugins/client-ip.ts';
import { type RunningApp, startApp } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';

describe('clientIp', () => {
  it.each([
    ['no proxy: the socket address, whatever the header says', '203.0.113.9', 0, '10.0.0.1'],
    ['no header behind a proxy: the socket address', undefined, 1, '10.0.0.1'],
    ['one hop: the rightmost entry', '198.51.100.7, 203.0.113.9', 1, '203.0.113.9'],
    ['two hops: the second from the right', '198.51.100.7, 203.0.113.9, 192.0.2.1', 2, '203.0.113.9'],
    ['a spoofed left part is ignored', 'spoofed, 1.2.3.4, 203.0.113.9', 1, '203.0.113.9'],
    ['fewer entries than hops: the leftmost', '203.0.113.9', 3, '203.0.113.9'],
    ['IPv6 entries', '2001:db8::1, 2001:db8::2', 1, '2001:db8::2'],
    ['a non-address entry falls back to the socket', '203.0.113.9, not-an-ip', 1, '10.0.0.1'],
    ['an empty header falls back to the socket', ' , ', 1, '10.0.0.1'],
  ] as const)('%s', (_name, header, hops, expected) => {
    expect(clientIp(header, '10.0.0.1', hops)).toBe(expected);
  });

  it('joins repeated X-Forwarded-For headers in order', () => {
    expect(clientIp(['198.51.100.7', '203.0.113.9'], '10.0.0.1', 1)).toBe('203.0.113.9');
  });
});

// Over HTTP the client IP decides which rate-limit bucket an anonymous caller lands in.
describe('client IP over HTTP', () => {
  const db = useTestDatabase();

  const anonymous = (running: RunningApp, forwardedFor: string) =>
    fetch(`${running.url}/api/settings/notifications`, { headers: { 'x-forwarded-for': forwardedFor } });

  it('with TRUST_PROXY_HOPS=1 each forwarded client has its own bucket', async () => {
    const running = await startApp({
      db,
      env: { TRUST_PROXY_HOPS: '1', API_RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      const a = [
        await anonymous(running, '203.0.113.1'),
        await anonymous(running, '203.0.113.1'),
        await anonymous(running, '203.0.113.1'),
      ];
      expect(a.map((r) => r.status)).toEqual([401, 401, 429]);
      expect((await anonymous(running, '203.0.113.2')).status).toBe(401);
      // The entry a client could forge (left of the proxy's) does not pick the bucket.
      expect((await anonymous(running, '198.51.100.1, 203.0.113.1')).status).toBe(429);
    } finally {
      await running.close();
    }
  });

  it('without proxy hops the header is ignored and the socket address decides', async () => {
    const running = await startApp({ db, env: { API_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const statuses = [];
      for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
        statuses.push((await anonymous(running, ip)).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await running.close();
    }
  });
});
