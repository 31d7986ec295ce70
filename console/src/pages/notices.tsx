import '../styles/support.css';
import { Link, useLocation } from 'react-router';
import { useAdminNames } from '../api/admins.ts';
import { type Notice, type PushProgress, useNotices } from '../api/notices.ts';
import { can } from '../api/session.ts';
import { formatDateTime, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { Done, Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

export function NoticesPage() {
  const admin = useAdmin();
  if (!can(admin, 'notices.read')) return <NotAllowed what="read system notices" />;
  return <NoticeList send={can(admin, 'notices.send')} />;
}

/** The notices sent, newest first; it polls, so each one's delivery moves on by itself. */
function NoticeList({ send }: { readonly send: boolean }) {
  const admin = useAdmin();
  const notices = useNotices();
  const names = useAdminNames(can(admin, 'admins.read'));
  const sent = (useLocation().state as { sent?: boolean } | null)?.sent === true;
  const senderOf = (notice: Notice) =>
    notice.sentBy === admin.id ? 'you' : (names.get(notice.sentBy) ?? 'another admin');
  return (
    <>
      <div className="page-head">
        <PageHeading>System notices</PageHeading>
        {send ? (
          <Link className="button primary" to="/notices/new">
            New notice
          </Link>
        ) : null}
      </div>
      {sent ? <Done>Notice sent. Delivery goes on in the background.</Done> : null}
      <p className="hint page-intro">
        A notice goes as a push to phones and to Telegram. Notices cannot be changed once sent.
      </p>
      {notices.isError ? <ErrorNotice error={notices.error} /> : null}
      {notices.data === undefined ? (
        notices.isPending ? (
          <Loading what="notices" />
        ) : null
      ) : notices.data.items.length === 0 ? (
        <Empty>
          <p>No notice has been sent yet.</p>
          {send ? <p>Write the first one with “New notice”.</p> : null}
        </Empty>
      ) : (
        <ul className="cards">
          {notices.data.items.map((notice) => (
            <li key={notice.id} className="card">
              <h2>{notice.title}</h2>
              <p className="description">{notice.body}</p>
              <dl className="facts">
                <div>
                  <dt>To</dt>
                  <dd>
                    {notice.userIds === null
                      ? 'every user with a device'
                      : `${formatNumber(notice.userIds.length)} ${notice.userIds.length === 1 ? 'user' : 'users'}`}
                  </dd>
                </div>
                <div>
                  <dt>Sent</dt>
                  <dd>
                    {formatDateTime(notice.createdAt)}, by {senderOf(notice)}
                  </dd>
                </div>
                <div>
                  <dt>Delivery</dt>
                  <dd>{progressOf(notice.push)}</dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const stateLabels: Record<PushProgress['state'], string> = {
  waiting: 'waiting for the queue',
  fanning_out: 'reaching devices',
  done: 'done',
};

/** "done: 12 sent, 1 failed": the state, then the devices by outcome, leaving out the empty ones. */
function progressOf(push: PushProgress): string {
  const { queued, sent, failed, refused, removed, muted, online, notConfigured } = push.devices;
  const parts = [
    [queued, 'queued'],
    [sent, 'sent'],
    [failed, 'failed'],
    [refused, 'refused'],
    [removed, 'removed (device gone)'],
    [online, 'skipped (in the app)'],
    [muted, 'skipped (muted)'],
    [notConfigured, 'skipped (no push service)'],
  ] as const;
  const counts = parts
    .filter(([count]) => count > 0)
    .map(([count, label]) => `${formatNumber(count)} ${label}`);
  if (counts.length === 0)
    return push.state === 'done' ? 'done: no device to reach' : stateLabels[push.state];
  return `${stateLabels[push.state]}: ${counts.join(', ')}`;
}
