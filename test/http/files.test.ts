import { request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fileLinkToken } from '../../src/files/signed-urls.ts';
import { BOMB_SIZE, IMAGE_KINDS, type ImageKind, MIME_OF, imageOf, png } from '../files/images.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { bearer, TEST_SECRETS, type RunningApp, startApp, useRunningApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { sessionToken } from '../support/jwt.ts';
import { postThrough } from '../support/posts.ts';
import { recordingWrites, type TestStorage, testStorages, useRecordedStorage } from '../support/storage.ts';

/** The PNG with an ancillary private chunk (`prVt`) before IEND, so that it is `size` bytes long. */
function pngOfSize(png: Buffer, size: number): Buffer {
  const iend = png.length - 12;
  const data = Buffer.alloc(size - png.length - 12, 0x61);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write('prVt', 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([png.subarray(0, iend), head, data, crc, png.subarray(iend)]);
}

const fixture = (name: string) => readFile(new URL(`../fixtures/files/${name}`, import.meta.url));
const MIB = 1024 * 1024;
// Small caps, so "one byte over" stays cheap: images 1 MiB, other files 2 MiB, video 3 MiB. Images
// at most 64 × 64 pixels (the samples are 16 × 16), so "one pixel over" stays tiny.
const PIXEL_CAP = 64 * 64;
const env = {
  MAX_IMAGE_MB: '1',
  MAX_FILE_MB: '2',
  MAX_VIDEO_MB: '3',
  MAX_IMAGE_PIXELS: String(PIXEL_CAP),
};
/** 4097 pixels: one over the cap. */
const ONE_OVER = [17, 241] as const;
const alice = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'alice'));
const bob = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'bob'));

interface Uploaded {
  id: string;
  name: string;
  contentType: string;
  size: number;
}

describe.each(testStorages())('files on %s storage', (_kind, makeStorage) => {
  let db: TestDatabase;
  let storage: TestStorage;
  let running: RunningApp;
  const writes: string[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    storage = await makeStorage();
    running = await startApp({ db, env, storage: recordingWrites(storage.storage, writes) });
  });
  afterAll(async () => {
    await running.close();
    await storage.cleanup();
    await db.drop();
  });

  const upload = async (bytes: Uint8Array, name: string, headers = alice) => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${running.url}/api/files/upload`, { method: 'POST', headers, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const uploadOk = async (bytes: Uint8Array, name: string, headers = alice) => {
    const answer = await upload(bytes, name, headers);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body as unknown as Uploaded;
  };
  const rows = () =>
    db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM files`);
  const download = (id: string, headers: Record<string, string> = alice) =>
    fetch(`${running.url}/api/files/${id}`, { headers });

  it.each([
    ['python.jpg', 'image/jpeg', 'jpg'],
    ['python.png', 'image/png', 'png'],
    ['python.gif', 'image/gif', 'gif'],
    ['python.webp', 'image/webp', 'webp'],
    ['python.bmp', 'image/bmp', 'bmp'],
    ['sample.pdf', 'application/pdf', 'pdf'],
    ['sample.mp4', 'video/mp4', 'mp4'],
    ['sample.txt', 'text/plain; charset=utf-8', 'txt'],
  ])('takes %s as %s and gives the same bytes back to its owner only', async (name, type, ext) => {
    const bytes = await fixture(name);
    // A misleading name: the bytes decide.
    const uploaded = await uploadOk(bytes, `holiday.exe`);
    expect(uploaded).toMatchObject({ contentType: type, size: bytes.length, name: `holiday.exe.${ext}` });
    const res = await download(uploaded.id);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=holiday.exe.${ext}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toMatch(/^private/);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect((await download(uploaded.id, bob)).status).toBe(403);
  });

  it.each([
    ['program.exe'],
    ['program.elf'],
    ['page.html'],
    ['image.svg'],
    ['steal-cookie.js.txt'],
    ['archive.zip'],
    ['pdf-named.png'],
    ['gif-js-polyglot.gif'],
    ['empty.bin'],
    ['invalid-utf8.txt'],
    ['nul-byte.txt'],
    ['escape-codes.txt'],
    ['python.tiff'],
    ['png-trailing-bytes.png'],
    ['jpeg-trailing-script.jpg'],
  ])('refuses %s with 415, storing nothing', async (name) => {
    const bytes = await fixture(name);
    const before = await rows();
    const answer = await upload(bytes, name);
    if (name === 'pdf-named.png') {
      // A PDF is allowed; only its name lies. It is stored as what it is.
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ contentType: 'application/pdf', name: 'pdf-named.png.pdf' });
      return;
    }
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ code: 'upload_type_not_allowed' });
    expect(await rows()).toBe(before);
    expect(await storage.keys()).toHaveLength(before);
  });

  it.each([
    ['an image', 'python.png', MIB],
    ['a video', 'sample.mp4', 3 * MIB],
    ['a PDF', 'sample.pdf', 2 * MIB],
    ['a text', 'sample.txt', 2 * MIB],
  ])('refuses %s one byte over its cap with 413, storing nothing', async (_name, name, cap) => {
    const original = await fixture(name);
    // A PNG stays well-formed with a big private chunk before IEND; the others take padding at the end.
    const bytes = name.endsWith('.png')
      ? pngOfSize(original, cap + 1)
      : Buffer.concat([original, Buffer.alloc(cap + 1 - original.length, 0x61)]);
    expect(bytes.length).toBe(cap + 1);
    const before = await rows();
    const answer = await upload(bytes, name);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'upload_too_large' });
    expect(await rows()).toBe(before);
    expect(await storage.keys()).toHaveLength(before);
  });

  describe('image bombs', () => {
    /** Uploads `bytes`, which must be refused with 413 image_too_large, no row, no object, no write. */
    const refusedForPixels = async (bytes: Uint8Array, name: string) => {
      const before = { rows: await rows(), keys: (await storage.keys()).length, writes: writes.length };
      const form = new FormData();
      form.append('file', new Blob([bytes]), name);
      const res = await fetch(`${running.url}/api/files/upload`, {
        method: 'POST',
        headers: alice,
        body: form,
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ status: 413, code: 'image_too_large' });
      expect(await rows()).toBe(before.rows);
      expect(await storage.keys()).toHaveLength(before.keys);
      // Not written and then removed: never written at all.
      expect(writes.slice(before.writes)).toEqual([]);
    };

    it.each(IMAGE_KINDS)(
      'refuse a %s one pixel over MAX_IMAGE_PIXELS, and a bomb of that kind, storing nothing',
      async (kind: ImageKind) => {
        await refusedForPixels(await imageOf(kind, ...ONE_OVER), `over.${kind}`);
        const bomb = await imageOf(kind, ...BOMB_SIZE[kind]);
        expect(bomb.length).toBeLessThan(64 * 1024);
        await refusedForPixels(bomb, `bomb.${kind}`);
      },
    );

    it('refuse a deflate bomb: a PNG of under 50 KB declaring 20000 × 20000', async () => {
      const bomb = await png(20000, 20000);
      expect(bomb.length).toBeLessThan(50_000);
      await refusedForPixels(bomb, 'bomb.png');
    });

    it.each(IMAGE_KINDS)('let a %s of exactly MAX_IMAGE_PIXELS through', async (kind: ImageKind) => {
      const bytes = await imageOf(kind, 64, 64);
      const uploaded = await uploadOk(bytes, `square.${kind}`);
      expect(uploaded).toMatchObject({ contentType: MIME_OF[kind], size: bytes.length });
      const res = await download(uploaded.id);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    });
  });

  it('takes a text exactly at its cap', async () => {
    const uploaded = await uploadOk(Buffer.alloc(2 * MIB, 0x61), 'a.txt');
    expect(uploaded.size).toBe(2 * MIB);
  });

  it('offers a safe name for path traversal and very long Unicode names', async () => {
    const text = await fixture('sample.txt');
    expect((await uploadOk(text, '../../../etc/passwd')).name).toBe('passwd.txt');
    const long = await uploadOk(text, `${'Ω'.repeat(400)}.txt`);
    expect(Array.from(long.name)).toHaveLength(100);
    const res = await download(long.id);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="[^"]+"; filename\*=UTF-8''/,
    );
  });

  it('answers 404 for an unknown file and 401 without a session', async () => {
    expect((await download('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await download('not-a-uuid')).status).toBe(400);
    expect((await fetch(`${running.url}/api/files/00000000-0000-4000-8000-000000000000`)).status).toBe(401);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello')]), 'a.txt');
    expect((await fetch(`${running.url}/api/files/upload`, { method: 'POST', body: form })).status).toBe(401);
  });

  it('refuses a request without the file field', async () => {
    const form = new FormData();
    form.append('other', new Blob([Buffer.from('hello')]), 'a.txt');
    const res = await fetch(`${running.url}/api/files/upload`, {
      method: 'POST',
      headers: alice,
      body: form,
    });
    expect(res.status).toBe(400);
    const json = await fetch(`${running.url}/api/files/upload`, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/json' },
      body: '{}',
    });
    expect([400, 415]).toContain(json.status);
  });

  it('serves byte ranges (206) so a video can seek, and 416 outside the file', async () => {
    const bytes = await fixture('sample.mp4');
    const { id } = await uploadOk(bytes, 'clip.mp4');
    const ranged = async (range: string) => download(id, { ...alice, range });
    const first = await ranged('bytes=0-9');
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-9/${bytes.length}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
    const tail = await ranged('bytes=-5');
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 5))).toBe(true);
    const open = await ranged(`bytes=${bytes.length - 3}-`);
    expect(Buffer.from(await open.arrayBuffer()).equals(bytes.subarray(bytes.length - 3))).toBe(true);
    const outside = await ranged(`bytes=${bytes.length + 10}-`);
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect((await ranged('bytes=oops')).status).toBe(200);
  });

  describe('signed public links', () => {
    let file: Uploaded;
    let key = '';
    beforeAll(async () => {
      file = await uploadOk(await fixture('python.png'), 'shared.png');
      key = await db.pool.oneFirst(
        sql.type(z.object({ k: z.string() }))`SELECT storage_key AS k FROM files WHERE id = ${file.id}`,
      );
    });
    const inMinutes = (m: number) => new Date(Date.now() + m * 60_000);
    const open = (id: string, t?: string) =>
      fetch(`${running.url}/files/${id}${t === undefined ? '' : `?t=${encodeURIComponent(t)}`}`);

    it('serve the file without a session while the token is good, to no cache', async () => {
      const res = await open(file.id, fileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, inMinutes(15)));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(Buffer.from(await res.arrayBuffer()).equals(await fixture('python.png'))).toBe(true);
    });

    it('serve nothing for a missing, malformed, tampered, expired or foreign token', async () => {
      const good = fileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, inMinutes(15));
      const other = await uploadOk(await fixture('python.gif'), 'other.gif');
      const cases = [
        [file.id, undefined],
        [file.id, 'garbage'],
        [file.id, `${good.slice(0, -2)}xx`],
        [file.id, good.replace(/^\d+/, (s) => String(Number(s) + 3600))],
        [file.id, fileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, inMinutes(-1))],
        [other.id, good],
        ['00000000-0000-4000-8000-000000000000', good],
        [file.id, fileLinkToken('another-file-secret-0123456789abcdefghij', key, inMinutes(15))],
      ] as const;
      for (const [id, token] of cases) {
        const res = await open(id, token);
        expect(res.status, String(token)).toBe(403);
        expect(await res.json()).toMatchObject({ code: 'forbidden' });
      }
    });

    it('all stop working when FILE_URL_SECRET is rotated', async () => {
      const token = fileLinkToken(TEST_SECRETS.FILE_URL_SECRET, key, inMinutes(15));
      const rotated = await startApp({
        db,
        env: { ...env, FILE_URL_SECRET: 'a-rotated-file-url-secret-0123456789abcd' },
        storage: storage.storage,
      });
      try {
        expect((await fetch(`${rotated.url}/files/${file.id}?t=${token}`)).status).toBe(403);
      } finally {
        await rotated.close();
      }
    });
  });

  it('are in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${running.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>;
    };
    const upload = doc.paths['/api/files/upload']?.post;
    expect(Object.keys(upload?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '401', '413', '415']),
    );
    const own = doc.paths['/api/files/{id}']?.get;
    expect(Object.keys(own?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '206', '403', '404', '416']),
    );
    const signed = doc.paths['/files/{id}']?.get;
    expect(Object.keys(signed?.responses ?? {})).toEqual(expect.arrayContaining(['200', '403']));
    // No session: the document says so outright.
    expect(signed?.security).toEqual([]);
  });

  it('leaves nothing behind when the client drops an upload halfway', async () => {
    const before = await rows();
    const keysBefore = (await storage.keys()).length;
    const boundary = 'x-boundary-7d1e';
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.txt"\r\n` +
        'content-type: text/plain\r\n\r\n',
    );
    const { port } = new URL(running.url);
    await new Promise<void>((done) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: Number(port),
        method: 'POST',
        path: '/api/files/upload',
        headers: {
          ...alice,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + 5 * MIB),
        },
      });
      req.on('error', () => {
        done();
      });
      req.write(head);
      req.write(Buffer.alloc(256 * 1024, 0x61), () => {
        setTimeout(() => {
          req.destroy();
          done();
        }, 200);
      });
    });
    // The service notices the dropped connection, then cleans up.
    for (let i = 0; i < 50 && (await storage.keys()).length > keysBefore; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await storage.keys()).toHaveLength(keysBefore);
    expect(await rows()).toBe(before);
  });
});

describe('the pixel cap on comment pictures and post media', () => {
  // Its own storage, created before the app, so a test can see what was begun and what was kept.
  const recorded = useRecordedStorage();
  const used = useRunningApp({
    env: { MAX_IMAGE_PIXELS: String(PIXEL_CAP) },
    get storage() {
      return recorded.storage;
    },
  });
  const url = () => used.running.url;
  let admin = '';
  let channelId = '';
  beforeAll(async () => {
    admin = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
    const made = await adminCall(url(), admin, 'POST', '/admin/channels', { title: 'Pictures' });
    channelId = (made.body as { id: string }).id;
  });

  const events = () =>
    used.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`);
  /** What a refusal must leave as it was: the event log, the stored objects, the writes begun. */
  const snapshot = async () => ({
    events: await events(),
    keys: (await recorded.keys()).length,
    writes: recorded.writes.length,
  });
  const expectUnchanged = async (before: Awaited<ReturnType<typeof snapshot>>) => {
    expect(await events()).toBe(before.events);
    expect(await recorded.keys()).toHaveLength(before.keys);
    expect(recorded.writes.slice(before.writes)).toEqual([]);
  };

  const comment = async (postId: string, userId: string, image: Uint8Array) => {
    const form = new FormData();
    form.append('text', 'Look at this');
    form.append('image', new Blob([image]), 'picture');
    const res = await fetch(`${url()}/api/channel/${channelId}/posts/${postId}/comments`, {
      method: 'POST',
      headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, userId)),
      body: form,
    });
    return { res, body: (await res.json()) as Record<string, unknown> };
  };
  const attach = (postId: string, bytes: Uint8Array) => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'media');
    return adminCall(url(), admin, 'POST', `/admin/posts/${postId}/attachments`, form);
  };

  it.each(IMAGE_KINDS)(
    'a comment picture: a %s one pixel over is 413 image_too_large, no comment and nothing stored',
    async (kind: ImageKind) => {
      const postId = await postThrough(url(), admin, channelId, ['publish']);
      const before = await snapshot();
      const { res, body } = await comment(postId, `pixels-${kind}`, await imageOf(kind, ...ONE_OVER));
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(body).toMatchObject({ status: 413, code: 'image_too_large' });
      await expectUnchanged(before);
    },
  );

  it('a comment picture of exactly MAX_IMAGE_PIXELS is posted with its size', async () => {
    const postId = await postThrough(url(), admin, channelId, ['publish']);
    const { res, body } = await comment(postId, 'pixels-ok', await imageOf('webp', 64, 64));
    expect(res.status).toBe(201);
    expect(body['image']).toMatchObject({ width: 64, height: 64 });
  });

  it.each(IMAGE_KINDS)(
    'post media: a %s bomb is 413 image_too_large, not attached and nothing stored',
    async (kind: ImageKind) => {
      const postId = await postThrough(url(), admin, channelId, []);
      const before = await snapshot();
      const answer = await attach(postId, await imageOf(kind, ...BOMB_SIZE[kind]));
      expect(answer.status).toBe(413);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ status: 413, code: 'image_too_large' });
      await expectUnchanged(before);
    },
  );

  it('post media of exactly MAX_IMAGE_PIXELS is attached with its size', async () => {
    const postId = await postThrough(url(), admin, channelId, []);
    const answer = await attach(postId, await imageOf('bmp', 64, 64));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((answer.body as { attachments: unknown[] }).attachments).toEqual([
      expect.objectContaining({ kind: 'image', contentType: 'image/bmp', width: 64, height: 64 }),
    ]);
  });
});
