import '../styles/support.css';
import { type SubmitEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useAdminNames } from '../api/admins.ts';
import { type ComplaintDetail, useComplaint, useResolveComplaint } from '../api/complaints.ts';
import { newIdempotencyKey } from '../api/keys.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { type Admin, can } from '../api/session.ts';
import { FormProblem, TextArea } from '../components/fields.tsx';
import { UserId } from '../components/comment-card.tsx';
import { formatDateTime, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { Done, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

export function ComplaintPage() {
  const admin = useAdmin();
  const { id = '' } = useParams();
  if (!can(admin, 'complaints.read')) return <NotAllowed what="read complaints" />;
  return <ComplaintView key={id} id={id} admin={admin} />;
}

function ComplaintView({ id, admin }: { readonly id: string; readonly admin: Admin }) {
  const complaint = useComplaint(id);
  const names = useAdminNames(can(admin, 'admins.read'));
  const [resolved, setResolved] = useState(false);
  const back = <Link to="/complaints">Back to the complaints</Link>;
  if (complaint.data === undefined) {
    return (
      <>
        {complaint.isError ? <ErrorNotice error={complaint.error} /> : <Loading what="the complaint" />}
        <p>{back}</p>
      </>
    );
  }
  const detail = complaint.data;
  const resolver =
    detail.resolvedBy === undefined
      ? null
      : detail.resolvedBy === admin.id
        ? 'you'
        : (names.get(detail.resolvedBy) ?? 'another admin');
  return (
    <>
      <p className="breadcrumb">{back}</p>
      <PageHeading>{`Complaint: ${detail.reason.title}`}</PageHeading>
      {resolved ? <Done>Complaint resolved.</Done> : null}
      <div className="complaint">
        <section aria-labelledby="complaint-text" className="card">
          <h2 id="complaint-text">What the user wrote</h2>
          <p className="description">{detail.text ?? <em>Erased with the user who wrote it.</em>}</p>
          {detail.attachments.length === 0 ? null : <Attachments detail={detail} />}
        </section>
        <dl className="facts card">
          <div>
            <dt>Status</dt>
            <dd>
              <span className={`badge complaint-${detail.status}`}>{detail.status}</span>
            </dd>
          </div>
          <div>
            <dt>User</dt>
            <dd>
              <UserId userId={detail.userId} />
            </dd>
          </div>
          <div>
            <dt>Filed</dt>
            <dd>{formatDateTime(detail.createdAt)}</dd>
          </div>
          {detail.conversationId === undefined ? null : (
            <div>
              <dt>Conversation</dt>
              <dd>{detail.conversationId}</dd>
            </div>
          )}
          {detail.ticketId === undefined ? null : (
            <div>
              <dt>Ticket</dt>
              <dd>{detail.ticketId}</dd>
            </div>
          )}
          {detail.resolvedAt === undefined ? null : (
            <div>
              <dt>Resolved</dt>
              <dd>
                {formatDateTime(detail.resolvedAt)}
                {resolver === null ? null : `, by ${resolver}`}
              </dd>
            </div>
          )}
          {detail.note === undefined ? null : (
            <div>
              <dt>Note</dt>
              <dd className="description">{detail.note}</dd>
            </div>
          )}
        </dl>
      </div>
      {detail.status === 'open' && can(admin, 'complaints.manage') ? (
        <ResolveForm
          id={detail.id}
          onResolved={() => {
            setResolved(true);
          }}
        />
      ) : null}
    </>
  );
}

const sizeOf = (bytes: number) =>
  bytes < 1024 ? `${formatNumber(bytes)} B` : `${formatNumber(Math.ceil(bytes / 1024))} KB`;

function Attachments({ detail }: { readonly detail: ComplaintDetail }) {
  return (
    <>
      <h3>Attachments</h3>
      <ul className="attachments">
        {detail.attachments.map((file) => (
          <li key={file.id}>
            <a href={file.url} download={file.name} rel="noreferrer">
              {file.name}
            </a>{' '}
            <span className="hint">
              {file.contentType}, {sizeOf(file.size)}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** Resolves the complaint, with an optional note for the team; the page then shows the server's answer. */
function ResolveForm({ id, onResolved }: { readonly id: string; readonly onResolved: () => void }) {
  const resolve = useResolveComplaint(id);
  const [note, setNote] = useState('');
  // One key for this form until the server confirms: a lost answer retried resolves once.
  const [key] = useState(newIdempotencyKey);
  const errors = fieldErrorsOf(resolve.error, ['note']);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    resolve.mutate({ note, key }, { onSuccess: onResolved });
  };
  return (
    <form className="resolve-form" onSubmit={submit} noValidate aria-labelledby="resolve-heading">
      <h2 id="resolve-heading">Resolve</h2>
      <TextArea
        label="Note for the team"
        hint="Optional. The user never sees it."
        rows={3}
        value={note}
        onChange={(event) => {
          setNote(event.target.value);
        }}
        errors={errors.get('note')}
      />
      <FormProblem error={resolve.error} unplaced={errors.get('')} />
      <button type="submit" className="primary" disabled={resolve.isPending}>
        {resolve.isPending ? 'Resolving…' : 'Resolve complaint'}
      </button>
    </form>
  );
}
