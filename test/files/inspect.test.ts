import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { type UploadCaps, inspectUpload } from '../../src/files/inspect.ts';
import {
  MIB,
  collector,
  countedSource,
  fixture,
  passThrough,
  refusalOf,
  refuse,
  roomyCaps,
} from './upload-feed.ts';

const allowed = [
  ['python.jpg', 'image/jpeg', 'jpg', 'image'],
  ['python.png', 'image/png', 'png', 'image'],
  ['python.gif', 'image/gif', 'gif', 'image'],
  ['python.webp', 'image/webp', 'webp', 'image'],
  ['python.bmp', 'image/bmp', 'bmp', 'image'],
  ['sample.mp4', 'video/mp4', 'mp4', 'video'],
  ['sample.pdf', 'application/pdf', 'pdf', 'document'],
  ['sample.txt', 'text/plain; charset=utf-8', 'txt', 'text'],
] as const;

const hostile = [
  'python.tiff',
  'program.exe',
  'program.elf',
  'page.html',
  'image.svg',
  'steal-cookie.js.txt',
  'archive.zip',
  'gif-js-polyglot.gif',
  'empty.bin',
  'invalid-utf8.txt',
  'nul-byte.txt',
  'escape-codes.txt',
  'png-trailing-bytes.png',
  'jpeg-trailing-script.jpg',
];

/** 1-byte chunks split every header and character; one chunk holds the whole file. */
const chunkings = [
  ['1-byte chunks', 1],
  ['7-byte chunks', 7],
  ['one chunk', Number.MAX_SAFE_INTEGER],
] as const;

describe('allowed uploads', () => {
  describe.each(chunkings)('in %s', (_, chunkSize) => {
    it.each(allowed)('%s passes through unchanged as %s', async (name, mime, ext, kind) => {
      const input = fixture(name);
      const { output, detected } = await passThrough(input, chunkSize);
      expect(output.equals(input)).toBe(true);
      // Every image sample is 16 × 16; the dimensions are what the pixel cap was checked on.
      const dimensions = kind === 'image' ? { dimensions: { width: 16, height: 16 } } : {};
      expect(detected).toEqual({ mime, ext, kind, size: input.length, ...dimensions });
    });
  });

  it('a name counts for nothing: a PDF named .png is a PDF', async () => {
    const input = fixture('pdf-named.png');
    await expect(passThrough(input, 64)).resolves.toMatchObject({ detected: { mime: 'application/pdf' } });
  });

  it('a PDF is refused where only images are allowed, even one named .png, and so is text', async () => {
    const onlyImages = { kinds: ['image'] } as const;
    for (const name of ['sample.pdf', 'pdf-named.png', 'sample.txt']) {
      const refusal = await refuse(fixture(name), 64, roomyCaps, onlyImages);
      expect(refusal).toMatchObject({ status: 415, code: 'upload_type_not_allowed' });
    }
    await expect(passThrough(fixture('python.gif'), 64, roomyCaps, onlyImages)).resolves.toMatchObject({
      detected: { kind: 'image' },
    });
  });
});

describe('hostile uploads', () => {
  describe.each(chunkings)('in %s', (_, chunkSize) => {
    it.each(hostile)('%s is refused as a type not allowed', async (name) => {
      const refusal = await refuse(fixture(name), chunkSize);
      expect(refusal).toMatchObject({ status: 415, code: 'upload_type_not_allowed' });
    });
  });

  it('a refusal never quotes the content', async () => {
    const refusal = await refuse(fixture('jpeg-trailing-script.jpg'), 1024);
    expect(refusal.detail).not.toMatch(/script|alert/i);
    expect(refusal.message).toBe(refusal.detail);
  });
});

describe('size caps', () => {
  const cases = [
    ['image', 'python.png', (bytes: number): UploadCaps => ({ ...roomyCaps, image: bytes })],
    ['video', 'sample.mp4', (bytes: number): UploadCaps => ({ ...roomyCaps, video: bytes })],
    ['document', 'sample.pdf', (bytes: number): UploadCaps => ({ ...roomyCaps, file: bytes })],
    ['text', 'sample.txt', (bytes: number): UploadCaps => ({ ...roomyCaps, file: bytes })],
  ] as const;

  it.each(cases)('a %s exactly at its cap passes; one byte over is 413', async (_, name, capAt) => {
    const input = fixture(name);
    await expect(passThrough(input, 100, capAt(input.length))).resolves.toMatchObject({
      detected: { size: input.length },
    });
    const refusal = await refuse(input, 100, capAt(input.length - 1));
    expect(refusal).toMatchObject({ status: 413, code: 'upload_too_large' });
  });

  const png = fixture('python.png');
  const mp4 = fixture('sample.mp4');
  /** Starts that pass every check so far and leave the rest of a huge source unjudged until its end. */
  const endless = [
    // Signature and IHDR, then an IDAT chunk announcing 2 GiB.
    [
      'image',
      Buffer.concat([png.subarray(0, 33), Buffer.from([0x7f, 0xff, 0xff, 0xf0]), Buffer.from('IDAT')]),
      0,
    ],
    // ftyp, then an mdat of size 0: it runs to the end of the file.
    ['video', Buffer.concat([mp4.subarray(0, 32), Buffer.from([0, 0, 0, 0]), Buffer.from('mdat')]), 0],
    ['document', Buffer.from('%PDF-1.4\n'), 0x20],
    ['text', Buffer.from('Dear support,\n'), 0x61],
  ] as const;
  const cap = MIB;
  const caps: UploadCaps = { ...roomyCaps, file: cap, image: cap, video: cap };

  it.each(endless)(
    'a %s is cut off as soon as it passes its cap, not read to its end',
    async (_, head, fill) => {
      const { source, pulled } = countedSource(head, 64 * MIB, fill);
      const refusal = await refusalOf(source, caps);
      expect(refusal).toMatchObject({ status: 413, code: 'upload_too_large' });
      expect(pulled()).toBeGreaterThan(cap);
      // What the source had buffered ahead, a few chunks at most.
      expect(pulled()).toBeLessThan(cap + 512 * 1024);
    },
  );

  it('before the type is known, anything over the largest cap is cut off', async () => {
    const small: UploadCaps = { ...roomyCaps, file: 1000, image: 2000, video: 3000 };
    const { source, pulled } = countedSource(Buffer.from('abc'), 64 * MIB, 0x61);
    const refusal = await refusalOf(source, small);
    expect(refusal).toMatchObject({ status: 413, code: 'upload_too_large' });
    expect(pulled()).toBeLessThan(MIB);
  });
});

describe('the verdict of a stream that did not finish', () => {
  it('rejects with the error the stream was destroyed with', async () => {
    const { stream, result } = inspectUpload(roomyCaps);
    stream.on('error', () => undefined);
    const gone = new Error('client went away');
    stream.write(fixture('python.png').subarray(0, 100));
    stream.destroy(gone);
    await expect(result).rejects.toBe(gone);
  });

  it('rejects with the source error', async () => {
    const { stream, result } = inspectUpload(roomyCaps);
    const broken = new Error('connection reset');
    function* source(): Generator<Buffer> {
      yield fixture('sample.txt');
      throw broken;
    }
    await expect(pipeline(Readable.from(source()), stream, collector([]))).rejects.toBe(broken);
    await expect(result).rejects.toBe(broken);
  });

  it('raises no unhandled rejection when nobody looks at it', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      inspectUpload(roomyCaps).stream.destroy();
      const refused = inspectUpload(roomyCaps).stream;
      refused.on('error', () => undefined);
      refused.end(fixture('program.exe'));
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled).toEqual([]);
  });
});
