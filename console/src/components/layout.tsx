import { useState } from 'react';
import { Navigate, Outlet, useLocation, useOutletContext } from 'react-router';
import { type Admin, signOut, useHeldSession, useMe, useSignOutEverywhere } from '../api/session.ts';
import { Nav } from './nav.tsx';
import { ErrorNotice, Loading } from './states.tsx';

/** Every page past the sign-in: there only with a session, and only once the admin's role is known. */
export function SignedIn() {
  const session = useHeldSession();
  const me = useMe();
  const location = useLocation();
  if (session === null) return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  if (me.isPending) return <Loading what="your account" />;
  if (me.isError) return <ErrorNotice error={me.error} />;
  return <Shell admin={me.data} />;
}

function Shell({ admin }: { readonly admin: Admin }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const everywhere = useSignOutEverywhere();
  return (
    <div className={menuOpen ? 'shell menu-open' : 'shell'}>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="top-bar">
        <p className="product">Support channel console</p>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="console-nav"
          onClick={() => {
            setMenuOpen(!menuOpen);
          }}
        >
          Menu
        </button>
        <div className="account">
          <p>
            <span className="admin-name">{admin.name}</span> <span className="role">{admin.role}</span>
          </p>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
          <button
            type="button"
            disabled={everywhere.isPending}
            onClick={() => {
              everywhere.mutate();
            }}
          >
            Sign out everywhere
          </button>
        </div>
      </header>
      {everywhere.isError ? <ErrorNotice error={everywhere.error} /> : null}
      <Nav
        admin={admin}
        onNavigate={() => {
          setMenuOpen(false);
        }}
      />
      <main id="content" tabIndex={-1}>
        <Outlet context={admin} />
      </main>
    </div>
  );
}

/** The signed-in admin, for a page inside the shell. */
export function useAdmin(): Admin {
  return useOutletContext<Admin>();
}
