import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { UploadCaps } from './inspect.ts';
import { storeUpload } from './store-upload.ts';

/** A post's media file as stored: what the feed calls its kind, where it is, what it is. */
export interface StoredPostMedia {
  readonly kind: 'image' | 'video' | 'file';
  readonly storageKey: string;
  readonly contentType: string;
  readonly size: number;
  readonly width?: number;
  readonly height?: number;
}

// What the feed calls a file of each kind the upload checks tell apart.
const attachmentKind = { image: 'image', video: 'video', document: 'file', text: 'file' } as const;

/**
 * Post media: any allowed kind within its cap, under `posts/<postId>/<random>`, with an image's width and
 * height as its header declares them (checked against the pixel cap while it streamed). What a post then
 * refuses is discarded by the caller: it would be nobody's.
 */
export function postMedia(storage: ObjectStorage, caps: UploadCaps) {
  return {
    async store(postId: string, source: Readable): Promise<StoredPostMedia> {
      const key = `posts/${postId}/${randomUUID()}`;
      const stored = await storeUpload(source, { storage, caps, key });
      return {
        kind: attachmentKind[stored.kind],
        storageKey: key,
        contentType: stored.mime,
        size: stored.size,
        ...stored.dimensions,
      };
    },
    discard: (storageKey: string): Promise<void> => storage.delete(storageKey).catch(() => undefined),
  };
}
