import { type SubmitEvent, useState } from 'react';
import { useChannels } from '../api/channels.ts';
import {
  type CommentBan,
  useBanUser,
  useBans,
  useLiftBan,
  useModerators,
  useSetModerator,
} from '../api/moderation.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { can } from '../api/session.ts';
import { BanForm } from '../components/ban-form.tsx';
import { ChannelSelect } from '../components/channel-select.tsx';
import { FormProblem, TextInput } from '../components/fields.tsx';
import { formatDateTime } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { useSearchChoices } from '../components/search-params.ts';
import { Done, Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/moderation.css';

export function BansPage() {
  const admin = useAdmin();
  const channels = useChannels();
  const { get, set } = useSearchChoices();
  if (!can(admin, 'comments.moderate')) return <NotAllowed what="ban users or name moderators" />;
  if (channels.data === undefined) {
    return channels.isError ? <ErrorNotice error={channels.error} /> : <Loading what="channels" />;
  }
  const items = channels.data.items;
  const channelId = get('channel') || (items[0]?.id ?? '');
  return (
    <>
      <PageHeading>Bans and moderators</PageHeading>
      {items.length === 0 ? (
        <Empty>
          <p>There is no channel yet, so no one to ban.</p>
        </Empty>
      ) : (
        <div className="filters">
          <ChannelSelect
            channels={items}
            value={channelId}
            onChange={(id) => {
              set({ channel: id });
            }}
          />
        </div>
      )}
      {channelId === '' ? null : (
        // A new channel or user starts the forms afresh.
        <ChannelModeration key={`${channelId} ${get('user')}`} channelId={channelId} userId={get('user')} />
      )}
    </>
  );
}

function ChannelModeration({ channelId, userId }: { readonly channelId: string; readonly userId: string }) {
  const ban = useBanUser(channelId);
  const [banned, setBanned] = useState<CommentBan | null>(null);
  return (
    <div className="moderation-columns">
      <section aria-labelledby="ban-heading">
        <h2 id="ban-heading">Ban a user from commenting</h2>
        {banned === null ? null : (
          <Done>
            {banned.userId} is banned{' '}
            {banned.until === null ? 'until lifted' : `until ${formatDateTime(banned.until)}`}.
          </Done>
        )}
        <BanForm
          userId={userId}
          pending={ban.isPending}
          error={ban.error}
          onSubmit={(draft) => {
            setBanned(null);
            ban.mutate(draft, { onSuccess: setBanned });
          }}
        />
      </section>
      <section aria-labelledby="bans-heading">
        <h2 id="bans-heading">Bans in force</h2>
        <BanList channelId={channelId} />
      </section>
      <section aria-labelledby="moderators-heading">
        <h2 id="moderators-heading">Comment moderators</h2>
        <p className="hint">Users of the app who may hide and delete comments in this channel.</p>
        <Moderators channelId={channelId} />
      </section>
    </div>
  );
}

function BanList({ channelId }: { readonly channelId: string }) {
  const bans = useBans(channelId);
  const lift = useLiftBan(channelId);
  if (bans.data === undefined)
    return bans.isError ? <ErrorNotice error={bans.error} /> : <Loading what="bans" />;
  return (
    <>
      {lift.isError ? <ErrorNotice error={lift.error} /> : null}
      {bans.data.items.length === 0 ? (
        <Empty>
          <p>No one is banned in this channel.</p>
        </Empty>
      ) : (
        <ul className="cards single">
          {bans.data.items.map((item) => (
            <li key={item.userId} className="card">
              <h3 className="user-id">{item.userId}</h3>
              <dl className="facts">
                <div>
                  <dt>Until</dt>
                  <dd>{item.until === null ? 'a moderator lifts it' : formatDateTime(item.until)}</dd>
                </div>
                <div>
                  <dt>Reason</dt>
                  <dd>{item.reason}</dd>
                </div>
                <div>
                  <dt>Since</dt>
                  <dd>{formatDateTime(item.bannedAt)}</dd>
                </div>
              </dl>
              <button
                type="button"
                aria-label={`Lift ban of ${item.userId}`}
                disabled={lift.isPending && lift.variables === item.userId}
                onClick={() => {
                  lift.mutate(item.userId);
                }}
              >
                Lift ban
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Moderators({ channelId }: { readonly channelId: string }) {
  const moderators = useModerators(channelId);
  const setModerator = useSetModerator(channelId);
  const [userId, setUserId] = useState('');
  const [missing, setMissing] = useState(false);
  const adding = setModerator.variables?.change === 'add';
  // A user id travels in the path: the server's errors name `params.userId`.
  const problems = fieldErrorsOf(adding ? setModerator.error : null, ['userId']).get('') ?? [];
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    setMissing(userId.trim() === '');
    if (userId.trim() === '') return;
    setModerator.mutate(
      { userId: userId.trim(), change: 'add' },
      {
        onSuccess: () => {
          setUserId('');
        },
      },
    );
  };
  return (
    <>
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextInput
          label="User id of a new moderator"
          value={userId}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => {
            setUserId(event.target.value);
          }}
          errors={missing ? ['Enter the user id.'] : problems.length === 0 ? undefined : problems}
        />
        <button type="submit" disabled={setModerator.isPending}>
          Add moderator
        </button>
      </form>
      {adding ? <FormProblem error={setModerator.error} /> : null}
      {!adding && setModerator.isError ? <ErrorNotice error={setModerator.error} /> : null}
      {moderators.data === undefined ? (
        moderators.isError ? (
          <ErrorNotice error={moderators.error} />
        ) : (
          <Loading what="moderators" />
        )
      ) : moderators.data.items.length === 0 ? (
        <Empty>
          <p>The channel has no comment moderator.</p>
        </Empty>
      ) : (
        <ul className="plain-list">
          {moderators.data.items.map((id) => (
            <li key={id}>
              <span className="user-id">{id}</span>
              <button
                type="button"
                aria-label={`Remove ${id} as moderator`}
                disabled={setModerator.isPending}
                onClick={() => {
                  setModerator.mutate({ userId: id, change: 'remove' });
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
