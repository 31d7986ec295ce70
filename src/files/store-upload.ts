import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import { type InspectedUpload, type InspectOptions, inspectUpload, type UploadCaps } from './inspect.ts';

export interface StoreUploadOptions extends InspectOptions {
  readonly storage: ObjectStorage;
  readonly caps: UploadCaps;
  /** Where the bytes go: a random key made by the caller. */
  readonly key: string;
}

/**
 * Streams an upload through the content checks into storage, for every feature that takes files (chat
 * attachments, comment images, post media). Resolves with what the bytes are once all of them are stored
 * and checked; otherwise nothing is left under the key and it rejects with the refusal (`UploadRejected`)
 * or the error that broke the stream. A file refused on its head (its type, an image's declared
 * dimensions) is never written at all.
 */
export async function storeUpload(source: Readable, options: StoreUploadOptions): Promise<InspectedUpload> {
  const { storage, key } = options;
  const inspection = inspectUpload(options.caps, options.kinds ? { kinds: options.kinds } : {});
  const abort = new AbortController();
  // The client's bytes flow into the checks, the checks' output into storage. A refusal or a dropped
  // connection errors the chain, which aborts the write.
  const feeding = pipeline(source, inspection.stream).catch((error: unknown) => {
    abort.abort(error);
  });
  let writing = false;
  try {
    // Storage is not touched before the head has passed: an image bomb leaves no object, not even a
    // multipart upload begun and aborted.
    await inspection.accepted;
    writing = true;
    await storage.put(key, inspection.stream, {
      contentType: 'application/octet-stream',
      signal: abort.signal,
    });
    await feeding;
    return await inspection.result;
  } catch (error) {
    if (writing) await storage.delete(key).catch(() => undefined);
    // The checks' verdict explains a failed write better than the write's own error.
    throw await inspection.result.then(
      () => error,
      (verdict: unknown) => verdict,
    );
  }
}
