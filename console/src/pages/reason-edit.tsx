import '../styles/administration.css';
import { type SubmitEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { fieldErrorsOf } from '../api/problem.ts';
import {
  type Reason,
  type ReasonPatch,
  useDeleteReason,
  useReasons,
  useUpdateReason,
} from '../api/reasons.ts';
import { can } from '../api/session.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { FormProblem } from '../components/fields.tsx';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { type ReasonDraft, ReasonFields } from '../components/reason-fields.tsx';
import { Done, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import { kindLabels } from './reasons.tsx';

export function ReasonEditPage() {
  const admin = useAdmin();
  if (!can(admin, 'reasons.manage')) return <NotAllowed what="change reasons" />;
  return <ReasonFinder />;
}

function ReasonFinder() {
  const { id = '' } = useParams();
  const reasons = useReasons();
  const reason = reasons.data?.items.find((item) => item.id === id);
  if (reason === undefined) {
    if (reasons.isPending) return <Loading what="the reason" />;
    if (reasons.isError) return <ErrorNotice error={reasons.error} />;
    return (
      <>
        <PageHeading>No such reason</PageHeading>
        <p>
          It may have been deleted. <Link to="/reasons">Go to the reasons</Link>.
        </p>
      </>
    );
  }
  return <ReasonEditor key={reason.id} reason={reason} />;
}

function ReasonEditor({ reason }: { readonly reason: Reason }) {
  const update = useUpdateReason(reason.id);
  const remove = useDeleteReason(reason.id);
  const navigate = useNavigate();
  const [draft, setDraft] = useState<ReasonDraft>({
    title: reason.title,
    order: String(reason.order),
    active: reason.active,
  });
  const { title, order, active } = draft;
  const errors = fieldErrorsOf(update.error, ['title', 'order', 'active']);
  // Only what changed: the API wants at least one field, and the audit log names them.
  const patch: ReasonPatch = {
    ...(title === reason.title ? {} : { title }),
    ...(order === String(reason.order) ? {} : { order: Number(order) }),
    ...(active === reason.active ? {} : { active }),
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    update.mutate(patch);
  };
  return (
    <>
      <p className="breadcrumb">
        <Link to="/reasons">Back to the reasons</Link>
      </p>
      <PageHeading>{`Edit “${reason.title}”`}</PageHeading>
      <p className="hint page-intro">{kindLabels[reason.kind]}</p>
      <form onSubmit={submit} noValidate className="panel">
        {update.isSuccess ? <Done>Saved.</Done> : null}
        <ReasonFields
          draft={draft}
          onChange={setDraft}
          errors={errors}
          orderHint="Lower comes first."
          activeLabel="Offered to users"
        />
        <FormProblem error={update.error} unplaced={errors.get('')} />
        <button
          type="submit"
          className="primary"
          disabled={update.isPending || Object.keys(patch).length === 0}
        >
          {update.isPending ? 'Saving…' : 'Save changes'}
        </button>
      </form>
      <section aria-labelledby="delete-reason" className="panel">
        <h2 id="delete-reason">Delete</h2>
        <p>
          Users no longer see a deleted reason; what refers to it keeps its title. To stop offering it for a
          while, retire it instead.
        </p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
        <ConfirmButton
          label="Delete"
          question={`Delete “${reason.title}” for good?`}
          pending={remove.isPending}
          danger
          onConfirm={() => {
            remove.mutate(undefined, {
              onSuccess: () => {
                void navigate('/reasons', { state: { deleted: reason.title } });
              },
            });
          }}
        />
      </section>
    </>
  );
}
