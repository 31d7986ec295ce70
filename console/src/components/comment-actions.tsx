import { Link } from 'react-router';
import type { AdminComment } from '../api/moderation.ts';

interface CommentActionsProps {
  readonly comment: AdminComment;
  readonly pending: boolean;
  /** Hide or delete: both ask for a reason first. */
  readonly onAsk: (action: 'hide' | 'delete') => void;
  readonly onUnhide: () => void;
}

/** What a moderator can do to a comment in its status, and the way to ban its author. */
export function CommentActions({ comment, pending, onAsk, onUnhide }: CommentActionsProps) {
  const author = comment.author.userId;
  // An erased author is nobody to ban.
  const banPath =
    author === null
      ? null
      : `/bans?channel=${encodeURIComponent(comment.channelId)}&user=${encodeURIComponent(author)}`;
  return (
    <div
      className="actions"
      role="group"
      aria-label={`Moderate the comment by ${author ?? 'an erased user'}`}
    >
      {comment.status === 'visible' ? (
        <button
          type="button"
          onClick={() => {
            onAsk('hide');
          }}
        >
          Hide
        </button>
      ) : null}
      {comment.status === 'hidden' ? (
        <button type="button" disabled={pending} onClick={onUnhide}>
          Unhide
        </button>
      ) : null}
      {comment.status === 'deleted' ? null : (
        <button
          type="button"
          className="danger"
          onClick={() => {
            onAsk('delete');
          }}
        >
          Delete
        </button>
      )}
      {banPath === null ? null : <Link to={banPath}>Ban the author</Link>}
    </div>
  );
}
