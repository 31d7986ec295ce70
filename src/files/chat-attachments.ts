import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type FileRecord, insertFile } from './file-records.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { UploadCaps } from './inspect.ts';
import { chatAttachmentKey } from './keys.ts';
import { sanitiseFileName } from './names.ts';
import { storeUpload } from './store-upload.ts';

export interface ChatAttachmentDeps {
  readonly pool: DatabasePool;
  readonly storage: ObjectStorage;
  readonly caps: UploadCaps;
}

/** Stores one chat attachment: bytes first, then its row; nothing stays when either fails. */
export async function storeChatAttachment(
  deps: ChatAttachmentDeps,
  ownerId: string,
  part: { file: Readable; filename: string },
): Promise<FileRecord> {
  const key = chatAttachmentKey(ownerId);
  const detected = await storeUpload(part.file, { storage: deps.storage, caps: deps.caps, key });
  try {
    return await insertFile(deps.pool, {
      id: randomUUID(),
      ownerId,
      storageKey: key,
      contentType: detected.mime,
      kind: detected.kind,
      size: detected.size,
      name: sanitiseFileName(part.filename, detected.ext),
    });
  } catch (error) {
    await deps.storage.delete(key).catch(() => undefined);
    throw error;
  }
}
