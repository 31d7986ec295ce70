import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

/** `from` inclusive, `to` exclusive. */
export interface Period {
  readonly from: Date;
  readonly to: Date;
}

export interface DurationStats {
  readonly count: number;
  /** Interpolated percentiles (PostgreSQL's `percentile_cont`); null with no conversation closed. */
  readonly medianSeconds: number | null;
  readonly p90Seconds: number | null;
}

const statsRow = z.object({
  count: z.coerce.number(),
  median: z.number().nullable(),
  p90: z.number().nullable(),
});
const dayRow = z.object({ day: z.string(), count: z.coerce.number(), median: z.number() });

const stats = (row: z.infer<typeof statsRow>): DurationStats => ({
  count: row.count,
  medianSeconds: row.median,
  p90Seconds: row.p90,
});

/**
 * How long conversations closed in the period ran (`conversation_durations`, written when the close
 * webhook is processed): overall, and the count and median per UTC day of the close that has any.
 */
export async function conversationDurations(
  db: CommonQueryMethods,
  period: Period,
): Promise<{ readonly total: DurationStats; readonly days: readonly z.infer<typeof dayRow>[] }> {
  const within = sql.fragment`
    closed_at >= ${sql.timestamp(period.from)} AND closed_at < ${sql.timestamp(period.to)}`;
  const [total, days] = await Promise.all([
    db.one(sql.type(statsRow)`
      SELECT count(*) AS count,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_seconds) AS median,
        percentile_cont(0.9) WITHIN GROUP (ORDER BY duration_seconds) AS p90
      FROM conversation_durations WHERE ${within}`),
    db.any(sql.type(dayRow)`
      SELECT to_char(closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS count,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_seconds) AS median
      FROM conversation_durations WHERE ${within}
      GROUP BY 1 ORDER BY 1`),
  ]);
  return { total: stats(total), days };
}
