import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByteRange, ObjectStorage } from '../../../src/integrations/storage/port.ts';

export interface StorageFixture {
  readonly storage: ObjectStorage;
  cleanup(): Promise<void>;
  /** What failed puts may have left behind, where the adapter can list it. */
  leftovers?(): Promise<readonly string[]>;
}

const MIB = 1024 * 1024;
const ALL_BYTE_VALUES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const newKey = () => `chat/${randomBytes(4).toString('hex')}/${randomBytes(12).toString('base64url')}`;

/** `bytes` in small chunks, as a request body arrives. */
function* chunksOf(bytes: Buffer): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
}

const streamOf = (bytes: Buffer): Readable => Readable.from(chunksOf(bytes));

/** What get answers, read to the end, for a whole object. */
const whole = (body: Buffer, contentType: string) => ({ body, size: body.length, contentType, range: null });

/**
 * The behaviour every ObjectStorage adapter must share (src/integrations/storage/port.ts), run against a
 * real one: `make` is called once for the suite.
 */
export function storageContract(name: string, make: () => Promise<StorageFixture>): void {
  describe(name, () => {
    let fixture: StorageFixture | undefined;
    beforeAll(async () => {
      fixture = await make();
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });
    const storage = (): ObjectStorage => {
      if (!fixture) throw new Error('the storage is only there inside hooks and tests');
      return fixture.storage;
    };
    const put = (key: string, bytes: Buffer, contentType = 'application/octet-stream') =>
      storage().put(key, streamOf(bytes), { contentType });
    const read = async (key: string, range?: ByteRange) => {
      const object = await storage().get(key, range);
      return object && { ...object, body: await buffer(object.body) };
    };

    it('gives back every byte value it stored, with the size and content type', async () => {
      const key = newKey();
      expect(await put(key, ALL_BYTE_VALUES, 'image/png')).toEqual({ size: 256 });
      expect(await read(key)).toEqual(whole(ALL_BYTE_VALUES, 'image/png'));
      expect(await storage().head(key)).toEqual({ size: 256, contentType: 'image/png' });
    });

    it('streams a 12 MiB body of unknown length in and out', async () => {
      const key = newKey();
      const bytes = randomBytes(12 * MIB);
      expect(await put(key, bytes)).toEqual({ size: bytes.length });
      expect(await storage().head(key)).toMatchObject({ size: bytes.length });
      expect((await read(key))?.body.equals(bytes)).toBe(true);
    });

    it('stores an empty body', async () => {
      const key = newKey();
      expect(await put(key, Buffer.alloc(0), 'text/plain')).toEqual({ size: 0 });
      expect(await read(key)).toEqual(whole(Buffer.alloc(0), 'text/plain'));
    });

    it('keeps a content type with parameters', async () => {
      const key = newKey();
      await put(key, Buffer.from('hello'), 'text/plain; charset=utf-8');
      expect(await storage().head(key)).toEqual({ size: 5, contentType: 'text/plain; charset=utf-8' });
    });

    it('answers null for a missing object', async () => {
      expect(await storage().head(newKey())).toBeNull();
      expect(await storage().get(newKey())).toBeNull();
      expect(await storage().get(newKey(), { start: 0, end: 0 })).toBeNull();
    });

    it.each<[string, ByteRange, ByteRange]>([
      ['the first byte', { start: 0, end: 0 }, { start: 0, end: 0 }],
      ['the middle', { start: 100, end: 149 }, { start: 100, end: 149 }],
      ['the last byte', { start: 255, end: 255 }, { start: 255, end: 255 }],
      ['the whole object', { start: 0, end: 255 }, { start: 0, end: 255 }],
      [
        'a range running past the end, cut at the last byte',
        { start: 250, end: 999 },
        { start: 250, end: 255 },
      ],
    ])('reads %s', async (_name, range, served) => {
      const key = newKey();
      await put(key, ALL_BYTE_VALUES, 'application/pdf');
      expect(await read(key, range)).toEqual({
        body: ALL_BYTE_VALUES.subarray(served.start, served.end + 1),
        size: 256,
        contentType: 'application/pdf',
        range: served,
      });
    });

    it('replaces an object put again under its key', async () => {
      const key = newKey();
      await put(key, Buffer.from('first version'), 'text/plain');
      await put(key, Buffer.from('second'), 'image/gif');
      expect(await read(key)).toEqual(whole(Buffer.from('second'), 'image/gif'));
    });

    it('deletes, and deleting what is not there does nothing', async () => {
      const key = newKey();
      await put(key, Buffer.from('bytes'));
      await storage().delete(key);
      expect(await storage().head(key)).toBeNull();
      expect(await storage().get(key)).toBeNull();
      await storage().delete(key);
      await storage().delete(newKey());
    });

    it('keeps a key and a key below it apart', async () => {
      const key = newKey();
      await put(key, Buffer.from('parent'));
      await put(`${key}/child`, Buffer.from('child'));
      expect((await read(key))?.body.toString()).toBe('parent');
      expect((await read(`${key}/child`))?.body.toString()).toBe('child');
    });

    it('takes keys up to 512 characters', async () => {
      const key = ['a', 'b', 'c'].map((c) => c.repeat(170)).join('/');
      expect(key).toHaveLength(512);
      await put(key, Buffer.from('long'));
      expect(await storage().head(key)).toMatchObject({ size: 4 });
      await storage().delete(key);
    });

    it.each([
      '',
      '../x',
      'a/../../x',
      '/abs',
      'a//b',
      'a/',
      'a/./b',
      'x.object',
      'a\\b',
      'a b',
      'é',
      'a'.repeat(201),
      `${'a/'.repeat(256)}a`,
    ])('refuses the key %j for every operation', async (key) => {
      const refused = /invalid storage key/;
      await expect(put(key, Buffer.from('x'))).rejects.toThrow(refused);
      await expect(storage().get(key)).rejects.toThrow(refused);
      await expect(storage().head(key)).rejects.toThrow(refused);
      await expect(storage().delete(key)).rejects.toThrow(refused);
    });

    const expectNothingLeft = async (key: string) => {
      expect(await storage().head(key)).toBeNull();
      if (fixture?.leftovers) expect(await fixture.leftovers()).toEqual([]);
    };

    /** Puts the body `make` gives, which calls `abort` at its chosen moment; returns that body. */
    const expectAbortedPut = async (make: (abort: () => void) => Readable): Promise<Readable> => {
      const key = newKey();
      const controller = new AbortController();
      const reason = new Error('upload cancelled');
      const body = make(() => {
        controller.abort(reason);
      });
      const put = storage().put(key, body, { contentType: 'text/plain', signal: controller.signal });
      await expect(put).rejects.toBe(reason);
      await expectNothingLeft(key);
      return body;
    };

    // Small bodies fail before S3 sees a request; large ones after a multipart upload has a part.
    describe.each([
      ['a small body', 1024],
      ['a body past one part', 6 * MIB],
    ])('with %s', (_name, before) => {
      it('rejects with the body error and leaves nothing when the body fails midway', async () => {
        const key = newKey();
        const failure = new Error('the client went away');
        const body = Readable.from(
          (async function* () {
            yield* chunksOf(randomBytes(before));
            throw failure;
          })(),
        );
        await expect(storage().put(key, body, { contentType: 'text/plain' })).rejects.toBe(failure);
        await expectNothingLeft(key);
      });

      it('rejects with the reason and leaves nothing when the signal aborts midway', async () => {
        // Abort, then keep the body coming without end: the put must stop on the signal.
        const body = await expectAbortedPut((abort) =>
          Readable.from(
            (async function* () {
              yield* chunksOf(randomBytes(before));
              abort();
              for (;;) {
                await new Promise((resolve) => setImmediate(resolve));
                yield ALL_BYTE_VALUES;
              }
            })(),
          ),
        );
        expect(body.destroyed).toBe(true);
      });
    });

    it('rejects and leaves nothing when the signal aborts after the last byte, while storing', async () => {
      await expectAbortedPut((abort) =>
        Readable.from(
          (function* () {
            yield* chunksOf(ALL_BYTE_VALUES);
            setImmediate(abort);
          })(),
        ),
      );
    });

    it('refuses to start with a signal already aborted', async () => {
      await expectAbortedPut((abort) => {
        abort();
        return streamOf(Buffer.from('bytes'));
      });
    });
  });
}
