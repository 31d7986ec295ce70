import { type SubmitEvent, useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ApiProblem } from '../api/problem.ts';
import { useHeldSession, useSignIn } from '../api/session.ts';
import { sessionEnd } from '../api/token.ts';
import { FormProblem, TextInput } from '../components/fields.tsx';
import { formatTime, formatWait } from '../components/format.ts';
import { PageHeading } from '../components/page-heading.tsx';

/** Where the admin was going when the sign-in page took over. */
function destinationOf(state: unknown): string {
  const from = typeof state === 'object' && state !== null ? (state as { from?: unknown }).from : undefined;
  return typeof from === 'string' && from.startsWith('/') && from !== '/sign-in' ? from : '/channels';
}

export function SignInPage() {
  const session = useHeldSession();
  const signIn = useSignIn();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  if (session !== null) return <Navigate to={destinationOf(location.state)} replace />;

  const ended = sessionEnd();
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password });
  };
  return (
    <main id="content" className="sign-in">
      <PageHeading>Sign in to the console</PageHeading>
      {ended === 'expired' ? (
        <p className="notice" role="status">
          Your session has ended. Sign in again.
        </p>
      ) : null}
      {ended === 'signed-out' ? (
        <p className="notice" role="status">
          You are signed out.
        </p>
      ) : null}
      <form onSubmit={submit} noValidate>
        <TextInput
          label="Email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
          }}
        />
        <TextInput
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => {
            setPassword(event.target.value);
          }}
        />
        {signIn.error instanceof ApiProblem && signIn.error.code === 'login_locked' ? (
          <Lockout retryAfterSeconds={signIn.error.retryAfterSeconds} since={signIn.submittedAt} />
        ) : (
          <FormProblem error={signIn.error} />
        )}
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** The login throttle's answer (429 `login_locked`), with its wait from `Retry-After`. */
function Lockout({
  retryAfterSeconds,
  since,
}: {
  readonly retryAfterSeconds: number | null;
  readonly since: number;
}) {
  return (
    <div className="notice error" role="alert">
      <p>Too many failed sign-ins from this address.</p>
      {retryAfterSeconds === null ? (
        <p>Try again later.</p>
      ) : (
        <p>
          Try again {formatWait(retryAfterSeconds)}, at{' '}
          {formatTime(new Date(since + retryAfterSeconds * 1000))}.
        </p>
      )}
    </div>
  );
}
