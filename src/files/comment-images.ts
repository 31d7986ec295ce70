import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import { imageDimensions } from './image-dimensions.ts';
import { storeUpload } from './store-upload.ts';

/** A comment's picture as stored: where, what it is, and the size it declares when that can be read. */
export interface StoredCommentImage {
  readonly storageKey: string;
  readonly contentType: string;
  readonly size: number;
  readonly width?: number;
  readonly height?: number;
}

/**
 * Comment pictures: images only, up to `maxImageBytes`, under `comments/<channelId>/<random>`. What a
 * comment that is not posted after all leaves behind is discarded by the caller.
 */
export function commentImages(storage: ObjectStorage, maxImageBytes: number) {
  const caps = { image: maxImageBytes, file: 0, video: 0 };
  return {
    async store(channelId: string, source: Readable): Promise<StoredCommentImage> {
      const key = `comments/${channelId}/${randomUUID()}`;
      const stored = await storeUpload(source, { storage, caps, key, kinds: ['image'] });
      const dimensions = await imageDimensions(storage, key, stored.size).catch(async (error: unknown) => {
        await storage.delete(key).catch(() => undefined);
        throw error;
      });
      return { storageKey: key, contentType: stored.mime, size: stored.size, ...(dimensions ?? {}) };
    },
    discard: (storageKey: string): Promise<void> => storage.delete(storageKey).catch(() => undefined),
  };
}
