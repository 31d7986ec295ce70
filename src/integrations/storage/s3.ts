import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { writeBody } from './body.ts';
import { assertByteRange, assertStorageKey } from './keys.ts';
import type { ObjectStorage } from './port.ts';

export interface S3StorageOptions {
  readonly bucket: string;
  /** us-east-1 when not given. */
  readonly region?: string;
  /** An S3-compatible server; AWS itself when not given. */
  readonly endpoint?: string;
  readonly forcePathStyle: boolean;
  /** The SDK's default chain (AWS_ACCESS_KEY_ID and the rest) when not given. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

// S3's smallest part; bodies of unknown length are held in memory a part at a time per queue slot.
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export function s3Storage(options: S3StorageOptions): ObjectStorage {
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
  });
  const Bucket = options.bucket;
  const remove = async (key: string): Promise<void> => {
    await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
  };
  return {
    kind: 's3',
    async put(key, body, { contentType, signal }) {
      assertStorageKey(key);
      // No abortController: with one, done() rejects at once while a request already sent (a whole small
      // object's PUT) still lands afterwards. The abort ends the body instead, so done() settles only when
      // every request has, after lib-storage has aborted a multipart upload.
      const upload = async (bytes: AsyncIterable<Uint8Array>): Promise<void> => {
        const params = { Bucket, Key: key, Body: Readable.from(bytes), ContentType: contentType };
        await new Upload({ client, params, partSize: PART_SIZE, queueSize: QUEUE_SIZE }).done();
      };
      return { size: await writeBody(body, signal, upload, () => remove(key)) };
    },
    async get(key, range) {
      assertStorageKey(key);
      if (range) assertByteRange(range);
      const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
      const response = await orNull(client.send(new GetObjectCommand({ Bucket, Key: key, Range })));
      if (!response) return null;
      const { Body: body } = response;
      if (!(body instanceof Readable)) throw new Error('S3 answered without a body stream');
      const contentType = response.ContentType ?? DEFAULT_CONTENT_TYPE;
      if (!range) return { body, contentType, size: known(response.ContentLength), range: null };
      const { start, end, size } = parseContentRange(response.ContentRange);
      if (start !== range.start || end !== Math.min(range.end, size - 1)) {
        body.destroy();
        throw new Error(`S3 served bytes ${start}-${end} for a request of ${range.start}-${range.end}`);
      }
      return { body, contentType, size, range: { start, end } };
    },
    async head(key) {
      assertStorageKey(key);
      const response = await orNull(client.send(new HeadObjectCommand({ Bucket, Key: key })));
      if (!response) return null;
      return {
        size: known(response.ContentLength),
        contentType: response.ContentType ?? DEFAULT_CONTENT_TYPE,
      };
    },
    async delete(key) {
      assertStorageKey(key);
      await remove(key);
    },
    async close() {
      client.destroy();
    },
  };
}

/** The request's answer, or null when the object is missing (GET says NoSuchKey, HEAD only NotFound). */
async function orNull<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.name === 'NotFound')) {
      return null;
    }
    throw error;
  }
}

function known(length: number | undefined): number {
  if (length === undefined) throw new Error('S3 answered without a content length');
  return length;
}

function parseContentRange(header: string | undefined): { start: number; end: number; size: number } {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
  // A server that ignores Range answers with the whole object, which must not pass for the range.
  if (!match) throw new Error(`S3 answered a range request with Content-Range ${String(header)}`);
  return { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) };
}
