import '../styles/administration.css';
import { type SubmitEvent, useState } from 'react';
import { periodQuery } from '../api/analytics.ts';
import { AUDIT_OUTCOMES, type AuditEntry, type AuditFilter, useAuditLog } from '../api/audit-log.ts';
import { useAdminNames } from '../api/admins.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { can } from '../api/session.ts';
import { Field, TextInput } from '../components/fields.tsx';
import { formatDateTime } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { useSearchChoices } from '../components/search-params.ts';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

/** The filters as the address keeps them: `from` and `to` are days of the admin's calendar, both included. */
const CHOICES = ['adminId', 'action', 'targetId', 'outcome', 'from', 'to'] as const;
type Choices = Record<(typeof CHOICES)[number], string>;

function filterOf(choices: Choices): AuditFilter {
  const outcome = AUDIT_OUTCOMES.find((value) => value === choices.outcome);
  return {
    ...(choices.adminId === '' ? {} : { adminId: choices.adminId }),
    ...(choices.action === '' ? {} : { action: choices.action }),
    ...(choices.targetId === '' ? {} : { targetId: choices.targetId }),
    ...(outcome === undefined ? {} : { outcome }),
    ...periodQuery({ from: choices.from, to: choices.to }),
  };
}

export function AuditLogPage() {
  const admin = useAdmin();
  if (!can(admin, 'audit.read')) return <NotAllowed what="read the audit log" />;
  return <AuditLog />;
}

/** Every mutating admin request and every sign-in, newest first, whatever the outcome. */
function AuditLog() {
  const admin = useAdmin();
  const search = useSearchChoices();
  const applied = Object.fromEntries(CHOICES.map((name) => [name, search.get(name)])) as Choices;
  const log = useAuditLog(filterOf(applied));
  const names = useAdminNames(can(admin, 'admins.read'));
  const entries = log.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <PageHeading>Audit log</PageHeading>
      <Filters
        key={JSON.stringify(applied)}
        applied={applied}
        names={names}
        error={log.error}
        onApply={search.set}
      />
      {log.isError ? <ErrorNotice error={log.error} /> : null}
      {log.data === undefined ? (
        log.isPending ? (
          <Loading what="the audit log" />
        ) : null
      ) : entries.length === 0 ? (
        <Empty>
          <p>No entry matches these filters.</p>
        </Empty>
      ) : (
        <>
          <ol className="audit-entries">
            {entries.map((entry) => (
              <Entry key={entry.id} entry={entry} names={names} />
            ))}
          </ol>
          {log.hasNextPage ? (
            <button
              type="button"
              className="load-more"
              disabled={log.isFetchingNextPage}
              onClick={() => {
                void log.fetchNextPage();
              }}
            >
              {log.isFetchingNextPage ? 'Loading…' : 'Show older entries'}
            </button>
          ) : null}
        </>
      )}
    </>
  );
}

interface FiltersProps {
  readonly applied: Choices;
  readonly names: ReadonlyMap<string, string>;
  readonly error: unknown;
  readonly onApply: (choices: Choices) => void;
}

/** The filters apply together, on "Apply": typing an action asks nothing of the server. */
function Filters({ applied, names, error, onApply }: FiltersProps) {
  const [draft, setDraft] = useState(applied);
  const errors = fieldErrorsOf(error, CHOICES, 'querystring');
  const set = (name: keyof Choices) => (event: { target: { value: string } }) => {
    setDraft({ ...draft, [name]: event.target.value });
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  const empty = Object.fromEntries(CHOICES.map((name) => [name, ''])) as Choices;
  return (
    <form className="audit-filters" onSubmit={submit} noValidate aria-label="Filters">
      <div className="filters">
        <Field label="Admin" errors={errors.get('adminId')}>
          {(ids) => (
            <select {...ids} value={draft.adminId} onChange={set('adminId')}>
              <option value="">Anyone</option>
              {[...names].map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextInput
          label="Action"
          hint="As logged, e.g. admins.create"
          value={draft.action}
          onChange={set('action')}
          errors={errors.get('action')}
        />
        <TextInput
          label="Target id"
          value={draft.targetId}
          onChange={set('targetId')}
          errors={errors.get('targetId')}
        />
        <Field label="Outcome" errors={errors.get('outcome')}>
          {(ids) => (
            <select {...ids} value={draft.outcome} onChange={set('outcome')}>
              <option value="">Any outcome</option>
              {AUDIT_OUTCOMES.map((outcome) => (
                <option key={outcome} value={outcome}>
                  {outcome}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextInput
          label="From"
          type="date"
          value={draft.from}
          onChange={set('from')}
          errors={errors.get('from')}
        />
        <TextInput
          label="To (included)"
          type="date"
          value={draft.to}
          onChange={set('to')}
          errors={errors.get('to')}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary">
          Apply filters
        </button>
        <button
          type="button"
          onClick={() => {
            onApply(empty);
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}

const detailText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function Entry({
  entry,
  names,
}: {
  readonly entry: AuditEntry;
  readonly names: ReadonlyMap<string, string>;
}) {
  const who =
    entry.adminId === null ? 'no admin (signed out or unknown)' : (names.get(entry.adminId) ?? entry.adminId);
  const details = Object.entries(entry.detail);
  return (
    <li className="card">
      <p className="entry-head">
        <code>{entry.action}</code> <span className={`badge outcome-${entry.outcome}`}>{entry.outcome}</span>
      </p>
      <dl className="facts">
        <div>
          <dt>When</dt>
          <dd>{formatDateTime(entry.at)}</dd>
        </div>
        <div>
          <dt>Admin</dt>
          <dd>{who}</dd>
        </div>
        {entry.target === null ? null : (
          <div>
            <dt>Target</dt>
            <dd>
              {entry.target.type}{' '}
              {(entry.target.type === 'admin' ? names.get(entry.target.id) : undefined) ?? entry.target.id}
            </dd>
          </div>
        )}
        <div>
          <dt>Answer</dt>
          <dd>{entry.statusCode}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>{entry.clientIp}</dd>
        </div>
        <div>
          <dt>Request</dt>
          <dd>{entry.correlationId}</dd>
        </div>
        {details.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{detailText(value)}</dd>
          </div>
        ))}
      </dl>
    </li>
  );
}
