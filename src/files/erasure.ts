import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';

export interface FileErasureDeps {
  readonly pool: DatabasePool;
  readonly storage: ObjectStorage;
}

export interface ErasedFiles {
  /** Rows of `files` deleted, with their objects: chat attachments, complaint attachments among them. */
  readonly files: number;
  /** Pictures of the user's comments whose objects were still stored. */
  readonly commentImages: number;
}

const BATCH = 100;
/** Storage requests in flight at once. */
const PARALLEL = 8;

async function eachInParallel(keys: readonly string[], work: (key: string) => Promise<void>): Promise<void> {
  for (let i = 0; i < keys.length; i += PARALLEL) await Promise.all(keys.slice(i, i + PARALLEL).map(work));
}

/** The user's uploads in `files`, a batch at a time: the objects first, then their rows. */
async function eraseFileRows({ pool, storage }: FileErasureDeps, userId: string): Promise<number> {
  let erased = 0;
  for (;;) {
    const rows = await pool.any(sql.type(z.object({ id: z.string(), storage_key: z.string() }))`
      SELECT id, storage_key FROM files WHERE owner_id = ${userId} ORDER BY created_at, id LIMIT ${BATCH}`);
    if (rows.length === 0) return erased;
    await eachInParallel(
      rows.map((r) => r.storage_key),
      (key) => storage.delete(key),
    );
    const deleted = await pool.query(sql.unsafe`
      DELETE FROM files WHERE id = ANY (${sql.array(
        rows.map((r) => r.id),
        'uuid',
      )})`);
    erased += deleted.rowCount;
  }
}

/**
 * Comment pictures have no row in `files`: their keys are in the comments read tables. The rows stay
 * (they are the projection's); a picture whose object is gone is answered 404.
 */
async function eraseCommentImages({ pool, storage }: FileErasureDeps, userId: string): Promise<number> {
  const keys = await pool.anyFirst(sql.type(z.object({ storage_key: z.string() }))`
    SELECT a.storage_key FROM comment_attachments a JOIN channel_comments c ON c.id = a.comment_id
    WHERE c.author_id = ${userId}`);
  let erased = 0;
  await eachInParallel(keys, async (key) => {
    if ((await storage.head(key)) === null) return;
    await storage.delete(key);
    erased += 1;
  });
  return erased;
}

/**
 * Deletes every file an erased user uploaded (decision 048) from storage, then its row: chat
 * attachments (complaint attachments are chosen among them) and the pictures of their comments. A run
 * cut short leaves rows whose objects the next run deletes; an object already missing is no error, so
 * it is safe to run again. The comment pictures are found through the comments read tables, so it runs
 * before the comments projection forgets the user's comments.
 */
export async function eraseUserFiles(deps: FileErasureDeps, userId: string): Promise<ErasedFiles> {
  const files = await eraseFileRows(deps, userId);
  const commentImages = await eraseCommentImages(deps, userId);
  return { files, commentImages };
}
