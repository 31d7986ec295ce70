import { Link, useParams } from 'react-router';
import { type PostStats, usePost, usePostStats } from '../api/posts.ts';
import { can } from '../api/session.ts';
import { type Bar, BarChart } from '../components/bar-chart.tsx';
import { formatDay, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { PostFacts } from '../components/post-facts.tsx';
import { PushProgress } from '../components/push-progress.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/posts.css';

/** The longest run of days a chart shows: the latest ones. */
const MAX_DAYS = 92;
const DAY_MS = 86_400_000;

/** Every UTC day from the first to the last of the series, so a quiet day shows as a zero. */
function daysOf(...series: readonly (readonly { day: string }[])[]): string[] {
  const days = series.flat().map(({ day }) => Date.parse(`${day}T00:00:00Z`));
  if (days.length === 0) return [];
  const last = Math.max(...days);
  const first = Math.max(Math.min(...days), last - (MAX_DAYS - 1) * DAY_MS);
  const all: string[] = [];
  for (let at = first; at <= last; at += DAY_MS) all.push(new Date(at).toISOString().slice(0, 10));
  return all;
}

function perDay(series: readonly { day: string; count: number }[], days: readonly string[]): Bar[] {
  const counts = new Map(series.map(({ day, count }) => [day, count]));
  return days.map((day) => ({ label: formatDay(day), value: counts.get(day) ?? 0 }));
}

/** Clicks by button: a removed button has no label left, and two buttons may share one. */
function byButton(clicks: PostStats['clicks']['byButton']): Bar[] {
  const seen = new Map<string, number>();
  return clicks.map(({ label, count }) => {
    const name = label ?? 'Removed button';
    const nth = (seen.get(name) ?? 0) + 1;
    seen.set(name, nth);
    return { label: nth === 1 ? name : `${name} (${String(nth)})`, value: count };
  });
}

/** A post's numbers (`/posts/:postId/stats`): views, clicks, reactions and its push. */
export function PostStatsPage() {
  const admin = useAdmin();
  const { postId = '' } = useParams();
  const stats = usePostStats(postId);
  const post = usePost(postId);
  if (!can(admin, 'posts.write')) return <NotAllowed what="see the numbers of posts" />;
  if (stats.data === undefined) {
    return stats.isError ? <ErrorNotice error={stats.error} /> : <Loading what="the post's numbers" />;
  }
  const { views, clicks, reactions, push } = stats.data;
  const days = daysOf(views.byDay, clicks.byDay);
  const emoji = Object.entries(reactions).map(([label, value]) => ({ label, value }));
  const reactionTotal = emoji.reduce((sum, bar) => sum + bar.value, 0);
  const published = (post.data?.publishedAt ?? null) !== null;
  return (
    <>
      <PageHeading>Post stats</PageHeading>
      {post.data ? (
        <>
          <p className="post-text">{post.data.text === '' ? <em>No text</em> : post.data.text}</p>
          <PostFacts post={post.data} />
          <p>
            <Link to={`/posts/${postId}`}>Edit this post</Link>
          </p>
        </>
      ) : null}
      {stats.isError ? <ErrorNotice error={stats.error} /> : null}
      <dl className="totals">
        <div>
          <dt>Views</dt>
          <dd>{formatNumber(views.total)}</dd>
        </div>
        <div>
          <dt>Clicks</dt>
          <dd>{formatNumber(clicks.total)}</dd>
        </div>
        <div>
          <dt>Reactions</dt>
          <dd>{formatNumber(reactionTotal)}</dd>
        </div>
      </dl>
      {views.total + clicks.total + reactionTotal === 0 ? (
        <Empty>
          <p>No reader has {published ? 'seen this post yet' : 'seen this post: it is not published'}.</p>
        </Empty>
      ) : null}
      <div className="stats-grid">
        <BarChart title="Views per day (UTC)" unit="views" bars={perDay(views.byDay, days)} />
        <BarChart title="Clicks per day (UTC)" unit="clicks" bars={perDay(clicks.byDay, days)} />
        <BarChart title="Reactions by emoji" unit="reactions" bars={emoji} />
        <BarChart title="Clicks by button" unit="clicks" bars={byButton(clicks.byButton)} />
      </div>
      <section className="push-section" aria-labelledby="push-title">
        <h2 id="push-title">Push notification</h2>
        {push === null ? (
          <p>No push notification has been sent for this post.</p>
        ) : (
          <PushProgress progress={push} />
        )}
      </section>
    </>
  );
}
