import '../styles/administration.css';
import { type SubmitEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { type AdminCreation, useCreateAdmin } from '../api/admins.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { can } from '../api/session.ts';
import { PASSWORD_HINT, RoleSelect } from '../components/admin-form.tsx';
import { FormProblem, TextInput } from '../components/fields.tsx';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { NotAllowed } from './not-allowed.tsx';

const FIELDS = ['email', 'name', 'role', 'password'] as const;

export function AdminNewPage() {
  const admin = useAdmin();
  if (!can(admin, 'admins.manage')) return <NotAllowed what="create admins" />;
  return <AdminCreationForm />;
}

function AdminCreationForm() {
  const create = useCreateAdmin();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<AdminCreation>({ email: '', name: '', role: 'support', password: '' });
  const errors = fieldErrorsOf(create.error, FIELDS);
  const set = (name: 'email' | 'name' | 'password') => (event: { target: { value: string } }) => {
    setDraft({ ...draft, [name]: event.target.value });
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    create.mutate(draft, {
      onSuccess: (created) => {
        void navigate('/admins', { state: { created: created.name } });
      },
    });
  };
  return (
    <>
      <p className="breadcrumb">
        <Link to="/admins">Back to the admins</Link>
      </p>
      <PageHeading>New admin</PageHeading>
      <form onSubmit={submit} noValidate>
        <TextInput
          label="Email"
          type="email"
          autoComplete="off"
          value={draft.email}
          onChange={set('email')}
          errors={errors.get('email')}
        />
        <TextInput
          label="Name"
          autoComplete="off"
          value={draft.name}
          onChange={set('name')}
          errors={errors.get('name')}
        />
        <RoleSelect
          value={draft.role}
          onChange={(role) => {
            setDraft({ ...draft, role });
          }}
          errors={errors.get('role')}
        />
        <TextInput
          label="Password"
          type="password"
          autoComplete="new-password"
          hint={`${PASSWORD_HINT} Hand it over safely: they sign in with it.`}
          value={draft.password}
          onChange={set('password')}
          errors={errors.get('password')}
        />
        <FormProblem error={create.error} unplaced={errors.get('')} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create admin'}
        </button>
      </form>
    </>
  );
}
