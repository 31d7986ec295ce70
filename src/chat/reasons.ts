import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';

// Reason lists are plain state (decision 003): the panel edits them, GET /api/config serves them.
export const reasonKinds = ['support', 'complaint'] as const;
export type ReasonKind = (typeof reasonKinds)[number];

const reasonRow = z.object({
  id: z.string(),
  kind: z.enum(reasonKinds),
  title: z.string(),
  sort_order: z.number(),
  active: z.boolean(),
  created_at: z.coerce.date(),
  updated_at: z.coerce.date(),
});

export interface Reason {
  readonly id: string;
  readonly kind: ReasonKind;
  readonly title: string;
  readonly order: number;
  readonly active: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const toReason = (r: z.infer<typeof reasonRow>): Reason => ({
  id: r.id,
  kind: r.kind,
  title: r.title,
  order: r.sort_order,
  active: r.active,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const columns = sql.fragment`id, kind, title, sort_order, active, created_at, updated_at`;

/** Every reason not deleted, active or not, by kind and order. */
export async function listReasons(pool: DatabasePool): Promise<Reason[]> {
  const rows = await pool.any(sql.type(reasonRow)`
    SELECT ${columns} FROM reasons WHERE deleted_at IS NULL ORDER BY kind, sort_order, id`);
  return rows.map(toReason);
}

/** The active reasons of each kind, in order: what clients offer. */
export async function activeReasons(
  pool: DatabasePool,
): Promise<Record<ReasonKind, { id: string; title: string }[]>> {
  const rows = await pool.any(sql.prepared(
    'active_reasons',
    z.object({ id: z.string(), kind: z.enum(reasonKinds), title: z.string() }),
  )`
    SELECT id, kind, title FROM reasons WHERE deleted_at IS NULL AND active
    ORDER BY kind, sort_order, id`);
  const lists: Record<ReasonKind, { id: string; title: string }[]> = { support: [], complaint: [] };
  for (const r of rows) lists[r.kind].push({ id: r.id, title: r.title });
  return lists;
}

export interface NewReason {
  readonly id: string;
  readonly kind: ReasonKind;
  readonly title: string;
  /** Placed after the last of its kind when absent. */
  readonly order?: number | undefined;
  readonly active?: boolean | undefined;
}

export async function insertReason(pool: DatabasePool, reason: NewReason): Promise<Reason> {
  const row = await pool.one(sql.type(reasonRow)`
    INSERT INTO reasons (id, kind, title, sort_order, active)
    VALUES (${reason.id}, ${reason.kind}, ${reason.title},
      COALESCE(${reason.order ?? null}::int,
        (SELECT COALESCE(max(sort_order), 0) + 1 FROM reasons WHERE kind = ${reason.kind})),
      ${reason.active ?? true})
    RETURNING ${columns}`);
  return toReason(row);
}

export interface ReasonPatch {
  readonly title?: string | undefined;
  readonly order?: number | undefined;
  readonly active?: boolean | undefined;
}

/** The changed reason; null when there is none with this id (or it was deleted). */
export async function updateReason(
  pool: DatabasePool,
  id: string,
  patch: ReasonPatch,
): Promise<Reason | null> {
  const row = await pool.maybeOne(sql.type(reasonRow)`
    UPDATE reasons SET
      title = COALESCE(${patch.title ?? null}::text, title),
      sort_order = COALESCE(${patch.order ?? null}::int, sort_order),
      active = COALESCE(${patch.active ?? null}::boolean, active),
      updated_at = now()
    WHERE id = ${id} AND deleted_at IS NULL
    RETURNING ${columns}`);
  return row ? toReason(row) : null;
}

/**
 * Deletes a reason for clients and the panel; the row stays (with its title), because complaints and
 * requests refer to it by id. False when there is none with this id.
 */
export async function deleteReason(pool: DatabasePool, id: string): Promise<boolean> {
  const result = await pool.query(sql.unsafe`
    UPDATE reasons SET deleted_at = now(), active = false, updated_at = now()
    WHERE id = ${id} AND deleted_at IS NULL`);
  return result.rowCount > 0;
}
