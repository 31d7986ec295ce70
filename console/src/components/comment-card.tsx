import type { ReactNode } from 'react';
import type { AdminComment } from '../api/moderation.ts';
import { formatDateTime, formatNumber } from './format.ts';

/** The words of a comment, or what stands for them when it has none. */
export function CommentText({ comment }: { readonly comment: Pick<AdminComment, 'text' | 'image'> }) {
  if (comment.text === null) {
    return (
      <p className="comment-text">
        <em>Erased with its author</em>
      </p>
    );
  }
  if (comment.text !== '') return <p className="comment-text">{comment.text}</p>;
  return (
    <p className="comment-text">
      <em>{comment.image === undefined ? 'No text' : 'A picture, no text'}</em>
    </p>
  );
}

/** An app's user id, or what stands for it once the user was erased. */
export function UserId({ userId }: { readonly userId: string | null }) {
  return userId === null ? <em>an erased user</em> : <span className="user-id">{userId}</span>;
}

/** Who wrote a comment: the app's user id, and whether they moderate the channel. */
export function Author({
  userId,
  isModerator,
}: {
  readonly userId: string | null;
  readonly isModerator: boolean;
}) {
  return (
    <>
      <UserId userId={userId} />
      {isModerator ? <span className="badge"> moderator</span> : null}
    </>
  );
}

/** A comment as moderators see it, with the actions its status allows (`children`). */
export function CommentCard({
  comment,
  children,
}: {
  readonly comment: AdminComment;
  readonly children?: ReactNode;
}) {
  return (
    <li className="card comment-card">
      <CommentText comment={comment} />
      <dl className="facts">
        <div>
          <dt>Author</dt>
          <dd>
            <Author {...comment.author} />
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            <span className={`badge ${comment.status}`}>{comment.status}</span>
          </dd>
        </div>
        <div>
          <dt>Posted</dt>
          <dd>{formatDateTime(comment.createdAt)}</dd>
        </div>
        {comment.openReports === 0 ? null : (
          <div>
            <dt>Open reports</dt>
            <dd>{formatNumber(comment.openReports)}</dd>
          </div>
        )}
      </dl>
      {children}
    </li>
  );
}
