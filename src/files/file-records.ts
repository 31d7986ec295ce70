import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';

// Uploaded files' metadata is plain state (decision 003); the bytes are in object storage.
const fileRow = z.object({
  id: z.string(),
  owner_id: z.string(),
  storage_key: z.string(),
  content_type: z.string(),
  kind: z.enum(['image', 'video', 'document', 'text']),
  size: z.coerce.number(),
  original_name: z.string(),
  created_at: z.coerce.date(),
});

export interface FileRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly storageKey: string;
  readonly contentType: string;
  readonly kind: z.infer<typeof fileRow>['kind'];
  readonly size: number;
  readonly name: string;
  readonly createdAt: Date;
}

const columns = sql.fragment`id, owner_id, storage_key, content_type, kind, size, original_name, created_at`;

const toRecord = (r: z.infer<typeof fileRow>): FileRecord => ({
  id: r.id,
  ownerId: r.owner_id,
  storageKey: r.storage_key,
  contentType: r.content_type,
  kind: r.kind,
  size: r.size,
  name: r.original_name,
  createdAt: r.created_at,
});

export async function insertFile(
  pool: DatabasePool,
  file: Omit<FileRecord, 'createdAt'>,
): Promise<FileRecord> {
  const row = await pool.one(sql.type(fileRow)`
    INSERT INTO files (id, owner_id, storage_key, content_type, kind, size, original_name)
    VALUES (${file.id}, ${file.ownerId}, ${file.storageKey}, ${file.contentType}, ${file.kind}, ${file.size},
      ${file.name})
    RETURNING ${columns}`);
  return toRecord(row);
}

export async function findFile(pool: DatabasePool, id: string): Promise<FileRecord | null> {
  const row = await pool.maybeOne(
    sql.prepared('find_file', fileRow)`SELECT ${columns} FROM files WHERE id = ${id}`,
  );
  return row ? toRecord(row) : null;
}
