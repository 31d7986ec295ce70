import { imageSize } from 'image-size';
import { uint32le } from './structure/reader.ts';
import type { ALLOWED_TYPES, AllowedMime } from './types.ts';

/**
 * How far into an image its width and height are looked for. Every allowed format states them in its
 * first bytes; 256 KiB covers JPEGs with large EXIF or ICC segments before the frame header.
 */
export const HEAD_BYTES = 256 * 1024;

export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

/** The allowed types of kind image: each must have a way to read its dimensions below. */
export type ImageMime = {
  [M in AllowedMime]: (typeof ALLOWED_TYPES)[M]['kind'] extends 'image' ? M : never;
}[AllowedMime];

/** What reading an image's first bytes gave. */
export type HeadReading =
  | { readonly kind: 'dimensions'; readonly dimensions: ImageDimensions }
  /** The bytes so far end before the dimensions. */
  | { readonly kind: 'more' }
  | { readonly kind: 'unreadable'; readonly reason: string };

const MORE: HeadReading = { kind: 'more' };
const unreadable = (reason: string): HeadReading => ({ kind: 'unreadable', reason });

// image-size's name for each type, to make sure it read the format the upload checks detected.
const SIZE_TYPES: Readonly<Record<ImageMime, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/bmp': 'bmp',
};

/**
 * Where the fixed-place formats state their dimensions: the bytes image-size needs at least. Fewer means
 * "wait for more"; with that many, a failure is the file's fault. (PNG: IHDR; GIF: the logical screen;
 * WEBP: the VP8L header, the shortest of the three; BMP: the info header's width and height.)
 */
const FIXED_HEADER_BYTES: Readonly<Record<Exclude<ImageMime, 'image/jpeg'>, number>> = {
  'image/png': 24,
  'image/gif': 10,
  'image/webp': 25,
  'image/bmp': 26,
};

/** The OS/2 1.x info header (12 bytes) has 16-bit sizes where image-size reads 32-bit ones. */
const SMALLEST_BMP_INFO_HEADER = 40;

export const isImageMime = (mime: string): mime is ImageMime => Object.hasOwn(SIZE_TYPES, mime);

// JPEG markers: SOS starts the first scan; these SOFn are the frames image-size reads (baseline, extended,
// progressive), which are also the ones browsers decode. DHT, JPG and DAC share the SOFn range.
const SOS = 0xda;
const READABLE_FRAMES = new Set([0xc0, 0xc1, 0xc2]);
const isFrameMarker = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

// What image-size is given before the frame: SOI, then an empty APP0, because it looks for a frame only
// after a first segment (as encoders write one).
const JPEG_PREFIX = Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x02);

/**
 * A JPEG's frame header, found by walking the segments from SOI to the first scan, as a JPEG of that one
 * segment. image-size walks segments itself but runs on into the scan data, where a stray `FF C0` reads
 * as a frame, and loses its place at fill bytes; so it is given only the frame that a decoder would use.
 * More than one frame, or a frame of another kind, is unreadable.
 */
function jpegFrame(head: Uint8Array): Uint8Array | HeadReading {
  let frame: Uint8Array | undefined;
  let at = 2;
  for (;;) {
    if (at >= head.length) return MORE;
    if (head[at] !== 0xff) return unreadable('a JPEG segment does not start with a marker');
    // Any number of fill bytes may precede a marker.
    while (head[at] === 0xff) at += 1;
    const marker = head[at];
    if (marker === undefined) return MORE;
    if (marker === SOS) break;
    if (at + 2 >= head.length) return MORE;
    const length = ((head[at + 1] ?? 0) << 8) | (head[at + 2] ?? 0);
    // Before the first scan, every marker has a length of at least its own two bytes.
    if (marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9) || length < 2) {
      return unreadable('the JPEG header is malformed');
    }
    const end = at + 1 + length;
    if (end > head.length) return MORE;
    if (isFrameMarker(marker)) {
      if (frame !== undefined) return unreadable('the JPEG has more than one frame header');
      if (!READABLE_FRAMES.has(marker)) return unreadable('the JPEG frame is of a kind not accepted');
      const segment = head.subarray(at + 1, end);
      frame = new Uint8Array(JPEG_PREFIX.length + 2 + segment.length);
      frame.set(JPEG_PREFIX);
      frame.set([0xff, marker], JPEG_PREFIX.length);
      frame.set(segment, JPEG_PREFIX.length + 2);
    }
    at = end;
  }
  return frame ?? unreadable('the JPEG has no frame header before its first scan');
}

/**
 * The width and height an image of type `mime` declares in `head`, its first bytes (at most HEAD_BYTES
 * of them). Read with image-size; a result that is not two positive integers counts as unreadable.
 */
export function readImageHead(mime: ImageMime, head: Uint8Array): HeadReading {
  let input: Uint8Array;
  if (mime === 'image/jpeg') {
    const found = jpegFrame(head);
    if (!(found instanceof Uint8Array)) return found;
    input = found;
  } else {
    if (head.length < FIXED_HEADER_BYTES[mime]) return MORE;
    if (mime === 'image/bmp' && uint32le(head, 14) < SMALLEST_BMP_INFO_HEADER) {
      return unreadable('the BMP info header is of a kind not accepted');
    }
    input = head;
  }
  try {
    // A copy with a buffer of its own: image-size reads through a DataView over the whole underlying
    // buffer, so on a slice of a pooled Buffer a short read would run into unrelated bytes, not fail.
    const size = imageSize(new Uint8Array(input));
    if (size.type !== SIZE_TYPES[mime]) return unreadable('the header is not that of the detected type');
    const { width, height } = size;
    if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width <= 0 || height <= 0) {
      return unreadable('the declared width or height is not a positive number');
    }
    return { kind: 'dimensions', dimensions: { width, height } };
  } catch {
    return unreadable('the header is malformed');
  }
}
