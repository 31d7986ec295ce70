import { connect } from 'node:net';
import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { userHeaders } from '../support/comments.ts';
import { nowSeconds, signJwt } from '../support/jwt.ts';
import { type FormPart, multipartBytes } from '../support/openapi-fuzz.ts';
import { postThrough } from '../support/posts.ts';
import { useRecordedStorage } from '../support/storage.ts';

// Bad input of the kinds the contract fuzz cannot reach by walking the document: framework errors
// raised before any route runs, token claims, and each way a multipart body can be broken. Each is a
// 4xx problem, and nothing is stored.

const recorded = useRecordedStorage();
const used = useRunningApp({
  get storage() {
    return recorded.storage;
  },
});
const url = () => used.running.url;
let admin = '';
let channelId = '';
let postId = '';

beforeAll(async () => {
  admin = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  channelId = (
    (await adminCall(url(), admin, 'POST', '/admin/channels', { title: 'Hard' })).body as { id: string }
  ).id;
  postId = await postThrough(url(), admin, channelId, ['publish']);
});

const count = (table: 'files' | 'event_store') =>
  used.db.pool.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM ${sql.identifier([table === 'event_store' ? 'events' : table])}`,
  );

async function expectProblem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  return body;
}

describe('framework errors are problems', () => {
  it('a path parameter longer than the router takes: 414', async () => {
    // Longer than the longest user id, every character percent-encoded UTF-8, could be (src/http/app.ts).
    const res = await fetch(`${url()}/api/channel/${'x'.repeat(3_100)}/posts`, { headers: userHeaders('u') });
    await expectProblem(res, 414, 'bad_request');
  });

  it('a path that is not valid percent-encoded UTF-8: 400', async () => {
    const res = await fetch(`${url()}/api/channel/%E0%A4%A/posts`, { headers: userHeaders('u') });
    await expectProblem(res, 400, 'bad_request');
  });

  it('headers over Node’s limit: 431 as a problem, then the connection closes', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(url()).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('close', () => {
        resolve(text);
      });
      socket.on('error', reject);
      socket.write(`GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      status: 431,
      code: 'bad_request',
    });
  });

  it('an empty body with a JSON content type is no body: taken where none is needed, refused where one is', async () => {
    const reaction = await fetch(
      `${url()}/api/channel/${channelId}/posts/${postId}/reactions/${encodeURIComponent('👍')}`,
      {
        method: 'PUT',
        headers: { ...userHeaders('empty-body'), 'content-type': 'application/json' },
        body: '',
      },
    );
    expect(reaction.status).toBe(200);
    const conversation = await fetch(`${url()}/api/conversations`, {
      method: 'POST',
      headers: { ...userHeaders('empty-body'), 'content-type': 'application/json' },
      body: '',
    });
    await expectProblem(conversation, 400, 'validation_failed');
  });
});

describe('text at the edge', () => {
  it.each([
    ['a NUL in `sub`', { sub: 'ann\u0000' }],
    ['a lone surrogate in `userId`', { userId: 'ann\ud800' }],
    ['a control character in `userId`', { userId: 'ann\u001b' }],
  ])('a signed token with %s is a 401', async (_name, claims) => {
    const token = signJwt({ ...claims, exp: nowSeconds() + 60 }, TEST_SECRETS.JWT_SECRET);
    const res = await fetch(`${url()}/api/unread`, { headers: { authorization: `Bearer ${token}` } });
    await expectProblem(res, 401, 'unauthenticated');
  });

  it('a comment with a NUL, as JSON or as a form field: 400 naming the field, nothing stored', async () => {
    const events = await count('event_store');
    const json = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}/comments`, {
      method: 'POST',
      headers: { ...userHeaders('nul'), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi\u0000there' }),
    });
    const refused = await expectProblem(json, 400, 'validation_failed');
    expect(String(refused.detail)).toContain('NUL');
    const form = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}/comments`, {
      method: 'POST',
      headers: { ...userHeaders('nul'), 'content-type': 'multipart/form-data; boundary=b0' },
      body: multipartBytes('b0', [{ name: 'text', value: 'hi\u0000there' }]),
    });
    await expectProblem(form, 400, 'validation_failed');
    expect(await count('event_store')).toBe(events);
  });

  it('a channel title with a line break is refused; a description keeps its line breaks', async () => {
    const title = await adminCall(url(), admin, 'POST', '/admin/channels', { title: 'Two\nlines' });
    expect(title.status).toBe(400);
    expect(title.body).toMatchObject({ errors: [{ path: 'body.title' }] });
    const made = await adminCall(url(), admin, 'POST', '/admin/channels', {
      title: 'One line',
      description: 'First\nSecond',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ description: 'First\nSecond' });
  });
});

describe('broken multipart bodies: a 4xx problem and nothing stored', () => {
  const upload = (body: Buffer | string, contentType: string) =>
    fetch(`${url()}/api/files/upload`, {
      method: 'POST',
      headers: { ...userHeaders('uploader'), 'content-type': contentType },
      body,
    });
  const file: FormPart = { name: 'file', value: 'hello\n', filename: 'a.txt' };
  const form = (parts: FormPart[], close = true) => multipartBytes('bnd', parts, close);

  it.each([
    ['no boundary', () => upload(form([file]), 'multipart/form-data'), 400],
    ['a wrong boundary', () => upload(form([file]), 'multipart/form-data; boundary=other'), 400],
    ['a truncated body', () => upload(form([file], false), 'multipart/form-data; boundary=bnd'), 400],
    [
      'too many parts',
      () =>
        upload(
          form([file, ...Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, value: 'x' }))]),
          'multipart/form-data; boundary=bnd',
        ),
      400,
    ],
    [
      'two file parts',
      () => upload(form([file, { ...file, filename: 'b.txt' }]), 'multipart/form-data; boundary=bnd'),
      400,
    ],
    [
      'no file part',
      () => upload(form([{ name: 'note', value: 'x' }]), 'multipart/form-data; boundary=bnd'),
      400,
    ],
  ] as const)('upload with %s', async (_name, send, status) => {
    const before = { files: await count('files'), writes: recorded.writes.length };
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await count('files')).toBe(before.files);
    expect(recorded.writes.length).toBe(before.writes);
  });

  it('a comment whose image is followed by another part: 400, no comment and no image kept', async () => {
    const events = await count('event_store');
    const keys = (await recorded.keys()).length;
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const res = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}/comments`, {
      method: 'POST',
      headers: { ...userHeaders('two-images'), 'content-type': 'multipart/form-data; boundary=bnd' },
      body: form([
        { name: 'text', value: 'look' },
        { name: 'image', value: png, filename: 'a.png' },
        { name: 'image', value: png, filename: 'b.png' },
      ]),
    });
    await expectProblem(res, 400, 'validation_failed');
    expect(await count('event_store')).toBe(events);
    expect((await recorded.keys()).length).toBe(keys);
  });

  it('a comment form field over its limit: 4xx, nothing stored', async () => {
    const events = await count('event_store');
    const res = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}/comments`, {
      method: 'POST',
      headers: { ...userHeaders('long-field'), 'content-type': 'multipart/form-data; boundary=bnd' },
      body: form([{ name: 'text', value: 'x'.repeat(20_000) }]),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await count('event_store')).toBe(events);
  });
});
