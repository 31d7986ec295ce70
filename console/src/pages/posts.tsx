import { useSearchParams } from 'react-router';
import { useChannels } from '../api/channels.ts';
import { type AdminPost, POST_STATUSES, type PostStatus, useChannelPosts } from '../api/posts.ts';
import { Field } from '../components/fields.tsx';
import { formatDateTime, formatNumber } from '../components/format.ts';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { PageHeading } from '../components/page-heading.tsx';

const statusLabels: Record<PostStatus, string> = {
  draft: 'Drafts',
  scheduled: 'Scheduled',
  published: 'Published',
  hidden: 'Hidden',
  deleted: 'Deleted',
};

const isStatus = (value: string | null): value is PostStatus =>
  POST_STATUSES.some((status) => status === value);

/** A channel's posts by status. The channel and the status are in the address, so a list can be shared. */
export function PostsPage() {
  const channels = useChannels();
  const [search, setSearch] = useSearchParams();
  const items = channels.data?.items ?? [];
  const channelId = search.get('channel') ?? items[0]?.id ?? null;
  const wanted = search.get('status');
  const status = isStatus(wanted) ? wanted : null;
  const choose = (name: 'channel' | 'status', value: string) => {
    const next = new URLSearchParams(search);
    if (value === '') next.delete(name);
    else next.set(name, value);
    setSearch(next);
  };

  if (channels.data === undefined) {
    return channels.isError ? <ErrorNotice error={channels.error} /> : <Loading what="channels" />;
  }
  return (
    <>
      <PageHeading>Posts</PageHeading>
      {items.length === 0 ? (
        <Empty>
          <p>There is no channel yet, so there are no posts.</p>
        </Empty>
      ) : (
        <div className="filters">
          <Field label="Channel">
            {(ids) => (
              <select
                {...ids}
                value={channelId ?? ''}
                onChange={(event) => {
                  choose('channel', event.target.value);
                }}
              >
                {items.map((channel) => (
                  <option key={channel.id} value={channel.id}>
                    {channel.title}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Status">
            {(ids) => (
              <select
                {...ids}
                value={status ?? ''}
                onChange={(event) => {
                  choose('status', event.target.value);
                }}
              >
                <option value="">All but deleted</option>
                {POST_STATUSES.map((value) => (
                  <option key={value} value={value}>
                    {statusLabels[value]}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      )}
      {channelId === null ? null : <PostList channelId={channelId} status={status} />}
    </>
  );
}

function PostList({ channelId, status }: { readonly channelId: string; readonly status: PostStatus | null }) {
  const posts = useChannelPosts(channelId, status);
  if (posts.data === undefined) {
    return posts.isError ? <ErrorNotice error={posts.error} /> : <Loading what="posts" />;
  }
  if (posts.data.items.length === 0) {
    return (
      <Empty>
        <p>No post {status === null ? 'in this channel' : `is ${status}`} yet.</p>
      </Empty>
    );
  }
  return (
    <>
      {posts.isError ? <ErrorNotice error={posts.error} /> : null}
      <ul className="cards">
        {posts.data.items.map((post) => (
          <PostCard key={post.id} post={post} />
        ))}
      </ul>
      {posts.data.nextCursor === null ? null : <p className="hint">Showing the newest posts only.</p>}
    </>
  );
}

function whenOf(post: AdminPost): string {
  if (post.publishedAt !== null) return `Published ${formatDateTime(post.publishedAt)}`;
  if (post.publishAt !== null) return `Scheduled for ${formatDateTime(post.publishAt)}`;
  return `Created ${formatDateTime(post.createdAt)}`;
}

function PostCard({ post }: { readonly post: AdminPost }) {
  return (
    <li className="card">
      <p className="post-text">{post.text === '' ? <em>No text</em> : post.text}</p>
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
    </li>
  );
}
