import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { UploadCaps } from './inspect.ts';
import { storeUpload } from './store-upload.ts';

/** A comment's picture as stored: where, what it is, and the size its header declares. */
export interface StoredCommentImage {
  readonly storageKey: string;
  readonly contentType: string;
  readonly size: number;
  readonly width?: number;
  readonly height?: number;
}

/**
 * Comment pictures: images only, within the image caps (bytes and pixels), under
 * `comments/<channelId>/<random>`. What a comment that is not posted after all leaves behind is
 * discarded by the caller.
 */
export function commentImages(storage: ObjectStorage, caps: Pick<UploadCaps, 'image' | 'imagePixels'>) {
  const imageCaps = { image: caps.image, imagePixels: caps.imagePixels, file: 0, video: 0 };
  return {
    async store(channelId: string, source: Readable): Promise<StoredCommentImage> {
      const key = `comments/${channelId}/${randomUUID()}`;
      const stored = await storeUpload(source, { storage, caps: imageCaps, key, kinds: ['image'] });
      return { storageKey: key, contentType: stored.mime, size: stored.size, ...stored.dimensions };
    },
    discard: (storageKey: string): Promise<void> => storage.delete(storageKey).catch(() => undefined),
  };
}
