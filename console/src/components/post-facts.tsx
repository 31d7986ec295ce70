import type { AdminPost } from '../api/posts.ts';
import { formatDateTime, formatNumber } from './format.ts';

export function whenOf(post: AdminPost): string {
  if (post.publishedAt !== null) return `Published ${formatDateTime(post.publishedAt)}`;
  if (post.publishAt !== null) return `Scheduled for ${formatDateTime(post.publishAt)}`;
  return `Created ${formatDateTime(post.createdAt)}`;
}

/** A post's status, its time, and how many read it and wrote under it. */
export function PostFacts({ post }: { readonly post: AdminPost }) {
  return (
    <dl className="facts">
      <div>
        <dt>Status</dt>
        <dd>
          <span className={`badge ${post.status}`}>{post.status}</span>
        </dd>
      </div>
      <div>
        <dt>When</dt>
        <dd>{whenOf(post)}</dd>
      </div>
      <div>
        <dt>Views</dt>
        <dd>{formatNumber(post.viewCount)}</dd>
      </div>
      <div>
        <dt>Comments</dt>
        <dd>{formatNumber(post.commentCount)}</dd>
      </div>
    </dl>
  );
}
