import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { writeBody } from './body.ts';
import { assertByteRange, assertStorageKey } from './keys.ts';
import { LOCAL_TEMP_DIR as TEMP_DIR } from './local-temp.ts';
import type { ObjectInfo, ObjectStorage } from './port.ts';

// Object files carry a suffix so that key `a` (file `a.object`) and key `a/b` (directory `a`) can both
// exist, as in S3. Keys have no '.', so neither the suffix nor the temporary directory can clash with one.
const SUFFIX = '.object';
const LENGTH_BYTES = 2;

/**
 * Objects as files below `dir`. The content type is stored in the file itself, ahead of the bytes (a
 * 2-byte length, then UTF-8), so the one rename that publishes an object publishes its type with it, and a
 * reader holding the file open sees one version of both while a put or delete replaces it.
 */
export function localStorage(dir: string): ObjectStorage {
  const pathOf = (key: string): string => {
    assertStorageKey(key);
    return join(dir, `${key}${SUFFIX}`);
  };
  return {
    kind: 'local',
    async put(key, body, { contentType, signal }) {
      const path = pathOf(key);
      const header = encodeHeader(contentType);
      const temp = join(dir, TEMP_DIR, randomUUID());
      const write = async (bytes: AsyncIterable<Uint8Array>) => {
        await mkdir(dirname(temp), { recursive: true, mode: 0o700 });
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        await pipeline(prepend(header, bytes), createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      };
      try {
        // Nothing to take back before the rename: the catch removes the temporary file.
        const size = await writeBody(body, signal, write, async () => {});
        await rename(temp, path);
        return { size };
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
    async get(key, range) {
      if (range) assertByteRange(range);
      const opened = await openObject(pathOf(key));
      if (!opened) return null;
      const { handle, offset, info } = opened;
      if (!range) return { ...info, body: handle.createReadStream({ start: offset }), range: null };
      if (range.start >= info.size) {
        await handle.close();
        throw new RangeError(`byte range ${range.start}-${range.end} starts past the end`);
      }
      // As S3 does, a range running past the end is cut at the last byte.
      const served = { start: range.start, end: Math.min(range.end, info.size - 1) };
      const body = handle.createReadStream({ start: offset + served.start, end: offset + served.end });
      return { ...info, body, range: served };
    },
    async head(key) {
      const opened = await openObject(pathOf(key));
      await opened?.handle.close();
      return opened?.info ?? null;
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async close() {},
  };
}

function encodeHeader(contentType: string): Buffer {
  const type = Buffer.from(contentType, 'utf8');
  if (type.length >= 2 ** (8 * LENGTH_BYTES)) throw new RangeError('content type too long');
  const header = Buffer.alloc(LENGTH_BYTES);
  header.writeUIntBE(type.length, 0, LENGTH_BYTES);
  return Buffer.concat([header, type]);
}

async function* prepend(header: Uint8Array, bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield header;
  yield* bytes;
}

interface OpenObject {
  readonly handle: FileHandle;
  /** Where the object's bytes start in the file. */
  readonly offset: number;
  readonly info: ObjectInfo;
}

async function openObject(path: string): Promise<OpenObject | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
  try {
    const length = await readExactly(handle, LENGTH_BYTES, 0);
    const type = await readExactly(handle, length.readUIntBE(0, LENGTH_BYTES), LENGTH_BYTES);
    const offset = LENGTH_BYTES + type.length;
    const { size } = await handle.stat();
    return { handle, offset, info: { size: size - offset, contentType: type.toString('utf8') } };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function readExactly(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length) throw new Error('object file is truncated');
  return buffer;
}
