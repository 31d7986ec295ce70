import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useChannels } from '../api/channels.ts';
import { type AdminPost, POST_STATUSES, type PostStatus, useChannelPosts } from '../api/posts.ts';
import { Field } from '../components/fields.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { PostFacts } from '../components/post-facts.tsx';
import '../styles/posts.css';

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
      <div className="page-head">
        <PageHeading>Posts</PageHeading>
        {channelId === null ? null : (
          <Link className="button primary" to={`/posts/new?channel=${channelId}`}>
            New post
          </Link>
        )}
      </div>
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

/** A post's card; its links are told apart by the text they point at (their description). */
function PostCard({ post }: { readonly post: AdminPost }) {
  const textId = useId();
  return (
    <li className="card">
      <p id={textId} className="post-text">
        {post.text === '' ? <em>No text</em> : post.text}
      </p>
      <PostFacts post={post} />
      <p className="card-links">
        <Link to={`/posts/${post.id}`} aria-describedby={textId}>
          Open post
        </Link>
        <Link to={`/posts/${post.id}/stats`} aria-describedby={textId}>
          Stats
        </Link>
      </p>
    </li>
  );
}
