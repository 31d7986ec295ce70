import { useState } from 'react';
import { Link } from 'react-router';
import { useChannels } from '../api/channels.ts';
import {
  type AdminComment,
  type CommentReport,
  type ReportAction,
  type ReportStatus,
  useChannelComments,
  useReports,
  useResolveReport,
} from '../api/moderation.ts';
import { can } from '../api/session.ts';
import { Field } from '../components/fields.tsx';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { outcomes, ReportCard } from '../components/report-card.tsx';
import { useSearchChoices } from '../components/search-params.ts';
import { Done, Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/moderation.css';

/** What the last resolution did, and where to ban the comment's author next. */
interface Resolved {
  readonly message: string;
  readonly banPath: string | null;
}

type OnResolved = (resolved: Resolved) => void;

const banPathOf = (channelId: string, userId: string) =>
  `/bans?channel=${encodeURIComponent(channelId)}&user=${encodeURIComponent(userId)}`;

/** Items in the order they come, grouped by a key: the queue's order (longest waiting first) is kept. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): [string, [T, ...T[]]][] {
  const groups = new Map<string, [T, ...T[]]>();
  for (const item of items) {
    const group = groups.get(keyOf(item));
    if (group === undefined) groups.set(keyOf(item), [item]);
    else group.push(item);
  }
  return [...groups];
}

export function ReportsPage() {
  const admin = useAdmin();
  if (!can(admin, 'comments.moderate')) return <NotAllowed what="work the report queue" />;
  return <ReportQueue />;
}

/** The report queue, by channel and then by comment: resolving a comment's report resolves all of them. */
function ReportQueue() {
  const { get, set } = useSearchChoices();
  const status: ReportStatus = get('status') === 'resolved' ? 'resolved' : 'open';
  const reports = useReports(status);
  const channels = useChannels();
  const [resolved, setResolved] = useState<Resolved | null>(null);
  const titleOf = (id: string) =>
    channels.data?.items.find((channel) => channel.id === id)?.title ?? 'A channel';
  return (
    <>
      <PageHeading>Reports</PageHeading>
      <div className="filters">
        <Field label="Reports">
          {(ids) => (
            <select
              {...ids}
              value={status}
              onChange={(event) => {
                setResolved(null);
                set({ status: event.target.value === 'open' ? '' : event.target.value });
              }}
            >
              <option value="open">Open, waiting for a moderator</option>
              <option value="resolved">Resolved</option>
            </select>
          )}
        </Field>
      </div>
      {resolved === null ? null : (
        <Done>
          {resolved.message}{' '}
          {resolved.banPath === null ? null : <Link to={resolved.banPath}>Ban its author</Link>}
        </Done>
      )}
      {reports.isError ? <ErrorNotice error={reports.error} /> : null}
      {reports.data === undefined ? (
        reports.isPending ? (
          <Loading what="reports" />
        ) : null
      ) : reports.data.items.length === 0 ? (
        <Empty>
          <p>
            {status === 'open'
              ? 'No report is waiting. New ones show up here by themselves.'
              : 'No report is resolved yet.'}
          </p>
        </Empty>
      ) : (
        groupBy(reports.data.items, (report) => report.channelId).map(([channelId, items]) => (
          <section key={channelId} className="report-channel" aria-label={`Reports in ${titleOf(channelId)}`}>
            <h2>{titleOf(channelId)}</h2>
            <ChannelReports channelId={channelId} reports={items} status={status} onResolved={setResolved} />
          </section>
        ))
      )}
      {reports.data?.nextCursor ? <p className="hint">Showing the first 100 reports only.</p> : null}
    </>
  );
}

interface ChannelReportsProps {
  readonly channelId: string;
  readonly reports: readonly CommentReport[];
  readonly status: ReportStatus;
  readonly onResolved: OnResolved;
}

/**
 * A channel's reported comments (a resolved one once per resolution): their words come from the channel's
 * comments, as reports carry none.
 */
function ChannelReports({ channelId, reports, status, onResolved }: ChannelReportsProps) {
  const comments = useChannelComments(channelId, status === 'open' ? { reported: true } : {});
  const commentOf = (id: string) => comments.data?.items.find((comment) => comment.id === id);
  return (
    <ul className="cards single">
      {groupBy(reports, (report) => `${report.commentId} ${report.resolvedAt ?? ''}`).map(([key, items]) => (
        <ReportedComment
          key={key}
          comment={commentOf(items[0].commentId)}
          loading={comments.isPending}
          reports={items}
          onResolved={onResolved}
        />
      ))}
    </ul>
  );
}

interface ReportedCommentProps {
  readonly comment: AdminComment | undefined;
  readonly loading: boolean;
  readonly reports: readonly [CommentReport, ...CommentReport[]];
  readonly onResolved: OnResolved;
}

/** A reported comment with the resolutions the API offers: dismiss, hide or delete (after a second ask). */
function ReportedComment({ comment, loading, reports, onResolved }: ReportedCommentProps) {
  const resolve = useResolveReport();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [first] = reports;
  const author = comment?.author.userId;
  const banPath = author === undefined || author === null ? null : banPathOf(first.channelId, author);
  const act = (action: ReportAction) => {
    // The promise, not `mutate`'s callbacks: the card is gone from the queue by the time the lists are
    // read again, and the page still says what was done. A refusal shows on the card (`resolve.error`).
    resolve.mutateAsync({ id: first.id, action }).then(
      () => {
        onResolved({
          message: `Report resolved: ${outcomes[action]}.`,
          banPath: action === 'dismiss' ? null : banPath,
        });
      },
      () => undefined,
    );
  };
  const button = (label: string, onClick: () => void, className?: string) => (
    <button type="button" className={className} disabled={resolve.isPending} onClick={onClick}>
      {label}
    </button>
  );
  return (
    <ReportCard comment={comment} loading={loading} reports={reports}>
      {resolve.isError ? <ErrorNotice error={resolve.error} /> : null}
      <div className="actions" role="group" aria-label={`Act on the comment${author ? ` by ${author}` : ''}`}>
        {first.status !== 'open' ? null : confirmDelete ? (
          <>
            <span>Delete the comment for everyone?</span>
            {button(
              'Yes, delete it',
              () => {
                act('delete');
              },
              'danger',
            )}
            {button('Keep it', () => {
              setConfirmDelete(false);
            })}
          </>
        ) : (
          <>
            {button('Dismiss', () => {
              act('dismiss');
            })}
            {button(
              'Hide comment',
              () => {
                act('hide');
              },
              'primary',
            )}
            {button(
              'Delete comment',
              () => {
                setConfirmDelete(true);
              },
              'danger',
            )}
          </>
        )}
        {banPath === null ? null : <Link to={banPath}>Ban the author</Link>}
      </div>
    </ReportCard>
  );
}
