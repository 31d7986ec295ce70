import { LRUCache } from 'lru-cache';
import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import { type CsatTargetType, csatTargetTypeSchema } from '../events/csat.ts';
import { batched, groupedBy } from '../lib/batched.ts';
import { keptWhileAsked } from '../lib/kept-while-asked.ts';
import type { ReadChanges } from '../projections/changes.ts';
import { csatScope } from '../projections/csat.ts';
import { isoInstant } from './iso-instant.ts';

/** One user's ratings of one kind of target: target id → stars. */
export type RatingsByTarget = ReadonlyMap<string, number>;

/** The `rated` overlay's read: a user's ratings of conversations, or of tickets, from memory. */
export interface CsatRatings {
  of(userId: string): Promise<RatingsByTarget>;
}

/** Users whose ratings this process keeps in memory, per kind of target. */
const REMEMBERED_USERS = 100_000;

const ownRow = z.object({ user_id: z.string(), target_id: z.string(), rating: z.number().int() });

/**
 * Each user's ratings of `targetType`, cached per user under the user's csat scope (decision 022): the
 * projection moves it when they rate, on any replica, so a poll in between reads nothing, and many users'
 * first polls share one query.
 */
export function createCsatRatings(
  pool: DatabasePool,
  changes: ReadChanges,
  targetType: CsatTargetType,
): CsatRatings {
  const ratingsOf = batched(async (userIds: readonly string[]) => {
    const rows = await pool.any(sql.type(ownRow)`
      SELECT user_id, target_id, rating FROM csat_ratings
      WHERE user_id = ANY (${sql.array([...userIds], 'text')}) AND target_type = ${targetType}`);
    return groupedBy(
      userIds,
      rows,
      (r) => r.user_id,
      (own): RatingsByTarget => new Map(own.map((r) => [r.target_id, r.rating])),
    );
  });
  const cache = new LRUCache<string, RatingsByTarget, string>({
    max: REMEMBERED_USERS,
    ...keptWhileAsked,
    fetchMethod: (_key, _stale, { context: userId }) => ratingsOf(userId),
  });
  return {
    async of(userId) {
      const key = `${changes.of(csatScope(userId))}\n${userId}`;
      const found = cache.get(key) ?? (await cache.fetch(key, { context: userId }));
      if (found === undefined) throw new Error('csat ratings: nothing read');
      return found;
    },
  };
}

/** `from` inclusive, `to` exclusive, and optionally one kind of target. */
export interface CsatFilter {
  readonly from: Date;
  readonly to: Date;
  readonly targetType?: CsatTargetType | undefined;
}

// An erased user's ratings stay, without their user or comment (decision 048).
const ratingRow = z
  .object({
    id: z.string(),
    user_id: z.string().nullable(),
    target_type: csatTargetTypeSchema,
    target_id: z.string(),
    rating: z.number().int(),
    comment: z.string().nullable(),
    rated_at: isoInstant,
  })
  .transform((r) => ({
    id: r.id,
    userId: r.user_id,
    targetType: r.target_type,
    targetId: r.target_id,
    rating: r.rating,
    comment: r.comment,
    ratedAt: r.rated_at,
  }));
export type CsatRatingView = z.infer<typeof ratingRow>;

/** Where a page ends: the last row's `rated_at` (ISO) and id. */
export interface CsatCursor {
  readonly ratedAt: string;
  readonly id: string;
}

function conditions(filter: CsatFilter) {
  return sql.join(
    [
      sql.fragment`rated_at >= ${sql.timestamp(filter.from)}`,
      sql.fragment`rated_at < ${sql.timestamp(filter.to)}`,
      ...(filter.targetType ? [sql.fragment`target_type = ${filter.targetType}`] : []),
    ],
    sql.fragment` AND `,
  );
}

/** Ratings newest first, `limit` after the cursor. */
export async function csatRatingsPage(
  db: CommonQueryMethods,
  filter: CsatFilter,
  limit: number,
  after: CsatCursor | null,
): Promise<readonly CsatRatingView[]> {
  const keyset =
    after === null
      ? sql.fragment`true`
      : sql.fragment`(rated_at, id) < (${after.ratedAt}::timestamptz, ${after.id}::uuid)`;
  return db.any(sql.type(ratingRow)`
    SELECT id, user_id, target_type, target_id, rating, comment, rated_at FROM csat_ratings
    WHERE ${conditions(filter)} AND ${keyset}
    ORDER BY rated_at DESC, id DESC
    LIMIT ${limit}`);
}

const STARS = [1, 2, 3, 4, 5] as const;
export type Distribution = Record<'1' | '2' | '3' | '4' | '5', number>;

export interface CsatSummary {
  readonly count: number;
  /** Null with no rating in the filter. */
  readonly average: number | null;
  readonly distribution: Distribution;
}

const starRow = z.object({ rating: z.number().int(), count: z.coerce.number() });

/** How many ratings the filter holds, their average, and how many of each star. */
export async function csatSummary(db: CommonQueryMethods, filter: CsatFilter): Promise<CsatSummary> {
  const rows = await db.any(sql.type(starRow)`
    SELECT rating, count(*) AS count FROM csat_ratings WHERE ${conditions(filter)} GROUP BY rating`);
  const distribution = Object.fromEntries(
    STARS.map((star) => [String(star), rows.find((r) => r.rating === star)?.count ?? 0]),
  ) as Distribution;
  const count = rows.reduce((sum, r) => sum + r.count, 0);
  const total = rows.reduce((sum, r) => sum + r.rating * r.count, 0);
  return { count, average: count === 0 ? null : total / count, distribution };
}

const dayRow = z.object({ day: z.string(), count: z.coerce.number(), average: z.coerce.number() });

/** Count and average rating per UTC day that has any, oldest first. */
export async function csatByDay(
  db: CommonQueryMethods,
  filter: CsatFilter,
): Promise<readonly z.infer<typeof dayRow>[]> {
  return db.any(sql.type(dayRow)`
    SELECT to_char(rated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS count,
      avg(rating)::float8 AS average
    FROM csat_ratings WHERE ${conditions(filter)}
    GROUP BY 1 ORDER BY 1`);
}
