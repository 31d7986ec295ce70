import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { createDeflate, crc32 } from 'node:zlib';

/**
 * Small images of each accepted kind that declare any width and height, made in the test so that a
 * 20000 × 20000 one costs kilobytes. Each passes the structure checks of its type; all but the
 * oversized JPEG are complete images a decoder would render (PNG, GIF, WEBP, BMP: every pixel defined
 * by compression or by the format's defaults).
 */

export const IMAGE_KINDS = ['png', 'jpeg', 'gif', 'webp', 'bmp'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

export const MIME_OF: Readonly<Record<ImageKind, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
};

const u16le = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u16be = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32le = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u32be = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** `length` zero bytes through zlib at level 9, streamed, so a bomb's raw data is never in memory. */
export async function deflatedZeros(length: number): Promise<Buffer> {
  const zero = Buffer.alloc(Math.min(length, 1024 * 1024));
  function* zeros(): Generator<Buffer> {
    for (let left = length; left > 0; left -= zero.length)
      yield zero.subarray(0, Math.min(left, zero.length));
  }
  const deflate = createDeflate({ level: 9 });
  const [compressed] = await Promise.all([buffer(deflate), pipeline(Readable.from(zeros()), deflate)]);
  return compressed;
}

export function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.concat([u32be(data.length), Buffer.from(type, 'latin1')]);
  return Buffer.concat([head, data, u32be(crc32(Buffer.concat([head.subarray(4), data])))]);
}

/** The raw size of a 1-bit greyscale PNG's image data: a filter byte and ceil(width / 8) bytes a row. */
export const pngRawBytes = (width: number, height: number): number => height * (1 + Math.ceil(width / 8));

/**
 * A black 1-bit greyscale PNG: IHDR, one IDAT of deflated zero rows, IEND. At 20000 × 20000 this is a
 * decompression bomb: about 50 KB that inflate to 50 MB and decode to 400 million pixels.
 */
export async function png(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([1, 0, 0, 0, 0])]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', await deflatedZeros(pngRawBytes(width, height))),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** A GIF with a `width` × `height` logical screen (the size decoders allocate) and one 1 × 1 frame. */
export function gif(width: number, height: number): Buffer {
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    u16le(width),
    u16le(height),
    // A global colour table of two entries, background 0, no aspect ratio; black and white.
    Buffer.from([0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c, 0, 0, 0, 0]),
    u16le(1),
    u16le(1),
    // No local table; LZW minimum code size 2; one sub-block coding one pixel; the end; the trailer.
    Buffer.from([0, 2, 2, 0x44, 0x01, 0, 0x3b]),
  ]);
}

/**
 * A lossless WEBP (VP8L) of `width` × `height` transparent pixels, each costing zero bits: no transform,
 * no colour cache, and five prefix codes of one symbol each. At 16383 × 16383 it is 28 bytes.
 */
export function webp(width: number, height: number): Buffer {
  const header = Buffer.concat([Buffer.from([0x2f]), u32le((width - 1) | ((height - 1) << 14))]);
  // The bits, least significant first: 0 (no transform), 0 (no cache), 0 (no meta codes), then five
  // times 1 (simple code), 0 (one symbol), 0 (1-bit symbol), 0 (symbol 0).
  const payload = Buffer.concat([header, Buffer.from([0x88, 0x88, 0x08])]);
  const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), u32le(payload.length), payload]);
  return Buffer.concat([
    Buffer.from('RIFF', 'latin1'),
    u32le(4 + chunk.length),
    Buffer.from('WEBP', 'latin1'),
    chunk,
  ]);
}

/**
 * An 8-bit BMP compressed with RLE8 whose data only moves the pen (delta escapes of up to 255 rows),
 * then ends: every pixel is colour 0. A few hundred bytes for any size, which makes BMP a bomb format
 * too.
 */
export function bmp(width: number, height: number): Buffer {
  const palette = Buffer.from([0, 0, 0, 0, 0, 0, 0xff, 0]);
  const moves: number[] = [];
  for (let left = height; left > 0; left -= 255) moves.push(0, 2, 0, Math.min(left, 255));
  const pixels = Buffer.from([...moves, 0, 1]);
  const offset = 14 + 40 + palette.length;
  const info = Buffer.concat([
    u32le(40),
    u32le(width),
    u32le(height),
    u16le(1),
    u16le(8),
    u32le(1), // BI_RLE8
    u32le(pixels.length),
    u32le(2835),
    u32le(2835),
    u32le(2),
    u32le(0),
  ]);
  const fileHeader = Buffer.concat([
    Buffer.from('BM', 'latin1'),
    u32le(offset + pixels.length),
    u32le(0),
    u32le(offset),
  ]);
  return Buffer.concat([fileHeader, info, palette, pixels]);
}

/** A JPEG marker segment: FF, the marker, a length counting itself, the payload. */
export const jpegSegment = (marker: number, payload: Uint8Array): Buffer =>
  Buffer.concat([Buffer.from([0xff, marker]), u16be(payload.length + 2), payload]);

/** A frame header (SOFn) of one 8-bit component. */
export const jpegFrame = (marker: number, width: number, height: number): Buffer =>
  jpegSegment(
    marker,
    Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])]),
  );

// Above this much scan data, the scan is cut short: a bomb need not carry it, since decoders allocate
// from the frame header and pad a short scan.
const MAX_SCAN_BYTES = 1024;

/**
 * A baseline greyscale JPEG, mid-grey: each 8 × 8 block is two bits (DC difference 0, end of block),
 * with one-code Huffman tables. `before` goes between SOI and the frame (APPn segments, say) and
 * `frame` replaces its frame header.
 */
export function jpeg(
  width: number,
  height: number,
  options: { readonly before?: Buffer; readonly frame?: Buffer } = {},
): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const scan = Buffer.alloc(Math.min(Math.ceil((2 * blocks) / 8), MAX_SCAN_BYTES));
  const usedBits = (2 * blocks) % 8;
  // The last byte is padded with 1 bits, as the standard asks.
  if (usedBits !== 0 && scan.length < MAX_SCAN_BYTES) scan[scan.length - 1] = 0xff >> usedBits;
  const oneCodeTable = (classAndId: number) =>
    jpegSegment(0xc4, Buffer.from([classAndId, 1, ...Array<number>(15).fill(0), 0]));
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    options.before ?? Buffer.alloc(0),
    jpegSegment(0xdb, Buffer.from([0, ...Array<number>(64).fill(1)])),
    options.frame ?? jpegFrame(0xc0, width, height),
    oneCodeTable(0x00),
    oneCodeTable(0x10),
    jpegSegment(0xda, Buffer.from([1, 1, 0, 0, 63, 0])),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** An image of `kind` declaring `width` × `height`. */
export async function imageOf(kind: ImageKind, width: number, height: number): Promise<Buffer> {
  switch (kind) {
    case 'png':
      return png(width, height);
    case 'jpeg':
      return jpeg(width, height);
    case 'gif':
      return gif(width, height);
    case 'webp':
      return webp(width, height);
    case 'bmp':
      return bmp(width, height);
  }
}

/**
 * Per kind, the largest size the format or its structure check allows up to 20000 a side, all far
 * above the default cap of 50 million pixels: GIF screens are held to 16384 a side, VP8L to 16384.
 */
export const BOMB_SIZE: Readonly<Record<ImageKind, readonly [number, number]>> = {
  png: [20000, 20000],
  jpeg: [20000, 20000],
  gif: [16384, 16384],
  webp: [16384, 16384],
  bmp: [20000, 20000],
};
