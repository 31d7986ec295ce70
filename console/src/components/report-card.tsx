import type { ReactNode } from 'react';
import type { AdminComment, CommentReport, ReportAction } from '../api/moderation.ts';
import { Author, CommentText, UserId } from './comment-card.tsx';
import { formatDateTime, formatNumber } from './format.ts';

const reasonLabels: Record<CommentReport['reason'], string> = {
  spam: 'Spam',
  abuse: 'Abuse',
  scam: 'Scam',
  other: 'Other',
};

/** What resolving a report did, in words. */
export const outcomes: Record<ReportAction, string> = {
  dismiss: 'dismissed, the comment left as it was',
  hide: 'the comment hidden',
  delete: 'the comment deleted',
};

interface ReportCardProps {
  /** The reported comment, when the channel's newest comments have it (reports carry no words). */
  readonly comment: AdminComment | undefined;
  readonly loading: boolean;
  /** The comment's reports, the first one's status and resolution standing for all. */
  readonly reports: readonly [CommentReport, ...CommentReport[]];
  /** The actions on it. */
  readonly children?: ReactNode;
}

/** A reported comment: its words and author, each report's reason, and how they were resolved. */
export function ReportCard({ comment, loading, reports, children }: ReportCardProps) {
  const [first] = reports;
  return (
    <li className="card report-card">
      {comment === undefined ? (
        <p className="hint">
          {loading ? 'Loading the comment…' : 'The comment is not among the channel’s newest.'}
        </p>
      ) : (
        <CommentText comment={comment} />
      )}
      <dl className="facts">
        {comment === undefined ? null : (
          <div>
            <dt>Author</dt>
            <dd>
              <Author {...comment.author} />
            </dd>
          </div>
        )}
        <div>
          <dt>Comment</dt>
          <dd>
            <span className={`badge ${first.commentStatus}`}>{first.commentStatus}</span>
          </dd>
        </div>
        <div>
          <dt>Reports</dt>
          <dd>{formatNumber(reports.length)}</dd>
        </div>
        {first.resolvedAt === undefined ? null : (
          <div>
            <dt>Resolved</dt>
            <dd>
              {formatDateTime(first.resolvedAt)}
              {first.action === undefined ? null : `: ${outcomes[first.action]}`}
            </dd>
          </div>
        )}
      </dl>
      <ul className="report-reasons" aria-label="Reports">
        {reports.map((report) => (
          <li key={report.id}>
            <strong>{reasonLabels[report.reason]}</strong> from <UserId userId={report.reporterId} />,{' '}
            {formatDateTime(report.createdAt)}
            {report.note === undefined ? null : <span className="report-note">“{report.note}”</span>}
          </li>
        ))}
      </ul>
      {children}
    </li>
  );
}
