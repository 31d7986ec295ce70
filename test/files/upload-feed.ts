import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect } from 'vitest';
import {
  type InspectOptions,
  type InspectedUpload,
  type UploadCaps,
  inspectUpload,
} from '../../src/files/inspect.ts';
import { UploadRejected } from '../../src/files/types.ts';

export const MIB = 1024 * 1024;
export const roomyCaps: UploadCaps = {
  file: 10 * MIB,
  image: 10 * MIB,
  video: 50 * MIB,
  imagePixels: 50_000_000,
};

export const fixture = (name: string): Buffer =>
  readFileSync(new URL(`../fixtures/files/${name}`, import.meta.url));

/** `bytes` cut into chunks of `size` (the last may be shorter). */
export function* chunked(bytes: Uint8Array, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield Buffer.from(bytes.subarray(at, at + size));
}

/** A sink that keeps what it is given in `into`. */
export function collector(into: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      into.push(chunk);
      done();
    },
  });
}

/** Streams `bytes` through an inspection; the bytes that came out and the verdict. */
export async function passThrough(
  bytes: Uint8Array,
  chunkSize: number,
  caps: UploadCaps = roomyCaps,
  options: InspectOptions = {},
): Promise<{ output: Buffer; detected: InspectedUpload }> {
  const { stream, result } = inspectUpload(caps, options);
  const output: Buffer[] = [];
  await pipeline(Readable.from(chunked(bytes, chunkSize)), stream, collector(output));
  return { output: Buffer.concat(output), detected: await result };
}

/** Streams `source` through an inspection that must refuse it; the refusal (pipeline and result agree). */
export async function refusalOf(
  source: Iterable<Buffer>,
  caps: UploadCaps = roomyCaps,
  options: InspectOptions = {},
): Promise<UploadRejected> {
  const { stream, result } = inspectUpload(caps, options);
  const piped = pipeline(Readable.from(source), stream, collector([])).then(
    () => undefined,
    (error: unknown) => error,
  );
  const verdict = await result.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(verdict).toBeInstanceOf(UploadRejected);
  expect(await piped).toBe(verdict);
  return verdict as UploadRejected;
}

export const refuse = (bytes: Uint8Array, chunkSize: number, caps?: UploadCaps, options?: InspectOptions) =>
  refusalOf(chunked(bytes, chunkSize), caps, options);

/** `head`, then `fill` bytes up to `total`, 64 KiB at a time; `pulled` counts what the reader took. */
export function countedSource(
  head: Uint8Array,
  total: number,
  fill = 0,
): { source: Iterable<Buffer>; pulled: () => number } {
  let pulled = 0;
  function* source(): Generator<Buffer> {
    pulled += head.length;
    yield Buffer.from(head);
    const filler = Buffer.alloc(64 * 1024, fill);
    while (pulled < total) {
      const next = filler.subarray(0, Math.min(filler.length, total - pulled));
      pulled += next.length;
      yield next;
    }
  }
  return { source: source(), pulled: () => pulled };
}
