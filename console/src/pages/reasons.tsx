import '../styles/administration.css';
import { type SubmitEvent, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { fieldErrorsOf } from '../api/problem.ts';
import {
  REASON_KINDS,
  type Reason,
  type ReasonKind,
  useCreateReason,
  useReasons,
  useUpdateReason,
} from '../api/reasons.ts';
import { can } from '../api/session.ts';
import { Field, FormProblem } from '../components/fields.tsx';
import { formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { type ReasonDraft, ReasonFields } from '../components/reason-fields.tsx';
import { Done, Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

export const kindLabels: Record<ReasonKind, string> = {
  support: 'Support topics',
  complaint: 'Complaint reasons',
};

export function ReasonsPage() {
  const admin = useAdmin();
  if (!can(admin, 'reasons.read')) return <NotAllowed what="read the reasons" />;
  return <ReasonLists manage={can(admin, 'reasons.manage')} />;
}

/** The reasons users pick from, by kind and order; retired ones stay listed, marked so. */
function ReasonLists({ manage }: { readonly manage: boolean }) {
  const reasons = useReasons();
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;
  return (
    <>
      <PageHeading>Reasons</PageHeading>
      <p className="hint page-intro">
        What users choose from when they write to support or file a complaint. A retired reason is no longer
        offered; what refers to it keeps its title.
      </p>
      {deleted === undefined ? null : <Done>{`Reason “${deleted}” deleted.`}</Done>}
      {reasons.isError ? <ErrorNotice error={reasons.error} /> : null}
      {reasons.data === undefined ? (
        reasons.isPending ? (
          <Loading what="reasons" />
        ) : null
      ) : (
        REASON_KINDS.map((kind) => (
          <ReasonList
            key={kind}
            kind={kind}
            reasons={reasons.data.items.filter((reason) => reason.kind === kind)}
            manage={manage}
          />
        ))
      )}
      {manage ? <NewReason /> : null}
    </>
  );
}

function ReasonList(props: {
  readonly kind: ReasonKind;
  readonly reasons: readonly Reason[];
  readonly manage: boolean;
}) {
  const { kind, reasons, manage } = props;
  return (
    <section aria-labelledby={`reasons-${kind}`} className="panel">
      <h2 id={`reasons-${kind}`}>{kindLabels[kind]}</h2>
      {reasons.length === 0 ? (
        <Empty>
          <p>None yet.</p>
        </Empty>
      ) : (
        <ol className="reason-list">
          {reasons.map((reason) => (
            <ReasonRow key={reason.id} reason={reason} manage={manage} />
          ))}
        </ol>
      )}
    </section>
  );
}

function ReasonRow({ reason, manage }: { readonly reason: Reason; readonly manage: boolean }) {
  const update = useUpdateReason(reason.id);
  return (
    <li className={reason.active ? undefined : 'retired'}>
      <span className="reason-order" title="Order">
        {formatNumber(reason.order)}
      </span>
      <span className="reason-title">{reason.title}</span>
      {reason.active ? null : <span className="badge reason-retired">retired</span>}
      {manage ? (
        <span className="reason-actions">
          <button
            type="button"
            disabled={update.isPending}
            aria-label={`${reason.active ? 'Retire' : 'Offer again'} “${reason.title}”`}
            onClick={() => {
              update.mutate({ active: !reason.active });
            }}
          >
            {reason.active ? 'Retire' : 'Offer again'}
          </button>
          <Link to={`/reasons/${reason.id}`} aria-label={`Edit “${reason.title}”`}>
            Edit
          </Link>
        </span>
      ) : null}
      {update.isError ? <ErrorNotice error={update.error} /> : null}
    </li>
  );
}

function NewReason() {
  const create = useCreateReason();
  const [kind, setKind] = useState<ReasonKind>('support');
  const [draft, setDraft] = useState<ReasonDraft>({ title: '', order: '', active: true });
  const errors = fieldErrorsOf(create.error, ['kind', 'title', 'order', 'active']);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const { title, order, active } = draft;
    const body = { kind, title, active, ...(order.trim() === '' ? {} : { order: Number(order) }) };
    create.mutate(body, {
      onSuccess: () => {
        setDraft({ ...draft, title: '', order: '' });
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="new-reason" className="panel">
      <h2 id="new-reason">New reason</h2>
      {create.data === undefined ? null : <Done>{`Reason “${create.data.title}” added.`}</Done>}
      <Field label="Kind" errors={errors.get('kind')}>
        {(ids) => (
          <select
            {...ids}
            value={kind}
            onChange={(event) => {
              setKind(event.target.value === 'complaint' ? 'complaint' : 'support');
            }}
          >
            {REASON_KINDS.map((value) => (
              <option key={value} value={value}>
                {kindLabels[value]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ReasonFields
        draft={draft}
        onChange={setDraft}
        errors={errors}
        orderHint="Optional: lower comes first. Empty: after the last of its kind."
        activeLabel="Offer it to users now"
      />
      <FormProblem error={create.error} unplaced={errors.get('')} />
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? 'Adding…' : 'Add reason'}
      </button>
    </form>
  );
}
