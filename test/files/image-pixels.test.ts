import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inflateSync } from 'node:zlib';
import { imageSize } from 'image-size';
import { describe, expect, it } from 'vitest';
import { HEAD_BYTES } from '../../src/files/image-dimensions.ts';
import { type UploadCaps, inspectUpload } from '../../src/files/inspect.ts';
import { UploadRejected } from '../../src/files/types.ts';
import {
  BOMB_SIZE,
  IMAGE_KINDS,
  MIME_OF,
  imageOf,
  jpeg,
  jpegFrame,
  jpegSegment,
  png,
  pngChunk,
  pngRawBytes,
} from './images.ts';
import { MIB, chunked, collector, passThrough, roomyCaps } from './upload-feed.ts';

/**
 * `bytes` in 1 KiB chunks, stopping after `first` bytes until the verdict is in: a check that waited for
 * more than that would never get it, and the test would time out.
 */
const stopAfter = (bytes: Buffer, first: number) =>
  async function* (settled: Promise<unknown>): AsyncGenerator<Buffer> {
    yield* chunked(bytes.subarray(0, first), 1024);
    await settled;
    yield* chunked(bytes.subarray(first), 1024);
  };

/** 64 × 64 is exactly at this cap; 17 × 241 (4097) is one pixel over it. */
const capped: UploadCaps = { ...roomyCaps, imagePixels: 64 * 64 };
const ONE_OVER = [17, 241] as const;

const chunkings = [
  ['1-byte chunks', 1],
  ['7-byte chunks', 7],
  ['one chunk', Number.MAX_SAFE_INTEGER],
] as const;

type Source = Iterable<Buffer> | ((settled: Promise<unknown>) => AsyncIterable<Buffer>);

/**
 * Streams `source` through an inspection that must refuse it on its head: the refusal, which the
 * pipeline, the verdict and `accepted` agree on, after not one byte came out. A function source is given
 * the verdict, settled or not, to wait on.
 */
async function refusedHead(source: Source, caps: UploadCaps = roomyCaps): Promise<UploadRejected> {
  const { stream, accepted, result } = inspectUpload(caps);
  const settled = result.catch(() => undefined);
  const out: Buffer[] = [];
  const input = typeof source === 'function' ? source(settled) : source;
  const piped = pipeline(Readable.from(input), stream, collector(out)).then(
    () => undefined,
    (error: unknown) => error,
  );
  const refusal = await result.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(UploadRejected);
  expect(await piped).toBe(refusal);
  await expect(accepted).rejects.toBe(refusal);
  expect(Buffer.concat(out)).toHaveLength(0);
  return refusal as UploadRejected;
}

const unreadable = { status: 415, code: 'upload_type_not_allowed' };
const tooManyPixels = { status: 413, code: 'image_too_large' };

describe.each(IMAGE_KINDS)('the pixel cap on %s', (kind) => {
  it.each(chunkings)(
    'in %s: exactly at the cap passes with its dimensions; one pixel over is 413 image_too_large',
    async (_, chunkSize) => {
      const atCap = await imageOf(kind, 64, 64);
      const { output, detected } = await passThrough(atCap, chunkSize, capped);
      expect(output.equals(atCap)).toBe(true);
      expect(detected).toMatchObject({ mime: MIME_OF[kind], dimensions: { width: 64, height: 64 } });

      const over = await imageOf(kind, ...ONE_OVER);
      const refusal = await refusedHead(chunked(over, chunkSize), capped);
      expect(refusal).toMatchObject(tooManyPixels);
      expect(refusal.detail).toContain(String(64 * 64));
    },
  );

  it('refuses a bomb of a few bytes at the default cap (50 MP); the same bytes pass a cap that allows them', async () => {
    const [width, height] = BOMB_SIZE[kind];
    const bomb = await imageOf(kind, width, height);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(width * height).toBeGreaterThan(roomyCaps.imagePixels);
    expect(await refusedHead(chunked(bomb, 512))).toMatchObject(tooManyPixels);
    // Well-formed otherwise: only what it declares refuses it.
    const roomier = { ...roomyCaps, imagePixels: width * height };
    const { detected } = await passThrough(bomb, 512, roomier);
    expect(detected.dimensions).toEqual({ width, height });
  });
});

describe('a deflate bomb', () => {
  it('a 20000 × 20000 PNG under 50 KB whose IDAT inflates to 50 MB is refused from its first 8 KiB', async () => {
    const bomb = await png(20000, 20000);
    expect(bomb.length).toBeLessThan(50_000);
    // After the signature (8) and IHDR (25): IDAT's length, its type, then its data.
    const idatLength = bomb.readUInt32BE(33);
    expect(bomb.toString('latin1', 37, 41)).toBe('IDAT');
    const inflated = inflateSync(bomb.subarray(41, 41 + idatLength));
    expect(inflated.length).toBe(pngRawBytes(20000, 20000));
    expect(inflated.every((byte) => byte === 0)).toBe(true);

    expect(await refusedHead(stopAfter(bomb, 8192))).toMatchObject(tooManyPixels);
  });
});

describe('reading the dimensions', () => {
  // APP2 segments of the largest size, which a JPEG may carry before its frame header (ICC profiles).
  const filler = (count: number) =>
    Buffer.concat(Array.from({ length: count }, () => jpegSegment(0xe2, Buffer.alloc(65533, 0x41))));

  it('a JPEG frame header behind 192 KiB of other segments is found, in any chunking', async () => {
    const image = jpeg(64, 64, { before: filler(3) });
    expect(image.length).toBeGreaterThan(192 * 1024);
    for (const chunkSize of [7, 4096, Number.MAX_SAFE_INTEGER]) {
      const { output, detected } = await passThrough(image, chunkSize, capped);
      expect(output.equals(image)).toBe(true);
      expect(detected.dimensions).toEqual({ width: 64, height: 64 });
    }
    // The held head is read again as it doubles, not on every chunk, and still refuses in the end.
    const over = jpeg(...ONE_OVER, { before: filler(3) });
    expect(await refusedHead(chunked(over, 7), capped)).toMatchObject(tooManyPixels);
  });

  it('a JPEG frame header beyond HEAD_BYTES is refused (415), holding no more than that', async () => {
    const image = jpeg(64, 64, { before: filler(5) });
    expect(image.indexOf(Buffer.from([0xff, 0xc0]))).toBeGreaterThan(HEAD_BYTES);
    const refusal = await refusedHead(stopAfter(image, HEAD_BYTES + 1024), capped);
    expect(refusal).toMatchObject(unreadable);
    expect(refusal.detail).toMatch(/width and height could not be read/);
  });

  it('fill bytes before JPEG markers are skipped', async () => {
    const image = jpeg(64, 64, { before: Buffer.from([0xff, 0xff, 0xff]) });
    expect((await passThrough(image, 1, capped)).detected.dimensions).toEqual({ width: 64, height: 64 });
  });

  it('a JPEG frame of a kind image-size does not read is refused, even with a small frame hidden after it', async () => {
    // Arithmetic coding (SOF9) declaring 20000 × 20000; a baseline frame of 16 × 16 in the scan data.
    const arithmetic = jpeg(16, 16, { frame: jpegFrame(0xc9, 20000, 20000) });
    const sos = arithmetic.indexOf(Buffer.from([0xff, 0xda]));
    // Where image-size, stepping through the scan data a byte at a time, looks for its next marker: it
    // reads the SOS length's low byte and the component count (08 01) as a length, 2049 bytes on.
    const fake = sos + 3 + 0x0801;
    const disguised = Buffer.concat([
      arithmetic.subarray(0, sos + 10),
      Buffer.alloc(fake - (sos + 10)),
      jpegFrame(0xc0, 16, 16),
      Buffer.from([0xff, 0xd9]),
    ]);
    // image-size alone would take the hidden frame for the image.
    expect(imageSize(new Uint8Array(disguised))).toMatchObject({ width: 16, height: 16 });
    expect(await refusedHead(chunked(disguised, 64))).toMatchObject(unreadable);
    // Lossless (SOF3), and a second frame header, are refused too.
    const lossless = jpeg(16, 16, { frame: jpegFrame(0xc3, 16, 16) });
    expect(await refusedHead(chunked(lossless, 64))).toMatchObject(unreadable);
    const twoFrames = jpeg(16, 16, {
      frame: Buffer.concat([jpegFrame(0xc0, 16, 16), jpegFrame(0xc0, 20000, 20000)]),
    });
    expect(await refusedHead(chunked(twoFrames, 64))).toMatchObject(unreadable);
  });

  it('a zero width or height is refused as unreadable (415)', async () => {
    expect(await refusedHead(chunked(await png(0, 16), 64))).toMatchObject(unreadable);
    // Height 0 in a JPEG frame means "given later" (DNL): not known from the head.
    expect(await refusedHead(chunked(jpeg(16, 0), 64))).toMatchObject(unreadable);
  });

  it('a BMP with the OS/2 1.x header (16-bit sizes) is refused as unreadable (415)', async () => {
    const pixels = Buffer.alloc(2 * 8); // 2 × 2, 24-bit, rows padded to 4 bytes
    const header = Buffer.alloc(14 + 12);
    header.write('BM', 0, 'latin1');
    header.writeUInt32LE(header.length + pixels.length, 2);
    header.writeUInt32LE(header.length, 10);
    header.writeUInt32LE(12, 14);
    header.writeUInt16LE(2, 18);
    header.writeUInt16LE(2, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt16LE(24, 24);
    expect(await refusedHead([Buffer.concat([header, pixels])])).toMatchObject(unreadable);
  });

  it('lets an image through as soon as its dimensions are read, not at its end', async () => {
    const image = await png(64, 64);
    // A 2 MiB private chunk before IEND: the source only goes on once the head came out.
    const big = Buffer.concat([
      image.subarray(0, -12),
      pngChunk('prVt', Buffer.alloc(2 * MIB, 0x61)),
      image.subarray(-12),
    ]);
    const { stream, accepted, result } = inspectUpload(capped);
    async function* source(): AsyncGenerator<Buffer> {
      yield big.subarray(0, 8192);
      await accepted;
      yield* chunked(big.subarray(8192), 64 * 1024);
    }
    const out: Buffer[] = [];
    await pipeline(Readable.from(source()), stream, collector(out));
    expect(Buffer.concat(out).equals(big)).toBe(true);
    await expect(result).resolves.toMatchObject({ size: big.length, dimensions: { width: 64, height: 64 } });
  });
});
