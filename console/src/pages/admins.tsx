import '../styles/administration.css';
import { Link, useLocation } from 'react-router';
import { useAdmins } from '../api/admins.ts';
import { type Admin, can } from '../api/session.ts';
import { formatDateTime } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { Done, Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

export function AdminsPage() {
  const admin = useAdmin();
  if (!can(admin, 'admins.read')) return <NotAllowed what="list the admins" />;
  return <AdminList me={admin} manage={can(admin, 'admins.manage')} />;
}

function AdminList({ me, manage }: { readonly me: Admin; readonly manage: boolean }) {
  const admins = useAdmins();
  const created = (useLocation().state as { created?: string } | null)?.created;
  const items = admins.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <div className="page-head">
        <PageHeading>Admins</PageHeading>
        {manage ? (
          <Link className="button primary" to="/admins/new">
            New admin
          </Link>
        ) : null}
      </div>
      {created === undefined ? null : <Done>{`Admin ${created} created.`}</Done>}
      {admins.isError ? <ErrorNotice error={admins.error} /> : null}
      {admins.data === undefined ? (
        admins.isPending ? (
          <Loading what="admins" />
        ) : null
      ) : items.length === 0 ? (
        <Empty>
          <p>No admin account.</p>
        </Empty>
      ) : (
        <>
          <ul className="cards">
            {items.map((admin) => (
              <AdminCard key={admin.id} admin={admin} me={me} manage={manage} />
            ))}
          </ul>
          {admins.hasNextPage ? (
            <button
              type="button"
              className="load-more"
              disabled={admins.isFetchingNextPage}
              onClick={() => {
                void admins.fetchNextPage();
              }}
            >
              {admins.isFetchingNextPage ? 'Loading…' : 'Show more admins'}
            </button>
          ) : null}
        </>
      )}
    </>
  );
}

function AdminCard({
  admin,
  me,
  manage,
}: {
  readonly admin: Admin;
  readonly me: Admin;
  readonly manage: boolean;
}) {
  return (
    <li className={admin.active ? 'card' : 'card admin-inactive'}>
      <h2>
        {admin.name}
        {admin.id === me.id ? <span className="role"> you</span> : null}
      </h2>
      <dl className="facts">
        <div>
          <dt>Email</dt>
          <dd>{admin.email}</dd>
        </div>
        <div>
          <dt>Role</dt>
          <dd>{admin.role}</dd>
        </div>
        <div>
          <dt>Account</dt>
          <dd>
            <span className={admin.active ? 'badge account-active' : 'badge account-inactive'}>
              {admin.active ? 'active' : 'deactivated'}
            </span>
          </dd>
        </div>
        <div>
          <dt>Last sign-in</dt>
          <dd>{admin.lastLoginAt === null ? 'never' : formatDateTime(admin.lastLoginAt)}</dd>
        </div>
      </dl>
      {manage ? (
        <Link to={`/admins/${admin.id}`} aria-label={`Manage ${admin.name}`}>
          Manage
        </Link>
      ) : null}
    </li>
  );
}
