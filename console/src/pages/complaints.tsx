import '../styles/support.css';
import { Link, useSearchParams } from 'react-router';
import {
  COMPLAINT_STATUSES,
  type Complaint,
  type ComplaintStatus,
  QUEUE_SIZE,
  useComplaints,
} from '../api/complaints.ts';
import { can } from '../api/session.ts';
import { Field } from '../components/fields.tsx';
import { UserId } from '../components/comment-card.tsx';
import { formatDateTime, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

const ALL = 'all';
const statusLabels: Record<ComplaintStatus, string> = { open: 'Open', resolved: 'Resolved' };

export function ComplaintsPage() {
  const admin = useAdmin();
  if (!can(admin, 'complaints.read')) return <NotAllowed what="read complaints" />;
  return <ComplaintQueue />;
}

/** The queue, open complaints first by default; it polls, so a new complaint appears without a reload. */
function ComplaintQueue() {
  const [search, setSearch] = useSearchParams();
  const wanted = search.get('status');
  const status: ComplaintStatus | null =
    wanted === ALL ? null : (COMPLAINT_STATUSES.find((value) => value === wanted) ?? 'open');
  const complaints = useComplaints(status);
  return (
    <>
      <PageHeading>Complaints</PageHeading>
      <div className="filters">
        <Field label="Status">
          {(ids) => (
            <select
              {...ids}
              value={status ?? ALL}
              onChange={(event) => {
                setSearch({ status: event.target.value }, { replace: true });
              }}
            >
              {COMPLAINT_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {statusLabels[value]}
                </option>
              ))}
              <option value={ALL}>Every complaint</option>
            </select>
          )}
        </Field>
      </div>
      {complaints.isError ? <ErrorNotice error={complaints.error} /> : null}
      {complaints.data === undefined ? (
        complaints.isPending ? (
          <Loading what="complaints" />
        ) : null
      ) : complaints.data.items.length === 0 ? (
        <Empty>
          <p>{status === 'open' ? 'No open complaint.' : 'No complaint here.'}</p>
          <p>New complaints appear here by themselves.</p>
        </Empty>
      ) : (
        <>
          <p className="hint queue-note" role="status">
            {formatNumber(complaints.data.items.length)} shown, newest first; the list keeps itself up to
            date.
          </p>
          <ul className="cards">
            {complaints.data.items.map((complaint) => (
              <ComplaintCard key={complaint.id} complaint={complaint} />
            ))}
          </ul>
          {complaints.data.nextCursor === null ? null : (
            <p className="hint">Showing the newest {formatNumber(QUEUE_SIZE)} only.</p>
          )}
        </>
      )}
    </>
  );
}

function ComplaintCard({ complaint }: { readonly complaint: Complaint }) {
  return (
    <li className="card">
      <h2>{complaint.reason.title}</h2>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <span className={`badge complaint-${complaint.status}`}>{statusLabels[complaint.status]}</span>
          </dd>
        </div>
        <div>
          <dt>User</dt>
          <dd>
            <UserId userId={complaint.userId} />
          </dd>
        </div>
        <div>
          <dt>Filed</dt>
          <dd>{formatDateTime(complaint.createdAt)}</dd>
        </div>
        {complaint.resolvedAt === undefined ? null : (
          <div>
            <dt>Resolved</dt>
            <dd>{formatDateTime(complaint.resolvedAt)}</dd>
          </div>
        )}
      </dl>
      <Link
        to={`/complaints/${complaint.id}`}
        aria-label={`View the complaint “${complaint.reason.title}” from ${complaint.userId ?? 'an erased user'}`}
      >
        View
      </Link>
    </li>
  );
}
