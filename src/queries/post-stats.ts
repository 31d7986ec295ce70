import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

export interface PostStats {
  readonly postId: string;
  /** `total` counts every view; `byDay` those of users not erased since. */
  readonly views: { readonly total: number; readonly byDay: { day: string; count: number }[] };
  readonly reactions: Readonly<Record<string, number>>;
  readonly clicks: {
    readonly total: number;
    readonly byButton: { buttonId: string; label: string | null; count: number }[];
    readonly byDay: { day: string; count: number }[];
  };
  /** Published with `notify`: a push went (or is going) out. */
  readonly notified: boolean;
}

const perDay = z.object({ day: z.string(), count: z.number() });

/** A post's numbers for its authors: views and clicks per UTC day, reactions by emoji, clicks by button. */
export async function postStats(db: CommonQueryMethods, postId: string): Promise<PostStats | null> {
  const post = await db.maybeOne(sql.type(z.object({ notified: z.boolean(), view_count: z.number() }))`
    SELECT notify AND published_at IS NOT NULL AS notified, view_count FROM channel_posts WHERE id = ${postId}`);
  if (post === null) return null;
  const day = (column: string) =>
    sql.fragment`to_char(${sql.identifier([column])} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const viewsByDay = await db.any(sql.type(perDay)`
    SELECT ${day('viewed_at')} AS day, count(*)::int AS count FROM post_views WHERE post_id = ${postId}
    GROUP BY 1 ORDER BY 1`);
  const reactions = await db.any(sql.type(z.object({ emoji: z.string(), count: z.number() }))`
    SELECT emoji, count FROM post_reaction_counts WHERE post_id = ${postId} AND count > 0 ORDER BY emoji`);
  // Buttons removed since keep their clicks; their label is then unknown (null).
  const byButton = await db.any(sql.type(
    z.object({ button_id: z.string(), label: z.string().nullable(), count: z.number() }),
  )`
    SELECT c.button_id, b.label, count(*)::int AS count
    FROM post_button_clicks c LEFT JOIN post_buttons b ON b.post_id = c.post_id AND b.id = c.button_id
    WHERE c.post_id = ${postId} GROUP BY c.button_id, b.label ORDER BY count DESC, c.button_id`);
  const clicksByDay = await db.any(sql.type(perDay)`
    SELECT ${day('clicked_at')} AS day, count(*)::int AS count FROM post_button_clicks WHERE post_id = ${postId}
    GROUP BY 1 ORDER BY 1`);
  const sum = (rows: readonly { count: number }[]) => rows.reduce((n, r) => n + r.count, 0);
  return {
    postId,
    // Erased users' views leave `post_views` (and so the days) but stay in the post's count (decision 048).
    views: { total: post.view_count, byDay: [...viewsByDay] },
    reactions: Object.fromEntries(reactions.map((r) => [r.emoji, r.count])),
    clicks: {
      total: sum(byButton),
      byButton: byButton.map((b) => ({ buttonId: b.button_id, label: b.label, count: b.count })),
      byDay: [...clicksByDay],
    },
    notified: post.notified,
  };
}
