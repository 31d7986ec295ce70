import { useState } from 'react';
import { useChannels } from '../api/channels.ts';
import {
  type AdminComment,
  COMMENT_STATUSES,
  type CommentAction,
  type CommentFilter,
  type CommentStatus,
  useChannelComments,
  useChannelPostList,
  useModerateComment,
} from '../api/moderation.ts';
import { type Admin, can } from '../api/session.ts';
import { ChannelSelect } from '../components/channel-select.tsx';
import { CommentActions } from '../components/comment-actions.tsx';
import { CommentCard } from '../components/comment-card.tsx';
import { Checkbox, Field } from '../components/fields.tsx';
import { formatDateTime, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { ReasonForm } from '../components/reason-form.tsx';
import { useSearchChoices } from '../components/search-params.ts';
import { Done, Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/moderation.css';

const isStatus = (value: string): value is CommentStatus =>
  COMMENT_STATUSES.some((status) => status === value);

const statusLabels: Record<CommentStatus, string> = {
  visible: 'Visible',
  hidden: 'Hidden',
  deleted: 'Deleted',
};

const doneWords: Record<CommentAction, string> = {
  hide: 'The comment is hidden.',
  unhide: 'The comment is shown again.',
  delete: 'The comment is deleted.',
};

export function CommentsPage() {
  const admin = useAdmin();
  if (!can(admin, 'comments.moderate')) return <NotAllowed what="moderate comments" />;
  return <Comments admin={admin} />;
}

/** A channel's comments by status, reports and post; the choices are in the address. */
function Comments({ admin }: { readonly admin: Admin }) {
  const channels = useChannels();
  const { get, set } = useSearchChoices();
  const [done, setDone] = useState<string | null>(null);
  const items = channels.data?.items ?? [];
  const channelId = get('channel') || (items[0]?.id ?? '');
  const status = isStatus(get('status')) ? (get('status') as CommentStatus) : undefined;
  const filter: CommentFilter = {
    status,
    postId: get('post') || undefined,
    reported: get('reported') === 'true',
  };
  if (channels.data === undefined) {
    return channels.isError ? <ErrorNotice error={channels.error} /> : <Loading what="channels" />;
  }
  return (
    <>
      <PageHeading>Comments</PageHeading>
      {items.length === 0 ? (
        <Empty>
          <p>There is no channel yet, so there are no comments.</p>
        </Empty>
      ) : (
        <div className="filters">
          <ChannelSelect
            channels={items}
            value={channelId}
            onChange={(id) => {
              set({ channel: id, post: '' });
            }}
          />
          <PostSelect
            channelId={channelId}
            listPosts={can(admin, 'posts.write')}
            value={filter.postId ?? ''}
            onChange={(post) => {
              set({ post });
            }}
          />
          <Field label="Status">
            {(ids) => (
              <select
                {...ids}
                value={status ?? ''}
                onChange={(event) => {
                  set({ status: event.target.value });
                }}
              >
                <option value="">Every status</option>
                {COMMENT_STATUSES.map((value) => (
                  <option key={value} value={value}>
                    {statusLabels[value]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Checkbox
            label="Only with open reports"
            checked={filter.reported === true}
            onChange={(checked) => {
              set({ reported: checked ? 'true' : '' });
            }}
          />
        </div>
      )}
      {done === null ? null : <Done>{done}</Done>}
      {channelId === '' ? null : <CommentList channelId={channelId} filter={filter} onDone={setDone} />}
    </>
  );
}

interface PostSelectProps {
  readonly channelId: string;
  /** Whether the role may list posts (`posts.write`): then by their text, else by the comments' posts. */
  readonly listPosts: boolean;
  readonly value: string;
  readonly onChange: (postId: string) => void;
}

function PostSelect({ channelId, listPosts, value, onChange }: PostSelectProps) {
  const posts = useChannelPostList(channelId, listPosts);
  const comments = useChannelComments(channelId);
  const counts = new Map<string, number>();
  for (const comment of comments.data?.items ?? [])
    counts.set(comment.postId, (counts.get(comment.postId) ?? 0) + 1);
  const options = listPosts
    ? (posts.data?.items ?? []).map((post) => ({
        id: post.id,
        label: post.text === '' ? `Post of ${formatDateTime(post.createdAt)}` : post.text.slice(0, 60),
      }))
    : [...counts].map(([id, count]) => ({
        id,
        label: `Post ${id.slice(0, 8)} (${formatNumber(count)} comments)`,
      }));
  return (
    <Field label="Post" hint={listPosts ? undefined : 'The posts of the newest comments.'}>
      {(ids) => (
        <select
          {...ids}
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        >
          <option value="">Every post</option>
          {options.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

interface CommentListProps {
  readonly channelId: string;
  readonly filter: CommentFilter;
  readonly onDone: (message: string) => void;
}

function CommentList({ channelId, filter, onDone }: CommentListProps) {
  const comments = useChannelComments(channelId, filter);
  if (comments.data === undefined) {
    return comments.isError ? <ErrorNotice error={comments.error} /> : <Loading what="comments" />;
  }
  if (comments.data.items.length === 0) {
    return (
      <Empty>
        <p>No comment here matches.</p>
      </Empty>
    );
  }
  return (
    <>
      {comments.isError ? <ErrorNotice error={comments.error} /> : null}
      <ul className="cards">
        {comments.data.items.map((comment) => (
          <CommentItem key={comment.id} comment={comment} onDone={onDone} />
        ))}
      </ul>
      {comments.data.nextCursor === null ? null : (
        <p className="hint">Showing the newest 100 comments only.</p>
      )}
    </>
  );
}

const askWords = {
  hide: { label: 'Why hide this comment?', submit: 'Hide comment' },
  delete: { label: 'Why delete this comment?', submit: 'Delete comment' },
} as const;

function CommentItem({
  comment,
  onDone,
}: {
  readonly comment: AdminComment;
  readonly onDone: (message: string) => void;
}) {
  const moderate = useModerateComment();
  const [asking, setAsking] = useState<'hide' | 'delete' | null>(null);
  const act = (action: CommentAction, reason = '') => {
    // The promise, not `mutate`'s callbacks: a comment that leaves the filtered list still gets its word.
    moderate.mutateAsync({ id: comment.id, action, reason }).then(
      () => {
        setAsking(null);
        onDone(doneWords[action]);
      },
      () => undefined,
    );
  };
  return (
    <CommentCard comment={comment}>
      {asking === null ? (
        <CommentActions
          comment={comment}
          pending={moderate.isPending}
          onAsk={(action) => {
            moderate.reset();
            setAsking(action);
          }}
          onUnhide={() => {
            act('unhide');
          }}
        />
      ) : (
        <ReasonForm
          label={askWords[asking].label}
          submitLabel={askWords[asking].submit}
          pending={moderate.isPending}
          error={moderate.error}
          onSubmit={(reason) => {
            act(asking, reason);
          }}
          onCancel={() => {
            setAsking(null);
          }}
        />
      )}
      {asking === null && moderate.isError ? <ErrorNotice error={moderate.error} /> : null}
    </CommentCard>
  );
}
