import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { CommandContext } from '../commands/handler.ts';
import { handlePostCommand } from '../commands/posts.ts';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import { imageDimensions } from './image-dimensions.ts';
import type { UploadCaps } from './inspect.ts';
import { storeUpload } from './store-upload.ts';

export interface PostMediaDeps {
  readonly store: EventStore;
  readonly storage: ObjectStorage;
  readonly caps: UploadCaps;
}

// What the feed calls a file of each kind the upload checks tell apart.
const attachmentKind = { image: 'image', video: 'video', document: 'file', text: 'file' } as const;

/**
 * Adds media to a post: the bytes through the upload checks into `posts/<postId>/<random>`, an image's
 * width and height read from them, then the post's `addAttachment` command. When the post refuses it
 * (unknown, deleted, full), the bytes are removed: they would be nobody's.
 */
export async function attachPostMedia(
  deps: PostMediaDeps,
  postId: string,
  source: Readable,
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  const key = `posts/${postId}/${randomUUID()}`;
  const stored = await storeUpload(source, { storage: deps.storage, caps: deps.caps, key });
  try {
    const dimensions = stored.kind === 'image' ? await imageDimensions(deps.storage, key, stored.size) : null;
    const attachment = {
      id: randomUUID(),
      kind: attachmentKind[stored.kind],
      storageKey: key,
      contentType: stored.mime,
      size: stored.size,
      ...(dimensions ?? {}),
    };
    const at = new Date().toISOString();
    const { position } = await handlePostCommand(
      deps.store,
      postId,
      { type: 'addAttachment', attachment, at },
      context,
    );
    return { position };
  } catch (error) {
    await deps.storage.delete(key).catch(() => undefined);
    throw error;
  }
}
