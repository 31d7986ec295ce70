import { Link } from 'react-router';
import { type Channel, useChannels } from '../api/channels.ts';
import { can } from '../api/session.ts';
import { formatDateTime, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { PageHeading } from '../components/page-heading.tsx';

export function ChannelsPage() {
  const admin = useAdmin();
  const channels = useChannels();
  const manage = can(admin, 'channels.manage');
  return (
    <>
      <div className="page-head">
        <PageHeading>Channels</PageHeading>
        {manage ? (
          <Link className="button primary" to="/channels/new">
            New channel
          </Link>
        ) : null}
      </div>
      {channels.isError ? <ErrorNotice error={channels.error} /> : null}
      {channels.data === undefined ? (
        channels.isPending ? (
          <Loading what="channels" />
        ) : null
      ) : channels.data.items.length === 0 ? (
        <Empty>
          <p>There is no channel yet.</p>
          {manage ? <p>Create the first one with “New channel”.</p> : null}
        </Empty>
      ) : (
        <ul className="cards">
          {channels.data.items.map((channel) => (
            <ChannelCard key={channel.id} channel={channel} manage={manage} />
          ))}
        </ul>
      )}
    </>
  );
}

function ChannelCard({ channel, manage }: { readonly channel: Channel; readonly manage: boolean }) {
  const { intervalSeconds, burst } = channel.commentRate;
  return (
    <li className="card">
      <h2>{channel.title}</h2>
      {channel.description === '' ? null : <p className="description">{channel.description}</p>}
      <dl className="facts">
        <div>
          <dt>Comments</dt>
          <dd>
            {channel.commentsEnabled
              ? `on, one per ${formatNumber(intervalSeconds)} s after ${formatNumber(burst)} at once`
              : 'off'}
          </dd>
        </div>
        <div>
          <dt>Reactions</dt>
          <dd>{channel.allowedReactions.length === 0 ? 'none' : channel.allowedReactions.join(' ')}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{formatDateTime(channel.updatedAt)}</dd>
        </div>
      </dl>
      {manage ? (
        <Link to={`/channels/${channel.id}`} aria-label={`Edit ${channel.title}`}>
          Edit
        </Link>
      ) : null}
    </li>
  );
}
