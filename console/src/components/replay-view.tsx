import type { ModerationReplay } from '../api/history.ts';
import { UserId } from './comment-card.tsx';
import { formatDateTime, formatNumber } from './format.ts';
import { formatInstant } from './instant-input.tsx';

interface ReplayViewProps {
  readonly replay: ModerationReplay;
  /** A comment's words, when the admin may read the channel's comments and it is among the newest. */
  readonly textOf: (commentId: string) => string | undefined;
}

/** A channel's moderation as it stood at an instant: its comments, the bans that held, its moderators. */
export function ReplayView({ replay, textOf }: ReplayViewProps) {
  const { comments, bans, moderators } = replay;
  return (
    <div className="replay" aria-live="polite">
      <p className="replay-instant">
        As of <strong>{formatInstant(replay.asOf)}</strong>
      </p>
      <div className="moderation-columns">
        <section aria-labelledby="replay-comments">
          <h3 id="replay-comments">Comments ({formatNumber(comments.length)})</h3>
          {comments.length === 0 ? (
            <p className="state">No comment yet.</p>
          ) : (
            <ul className="plain-list">
              {comments.map((comment) => (
                <li key={comment.id}>
                  <span className={`badge ${comment.status}`}>{comment.status}</span>{' '}
                  <UserId userId={comment.authorId} />, {formatDateTime(comment.createdAt)}
                  {comment.reports === 0
                    ? null
                    : `, ${formatNumber(comment.reports)} reports (${formatNumber(comment.openReports)} open)`}
                  {textOf(comment.id) === undefined ? null : (
                    <q className="comment-quote">{textOf(comment.id)}</q>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="replay-bans">
          <h3 id="replay-bans">Bans ({formatNumber(bans.length)})</h3>
          {bans.length === 0 ? (
            <p className="state">No ban held.</p>
          ) : (
            <ul className="plain-list">
              {bans.map((ban) => (
                <li key={ban.userId}>
                  <span className="user-id">{ban.userId}</span>,{' '}
                  {ban.until === null ? 'until lifted' : `until ${formatDateTime(ban.until)}`}:{' '}
                  {ban.reason ?? <em>reason erased</em>}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="replay-moderators">
          <h3 id="replay-moderators">Moderators ({formatNumber(moderators.length)})</h3>
          {moderators.length === 0 ? (
            <p className="state">No moderator.</p>
          ) : (
            <ul className="plain-list">
              {moderators.map((id) => (
                <li key={id} className="user-id">
                  {id}
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
