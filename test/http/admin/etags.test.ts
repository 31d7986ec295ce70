import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminSessions } from '../../../src/auth/admin-sessions.ts';
import { adminTokens } from '../../../src/auth/admin-tokens.ts';
import type { DatabasePool } from '../../../src/db/pool.ts';
import { matchesIfNoneMatch } from '../../../src/http/if-none-match.ts';
import { installAdminHooks } from '../../../src/http/routes/admin/index.ts';
import { createTestAdmin, loginToken, type TestAdmin } from '../../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../../support/app.ts';

// Admin reads that are not JSON, as a later export or download would be: behind the same hooks.
function fileRoutes(app: FastifyInstance, { pool }: { pool: DatabasePool }): void {
  void app.register(
    async (scope) => {
      installAdminHooks(scope, {
        pool,
        sessions: adminSessions(pool, adminTokens(TEST_SECRETS.ADMIN_SESSION_SECRET, 60)),
      });
      scope.get('/export.csv', { config: { access: 'signed-in' } }, async (_request, reply) =>
        reply.type('text/csv').send(Readable.from(['id,title\n', '1,News\n'])),
      );
      scope.get('/file', { config: { access: 'signed-in' } }, async (_request, reply) =>
        reply.type('application/octet-stream').send(Buffer.from('bytes')),
      );
    },
    { prefix: '/admin-test' },
  );
}

const used = useRunningApp({ extend: fileRoutes });
const url = () => used.running.url;
let owner: TestAdmin;
let token = '';
beforeAll(async () => {
  owner = await createTestAdmin(used.db.pool, 'owner');
  token = await loginToken(url(), owner);
});

const request = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(url() + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const get = (path: string, headers: Record<string, string> = {}) => request('GET', path, headers);

/** The tag the list answers now, read with a 200. */
async function currentTag(path: string): Promise<string> {
  const res = await get(path);
  expect(res.status).toBe(200);
  return res.headers.get('etag') ?? '';
}

describe('admin reads', () => {
  it('answer a list with an ETag that a browser revalidates', async () => {
    const res = await get('/admin/channels');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^W\/"[\w-]+"$/);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(await res.json()).toHaveProperty('items');
  });

  it('answer 304 with no body while nothing changed, and 200 with a new tag after a change', async () => {
    const etag = await currentTag('/admin/channels');
    const unchanged = await get('/admin/channels', { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(unchanged.headers.get('content-type')).toBeNull();
    expect(unchanged.headers.get('x-request-id')).not.toBeNull();

    const created = await request('POST', '/admin/channels', {}, { title: 'Tagged' });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const changed = await get('/admin/channels', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const list = z.object({ items: z.array(z.object({ id: z.string() })) }).parse(await changed.json());
    expect(list.items.map((c) => c.id)).toContain(id);
  });

  it('tag a read page too', async () => {
    const etag = await currentTag('/admin/me');
    expect((await get('/admin/me', { 'if-none-match': etag })).status).toBe(304);
  });

  it('take the weak and strong forms of the tag, lists of tags and *', async () => {
    const etag = await currentTag('/admin/reasons');
    const strong = etag.replace(/^W\//, '');
    for (const held of [strong, `"elsewhere", ${etag}`, `W/"a,b", ${strong}`, '*']) {
      expect((await get('/admin/reasons', { 'if-none-match': held })).status, held).toBe(304);
    }
    for (const held of ['"elsewhere"', `W/"x", "y"`, strong.slice(1, -1)]) {
      expect((await get('/admin/reasons', { 'if-none-match': held })).status, held).toBe(200);
    }
  });
});

describe('admin answers other than a JSON 200 to a GET', () => {
  it('never carry an ETag or become 304: commands, sign-in, refusals and files', async () => {
    const any = { 'if-none-match': '*' };
    const created = await request('POST', '/admin/channels', any, { title: 'Untagged' });
    expect(created.status).toBe(201);
    const signIn = await fetch(`${url()}/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...any },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('cache-control')).toBeNull();
    const missing = await get('/admin/notices/00000000-0000-4000-8000-000000000000', any);
    expect(missing.status).toBe(404);
    const anonymous = await fetch(`${url()}/admin/channels`, { headers: any });
    expect(anonymous.status).toBe(401);
    const csv = await get('/admin-test/export.csv', any);
    expect(await csv.text()).toBe('id,title\n1,News\n');
    const file = await get('/admin-test/file', any);
    expect(await file.text()).toBe('bytes');
    for (const res of [created, signIn, missing, anonymous, csv, file]) {
      expect(res.status, res.url).not.toBe(304);
      expect(res.headers.get('etag'), res.url).toBeNull();
    }
  });
});

describe('the OpenAPI document', () => {
  const documentSchema = z.object({
    paths: z.record(
      z.string(),
      z.record(
        z.string(),
        z.object({
          'x-download': z.literal(true).optional(),
          parameters: z.array(z.object({ in: z.string(), name: z.string() })).optional(),
          responses: z.record(
            z.string(),
            z.object({ headers: z.record(z.string(), z.unknown()).optional() }),
          ),
        }),
      ),
    ),
  });

  it('declares the 304, the ETag and If-None-Match on every admin GET but a download, and on nothing else of /admin', async () => {
    const document = documentSchema.parse(await (await fetch(`${url()}/openapi.json`)).json());
    const admin = Object.entries(document.paths).filter(([path]) => path.startsWith('/admin/'));
    expect(admin.length).toBeGreaterThan(10);
    for (const [path, item] of admin) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method} ${path}`;
        const takesTag = (operation.parameters ?? []).some(
          (p) => p.in === 'header' && p.name === 'if-none-match',
        );
        // A download of personal data is never tagged (plugins/admin-etags.ts).
        if (method !== 'get' || operation['x-download'] === true) {
          expect('304' in operation.responses, where).toBe(false);
          expect(takesTag, where).toBe(false);
          continue;
        }
        expect(takesTag, where).toBe(true);
        for (const status of ['200', '304']) {
          const headers = Object.keys(operation.responses[status]?.headers ?? {});
          expect(headers, `${where} ${status}`).toContain('ETag');
          // The console polls at its own pace: admin reads promise no X-Poll-Interval.
          expect(headers, `${where} ${status}`).not.toContain('X-Poll-Interval');
        }
      }
    }
  });
});

describe('matchesIfNoneMatch', () => {
  const etag = 'W/"abc"';

  it('compares tags weakly, in lists, with * matching any', () => {
    expect(matchesIfNoneMatch(etag, etag)).toBe(true);
    expect(matchesIfNoneMatch('"abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('W/"abc"', '"abc"')).toBe(true);
    expect(matchesIfNoneMatch(' * ', etag)).toBe(true);
    expect(matchesIfNoneMatch('"x,y", W/"abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('"x",W/"abc"', etag)).toBe(true);
  });

  it('holds nothing for no header, other tags, or a tag without its quotes', () => {
    expect(matchesIfNoneMatch(undefined, etag)).toBe(false);
    expect(matchesIfNoneMatch('', etag)).toBe(false);
    expect(matchesIfNoneMatch('"abcd", W/"ab"', etag)).toBe(false);
    expect(matchesIfNoneMatch('abc', etag)).toBe(false);
    expect(matchesIfNoneMatch('"a, *"', etag)).toBe(false);
  });
});
