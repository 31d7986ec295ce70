import '../styles/administration.css';
import { type SubmitEvent, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import {
  type AdminPatch,
  useAdmins,
  useSetAdminActive,
  useSetAdminPassword,
  useUpdateAdmin,
} from '../api/admins.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { type Admin, can } from '../api/session.ts';
import { PASSWORD_HINT, RoleSelect } from '../components/admin-form.tsx';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { FormProblem, TextInput } from '../components/fields.tsx';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { Done, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

export function AdminEditPage() {
  const me = useAdmin();
  if (!can(me, 'admins.manage')) return <NotAllowed what="change admins" />;
  return <AdminFinder />;
}

/** The API lists admins but reads none alone: the account is found in the list, page after page. */
function AdminFinder() {
  const me = useAdmin();
  const { id = '' } = useParams();
  const admins = useAdmins();
  const admin = admins.data?.pages.flatMap((page) => page.items).find((item) => item.id === id);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = admins;
  const more = admin === undefined && hasNextPage && !isFetchingNextPage;
  useEffect(() => {
    if (more) void fetchNextPage();
  }, [more, fetchNextPage]);
  if (admin === undefined) {
    if (admins.isError) return <ErrorNotice error={admins.error} />;
    if (admins.isPending || hasNextPage) return <Loading what="the admin" />;
    return (
      <>
        <PageHeading>No such admin</PageHeading>
        <p>
          The address is wrong. <Link to="/admins">Go to the admins</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <p className="breadcrumb">
        <Link to="/admins">Back to the admins</Link>
      </p>
      <PageHeading>{admin.name}</PageHeading>
      <p className="hint page-intro">
        {admin.email}
        {admin.id === me.id ? ': your own account' : null}
      </p>
      <NameAndRole admin={admin} />
      <Access admin={admin} />
      <Password admin={admin} />
    </>
  );
}

function NameAndRole({ admin }: { readonly admin: Admin }) {
  const update = useUpdateAdmin(admin.id);
  const [name, setName] = useState(admin.name);
  const [role, setRole] = useState(admin.role);
  const errors = fieldErrorsOf(update.error, ['name', 'role']);
  const patch: AdminPatch = {
    ...(name === admin.name ? {} : { name }),
    ...(role === admin.role ? {} : { role }),
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    update.mutate(patch);
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="admin-profile" className="panel">
      <h2 id="admin-profile">Name and role</h2>
      {update.isSuccess ? <Done>Saved.</Done> : null}
      <TextInput
        label="Name"
        value={name}
        onChange={(event) => {
          setName(event.target.value);
        }}
        errors={errors.get('name')}
      />
      <RoleSelect value={role} onChange={setRole} errors={errors.get('role')} />
      <FormProblem error={update.error} unplaced={errors.get('')} />
      <button
        type="submit"
        className="primary"
        disabled={update.isPending || Object.keys(patch).length === 0}
      >
        {update.isPending ? 'Saving…' : 'Save name and role'}
      </button>
    </form>
  );
}

/** Deactivation ends the account's sessions at once; activation lets it sign in again. */
function Access({ admin }: { readonly admin: Admin }) {
  const change = useSetAdminActive(admin.id);
  return (
    <section aria-labelledby="admin-access" className="panel">
      <h2 id="admin-access">Access</h2>
      {change.data === undefined ? null : (
        <Done>{change.data.active ? 'Account activated.' : 'Account deactivated.'}</Done>
      )}
      {change.isError ? <ErrorNotice error={change.error} /> : null}
      {admin.active ? (
        <>
          <p>The account is active.</p>
          <ConfirmButton
            label="Deactivate"
            question={`Deactivate ${admin.name}? Their sessions end at once, and they cannot sign in until activated again.`}
            pending={change.isPending}
            danger
            onConfirm={() => {
              change.mutate(false);
            }}
          />
        </>
      ) : (
        <>
          <p>The account is deactivated: it cannot sign in.</p>
          <button
            type="button"
            disabled={change.isPending}
            onClick={() => {
              change.mutate(true);
            }}
          >
            {change.isPending ? 'Activating…' : 'Activate'}
          </button>
        </>
      )}
    </section>
  );
}

function Password({ admin }: { readonly admin: Admin }) {
  const set = useSetAdminPassword(admin.id);
  const [password, setPassword] = useState('');
  const errors = fieldErrorsOf(set.error, ['password']);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    set.mutate(password, {
      onSuccess: () => {
        setPassword('');
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="admin-password" className="panel">
      <h2 id="admin-password">Password</h2>
      {set.isSuccess ? <Done>Password set. Every session of this admin has ended.</Done> : null}
      <TextInput
        label="New password"
        type="password"
        autoComplete="new-password"
        hint={`${PASSWORD_HINT} Setting it signs the admin out everywhere.`}
        value={password}
        onChange={(event) => {
          setPassword(event.target.value);
        }}
        errors={errors.get('password')}
      />
      <FormProblem error={set.error} unplaced={errors.get('')} />
      <button type="submit" className="primary" disabled={set.isPending}>
        {set.isPending ? 'Setting…' : 'Set password'}
      </button>
    </form>
  );
}
