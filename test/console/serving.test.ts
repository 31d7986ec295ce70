import { describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/http/routes/console.ts';
import { useRunningApp } from '../support/app.ts';

// What the service answers under /console, read over HTTP as a browser would.
const used = useRunningApp();
const url = () => used.running.url;

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(url() + path, { headers });
  return { res, body: await res.text() };
}

describe('the console under /console', () => {
  it('serves the page with a strict CSP and no inline script or style', async () => {
    const { res, body } = await get('/console');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(body).toContain('<div id="root">');
    // Every script is a file of the console's own; no inline script, style element or style attribute.
    const scripts = [...body.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/\bsrc="\/console\/assets\/[^"]+\.js"/);
    expect(body).not.toMatch(/<style\b|\sstyle=/);
    expect(body).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  it("answers the console's own routes with the same page, for its router to take over", async () => {
    const page = await get('/console');
    for (const path of [
      '/console/',
      '/console/sign-in',
      '/console/channels/6f1c2c1e-0000-4000-8000-000000000000',
    ]) {
      const { res, body } = await get(path);
      expect(res.status).toBe(200);
      expect(body).toBe(page.body);
    }
  });

  it('serves the hashed assets for a year, and a missing one as a 404 problem', async () => {
    const { body } = await get('/console');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(body)?.[1] ?? '';
    const asset = await get(script);
    expect(asset.res.status).toBe(200);
    expect(asset.res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);

    const missing = await get('/console/assets/index-00000000.js');
    expect(missing.res.status).toBe(404);
    expect(missing.res.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'not_found' });
  });

  it('answers 304 to the ETag it gave', async () => {
    const first = await get('/console');
    const etag = first.res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get('/console/channels', { 'if-none-match': etag });
    expect(again.res.status).toBe(304);
    expect(again.body).toBe('');
  });
});
