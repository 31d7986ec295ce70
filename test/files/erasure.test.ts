import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eraseUserFiles } from '../../src/files/erasure.ts';
import { insertFile } from '../../src/files/file-records.ts';
import { chatAttachmentKey } from '../../src/files/keys.ts';
import { loadLiveState } from '../../src/projections/checkpoints.ts';
import { commentsProjection } from '../../src/projections/comments.ts';
import { type Tables, tablesOf } from '../../src/projections/projection.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type TestStorage, testStorages } from '../support/storage.ts';

// Erasing a user's uploads (decision 048) from each storage adapter: the objects and the rows of `files`,
// and the pictures of the user's comments, whose keys are in the comments read tables.

describe.each(testStorages())('eraseUserFiles on %s storage', (_name, makeStorage) => {
  let storage: TestStorage;
  let db: TestDatabase;
  let comments: Tables<'channel_comments' | 'comment_attachments'>;
  beforeAll(async () => {
    storage = await makeStorage();
    db = await createTestDatabase();
    const { generation } = await loadLiveState(db.pool, commentsProjection);
    comments = tablesOf(commentsProjection, generation);
  });
  afterAll(async () => {
    await db.drop();
    await storage.cleanup();
  });

  const store = (key: string) =>
    storage.storage.put(key, Readable.from([Buffer.from(`bytes of ${key}`)]), { contentType: 'image/png' });

  /** A chat attachment (or one a complaint names): its object, then its row. */
  async function upload(ownerId: string, { stored = true } = {}): Promise<string> {
    const key = chatAttachmentKey(ownerId);
    if (stored) await store(key);
    await insertFile(db.pool, {
      id: randomUUID(),
      ownerId,
      storageKey: key,
      contentType: 'image/png',
      kind: 'image',
      size: 12,
      name: 'photo.png',
    });
    return key;
  }

  /** A comment with a picture, as the comments projection holds it. */
  async function commentPicture(authorId: string): Promise<string> {
    const [id, channelId] = [randomUUID(), randomUUID()];
    const key = `comments/${channelId}/${randomUUID()}`;
    await store(key);
    await db.pool.query(sql.unsafe`
      INSERT INTO ${comments.channel_comments}
        (id, channel_id, post_id, author_id, text, status, created_at, updated_at, change_seq)
      VALUES (${id}, ${channelId}, ${randomUUID()}, ${authorId}, 'look', 'visible', now(), now(),
        (SELECT COALESCE(max(change_seq), 0) + 1 FROM ${comments.channel_comments}))`);
    await db.pool.query(sql.unsafe`
      INSERT INTO ${comments.comment_attachments} (comment_id, storage_key, content_type, size)
      VALUES (${id}, ${key}, 'image/png', 12)`);
    return key;
  }

  const fileKeys = (ownerId: string) =>
    db.pool.anyFirst(sql.type(z.object({ storage_key: z.string() }))`
      SELECT storage_key FROM files WHERE owner_id = ${ownerId} ORDER BY storage_key`);
  const sorted = (keys: readonly string[]) => [...keys].sort();

  it('deletes the user’s files and comment pictures, objects and rows; another user’s stay; again, nothing to do', async () => {
    const [erased, kept] = [`erased-${randomUUID()}`, `kept-${randomUUID()}`];
    const erasedObjects = [await upload(erased), await upload(erased), await commentPicture(erased)];
    // A row whose object is already gone (a run cut short after the delete, say).
    await upload(erased, { stored: false });
    const keptObjects = [await upload(kept), await commentPicture(kept)];
    const before = await storage.keys();
    for (const key of [...erasedObjects, ...keptObjects]) expect(before).toContain(key);

    expect(await eraseUserFiles({ pool: db.pool, storage: storage.storage }, erased)).toEqual({
      files: 3,
      commentImages: 1,
    });

    const after = await storage.keys();
    for (const key of erasedObjects) expect(after).not.toContain(key);
    expect(sorted(after)).toEqual(sorted(before.filter((k) => !erasedObjects.includes(k))));
    expect(await fileKeys(erased)).toEqual([]);
    expect(await fileKeys(kept)).toEqual([keptObjects[0]]);

    expect(await eraseUserFiles({ pool: db.pool, storage: storage.storage }, erased)).toEqual({
      files: 0,
      commentImages: 0,
    });
    expect(sorted(await storage.keys())).toEqual(sorted(after));
    expect(await fileKeys(kept)).toEqual([keptObjects[0]]);
  });
});
