import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES } from '../../src/files/inspect.ts';
import { structureChecks } from '../../src/files/structure/index.ts';
import type { ContentCheck } from '../../src/files/structure/reader.ts';
import { chunked, fixture, passThrough } from './upload-feed.ts';

type BinaryMime = keyof typeof structureChecks;

/** The check's verdict on `bytes` fed in chunks of `size`: the first failure, or the end's. */
function judge(check: ContentCheck, bytes: Uint8Array, size: number): string | undefined {
  for (const chunk of chunked(bytes, size)) {
    const failure = check.push(chunk);
    if (failure !== undefined) return failure;
  }
  return check.end();
}

/** Judges in 1-byte chunks and in one chunk, which must agree. */
function verdictOf(mime: BinaryMime, bytes: Uint8Array): string | undefined {
  const byteWise = judge(structureChecks[mime](), bytes, 1);
  expect(judge(structureChecks[mime](), bytes, bytes.length || 1)).toBe(byteWise);
  return byteWise;
}

const u32be = (value: number) =>
  Buffer.from([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
const u32le = (value: number) => u32be(value).reverse();

function pngChunk(type: string, data: Uint8Array): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), typed, u32be(crc32(typed))]);
}

const box = (type: string, data: Uint8Array) =>
  Buffer.concat([u32be(8 + data.length), Buffer.from(type), data]);

const png = fixture('python.png');
const gif = fixture('python.gif');
const webp = fixture('python.webp');
const bmp = fixture('python.bmp');
const mp4 = fixture('sample.mp4');
const jpeg = fixture('python.jpg');
const pdf = fixture('sample.pdf');

const withByte = (bytes: Buffer, at: number, value: number) => {
  const copy = Buffer.from(bytes);
  copy[at] = value;
  return copy;
};
const withUint16le = (bytes: Buffer, at: number, value: number) =>
  withByte(withByte(bytes, at, value & 0xff), at + 1, value >> 8);

describe('structure checks', () => {
  // How many bytes to cut to truncate: a PDF ends in white space after %%EOF, which may go.
  it.each([
    ['image/png', png, 1],
    ['image/gif', gif, 1],
    ['image/webp', webp, 1],
    ['image/bmp', bmp, 1],
    ['video/mp4', mp4, 1],
    ['image/jpeg', jpeg, 1],
    ['application/pdf', pdf, 2],
  ] as const)(
    '%s: the sample is one well-formed item, a truncated or extended one is not',
    (mime, sample, cut) => {
      expect(verdictOf(mime, sample)).toBeUndefined();
      expect(verdictOf(mime, sample.subarray(0, sample.length - cut))).toMatch(/^not a well-formed/);
      expect(verdictOf(mime, Buffer.concat([sample, Buffer.from('x')]))).toMatch(/^not a well-formed/);
    },
  );

  it('PNG: IHDR comes first and chunk types are letters', () => {
    const signature = png.subarray(0, 8);
    const rest = png.subarray(8);
    const text = pngChunk('tEXt', Buffer.from('Comment\0hi'));
    expect(verdictOf('image/png', Buffer.concat([signature, text, rest]))).toMatch(/first chunk is not IHDR/);
    const ihdr = png.subarray(8, 33);
    const odd = pngChunk('a1b2', Buffer.alloc(0));
    expect(verdictOf('image/png', Buffer.concat([signature, ihdr, odd, png.subarray(33)]))).toMatch(
      /four letters/,
    );
    expect(verdictOf('image/png', Buffer.concat([signature, ihdr, text, png.subarray(33)]))).toBeUndefined();
  });

  it('GIF: a logical screen over 16384 pixels on a side is refused', () => {
    expect(verdictOf('image/gif', withUint16le(gif, 6, 16384))).toBeUndefined();
    expect(verdictOf('image/gif', withUint16le(gif, 6, 16385))).toMatch(/larger than 16384/);
    expect(verdictOf('image/gif', withUint16le(gif, 8, 65535))).toMatch(/larger than 16384/);
  });

  it('WEBP: an odd RIFF size may be followed by one zero pad byte, nothing else', () => {
    const odd = Buffer.concat([Buffer.from('RIFF'), u32le(5), Buffer.from('WEBPx')]);
    expect(verdictOf('image/webp', odd)).toBeUndefined();
    expect(verdictOf('image/webp', Buffer.concat([odd, Buffer.from([0])]))).toBeUndefined();
    expect(verdictOf('image/webp', Buffer.concat([odd, Buffer.from([1])]))).toMatch(/pad byte/);
    expect(verdictOf('image/webp', Buffer.concat([odd, Buffer.from([0, 0])]))).toMatch(/data follows/);
  });

  it('BMP: the size field must be the file length', () => {
    expect(verdictOf('image/bmp', Buffer.concat([Buffer.from('BM'), u32le(8), Buffer.alloc(2)]))).toMatch(
      /too small/,
    );
    expect(
      verdictOf('image/bmp', Buffer.concat([bmp.subarray(0, 2), u32le(bmp.length + 1), bmp.subarray(6)])),
    ).toMatch(/truncated/);
  });

  it('MP4: boxes tile the file from an ftyp; 64-bit and run-to-end sizes count', () => {
    const ftyp = mp4.subarray(0, 32);
    const free = box('free', Buffer.alloc(10));
    expect(verdictOf('video/mp4', Buffer.concat([free, ftyp]))).toMatch(/first box is not ftyp/);
    const large = Buffer.concat([u32be(1), Buffer.from('mdat'), u32be(0), u32be(16 + 5), Buffer.alloc(5)]);
    expect(verdictOf('video/mp4', Buffer.concat([ftyp, large]))).toBeUndefined();
    const toEnd = Buffer.concat([u32be(0), Buffer.from('mdat'), Buffer.alloc(100)]);
    expect(verdictOf('video/mp4', Buffer.concat([ftyp, free, toEnd]))).toBeUndefined();
    const tiny = Buffer.concat([u32be(4), Buffer.from('free')]);
    expect(verdictOf('video/mp4', Buffer.concat([ftyp, tiny]))).toMatch(/smaller than its header/);
  });

  it('PDF: the last %%EOF may be followed by white space only', () => {
    expect(verdictOf('application/pdf', Buffer.concat([pdf, Buffer.from('\r\n \n\0')]))).toBeUndefined();
    expect(verdictOf('application/pdf', Buffer.concat([pdf, Buffer.from('x')]))).toMatch(
      /data follows its %%EOF/,
    );
    const update = Buffer.from('1 0 obj\n<< >>\nendobj\nstartxref\n9\n%%EOF\n');
    expect(verdictOf('application/pdf', Buffer.concat([pdf, update]))).toBeUndefined();
    expect(
      verdictOf('application/pdf', Buffer.concat([pdf, Buffer.alloc(2000, 0x20), Buffer.from('%')])),
    ).toMatch(/no %%EOF/);
  });
});

describe('files longer than the detection sample', () => {
  const ihdrEnd = 33;
  const bigPng = Buffer.concat([
    png.subarray(0, ihdrEnd),
    pngChunk('prVt', Buffer.alloc(20_000, 7)),
    png.subarray(ihdrEnd),
  ]);
  const bigMp4 = Buffer.concat([mp4.subarray(0, 32), box('free', Buffer.alloc(20_000)), mp4.subarray(32)]);

  it.each([1, SNIFF_BYTES - 1, SNIFF_BYTES, SNIFF_BYTES + 1, 65_536])(
    'pass through unchanged in chunks of %i bytes',
    async (chunkSize) => {
      for (const [input, mime] of [
        [bigPng, 'image/png'],
        [bigMp4, 'video/mp4'],
      ] as const) {
        const { output, detected } = await passThrough(input, chunkSize);
        expect(output.equals(input)).toBe(true);
        expect(detected).toMatchObject({ mime, size: input.length });
      }
    },
  );
});
