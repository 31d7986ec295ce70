import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import type { PushBroadcaster } from './queue-dispatcher.ts';

// System notices an admin sent (plain state, decision 003): what they said, to whom, by whom. The push
// of each is a source of its own (`notice:<id>`) in push_log, with its deliveries.

export interface Notice {
  readonly id: string;
  readonly title: string;
  readonly body: string;
  /** null: every user with a device. */
  readonly userIds: readonly string[] | null;
  readonly adminId: string;
  readonly createdAt: Date;
}

const row = z
  .object({
    id: z.string(),
    title: z.string(),
    body: z.string(),
    user_ids: z.array(z.string()).nullable(),
    admin_id: z.string(),
    created_at: z.coerce.date(),
  })
  .transform((r) => ({
    id: r.id,
    title: r.title,
    body: r.body,
    userIds: r.user_ids,
    adminId: r.admin_id,
    createdAt: r.created_at,
  }));

export const noticeSourceId = (noticeId: string): string => `notice:${noticeId}`;

/** Stored at a whole millisecond: the list's cursor carries the instant as `toISOString` writes it. */
export async function saveNotice(db: CommonQueryMethods, notice: Omit<Notice, 'createdAt'>): Promise<Notice> {
  return db.one(sql.type(row)`
    INSERT INTO push_notices (id, title, body, user_ids, admin_id, created_at)
    VALUES (${notice.id}, ${notice.title}, ${notice.body},
      ${notice.userIds === null ? null : sql.array([...notice.userIds], 'text')}, ${notice.adminId},
      ${new Date().toISOString()}::timestamptz)
    RETURNING id, title, body, user_ids, admin_id, created_at`);
}

export async function forgetNotice(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM push_notices WHERE id = ${id}`);
}

export async function findNotice(db: CommonQueryMethods, id: string): Promise<Notice | null> {
  return db.maybeOne(sql.type(row)`
    SELECT id, title, body, user_ids, admin_id, created_at FROM push_notices WHERE id = ${id}`);
}

/** Newest first; `before` is the (created_at, id) of the last notice of the previous page. */
export async function listNotices(
  db: CommonQueryMethods,
  page: { readonly limit: number; readonly before: { readonly at: string; readonly id: string } | null },
): Promise<readonly Notice[]> {
  const after = page.before;
  return db.any(sql.type(row)`
    SELECT id, title, body, user_ids, admin_id, created_at FROM push_notices
    WHERE ${after === null ? sql.fragment`true` : sql.fragment`(created_at, id) < (${after.at}::timestamptz, ${after.id})`}
    ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
}

/**
 * Stores a notice and queues its push (to `userIds`, or everyone with a device). A notice whose push could
 * not be queued was not sent, so it is not kept either.
 */
export async function sendNotice(
  deps: { readonly pool: DatabasePool; readonly broadcaster: PushBroadcaster },
  notice: Omit<Notice, 'createdAt'>,
): Promise<Notice> {
  const saved = await saveNotice(deps.pool, notice);
  const content = { kind: 'notice', noticeId: notice.id, title: notice.title, body: notice.body } as const;
  try {
    await deps.broadcaster.broadcast(noticeSourceId(notice.id), content, notice.userIds);
  } catch (error) {
    await forgetNotice(deps.pool, notice.id);
    throw error;
  }
  return saved;
}
