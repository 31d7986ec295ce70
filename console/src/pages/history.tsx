import { type SubmitEvent, useState } from 'react';
import { type Channel, useChannels } from '../api/channels.ts';
import { type HistoryFilter, useModerationEvents, useReplay } from '../api/history.ts';
import { useChannelComments } from '../api/moderation.ts';
import { ApiProblem } from '../api/problem.ts';
import { type Admin, can } from '../api/session.ts';
import { ChannelSelect } from '../components/channel-select.tsx';
import { FormProblem, TextInput } from '../components/fields.tsx';
import { fromLocalInput, InstantInput, toLocalInput } from '../components/instant-input.tsx';
import { useAdmin } from '../components/layout.tsx';
import { EventCard } from '../components/moderation-events.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { ReplayView } from '../components/replay-view.tsx';
import { useSearchChoices } from '../components/search-params.ts';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/moderation.css';

/** A refused query's messages by parameter (`querystring.asOf` is the `asOf` field's). */
function queryErrorsOf(error: unknown, name: string): string[] | undefined {
  if (!(error instanceof ApiProblem)) return undefined;
  const messages = (error.problem.errors ?? [])
    .filter((e) => e.path === `querystring.${name}`)
    .map((e) => e.message);
  return messages.length === 0 ? undefined : messages;
}

export function HistoryPage() {
  const admin = useAdmin();
  const channels = useChannels();
  if (!can(admin, 'moderation.read')) return <NotAllowed what="read the moderation history" />;
  if (channels.data === undefined) {
    return channels.isError ? <ErrorNotice error={channels.error} /> : <Loading what="channels" />;
  }
  return (
    <>
      <PageHeading>Moderation history</PageHeading>
      {channels.data.items.length === 0 ? (
        <Empty>
          <p>There is no channel yet, so nothing was moderated.</p>
        </Empty>
      ) : (
        <>
          <Replay admin={admin} channels={channels.data.items} />
          <Events admin={admin} channels={channels.data.items} />
        </>
      )}
    </>
  );
}

interface PartProps {
  readonly admin: Admin;
  readonly channels: readonly Channel[];
}

/** "What did this channel look like then?": the instant and the channel are in the address. */
function Replay({ admin, channels }: PartProps) {
  const { get, set } = useSearchChoices();
  const channelId = get('replay') || (channels[0]?.id ?? '');
  const asOf = get('asOf');
  const [draft, setDraft] = useState(() => toLocalInput(asOf));
  const replay = useReplay(channelId, asOf === '' ? null : asOf);
  const show = (instant: string) => {
    set({ replay: channelId, asOf: instant });
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    show(fromLocalInput(draft));
  };
  const now = () => {
    // To the second, as the field shows it, so the instant read is the instant shown.
    const instant = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    setDraft(toLocalInput(instant));
    show(instant);
  };
  return (
    <section className="history-part" aria-labelledby="replay-heading">
      <h2 id="replay-heading">Replay as of an instant</h2>
      <p className="hint">
        The channel’s comments, bans and moderators as they stood then, rebuilt from the event log.
      </p>
      <form className="filters replay-form" onSubmit={submit} noValidate>
        <ChannelSelect
          channels={channels}
          value={channelId}
          onChange={(id) => {
            set({ replay: id });
          }}
        />
        <InstantInput
          label="As of"
          value={draft}
          onChange={setDraft}
          errors={queryErrorsOf(replay.error, 'asOf')}
        />
        <div className="actions">
          <button type="submit" className="primary">
            Replay
          </button>
          <button type="button" onClick={now}>
            Now
          </button>
        </div>
      </form>
      {replay.isError ? <FormProblem error={replay.error} /> : null}
      {replay.data === undefined ? (
        replay.isPending ? (
          <Loading what="the replay" />
        ) : null
      ) : can(admin, 'comments.moderate') ? (
        <ReplayWithWords replay={replay.data} />
      ) : (
        <ReplayView replay={replay.data} textOf={() => undefined} />
      )}
    </section>
  );
}

/** For a role that may read comments: the replay with their words, where the newest page has them. */
function ReplayWithWords({ replay }: { readonly replay: Parameters<typeof ReplayView>[0]['replay'] }) {
  const comments = useChannelComments(replay.channelId);
  return (
    <ReplayView
      replay={replay}
      textOf={(id) => comments.data?.items.find((comment) => comment.id === id)?.text || undefined}
    />
  );
}

type FilterName = 'channel' | 'user' | 'comment' | 'from' | 'to';

/** The history's entries, newest first, with the API's filters. */
function Events({ admin, channels }: PartProps) {
  const { get, set } = useSearchChoices();
  const [draft, setDraft] = useState(() => ({
    channel: get('channel'),
    user: get('user'),
    comment: get('comment'),
    from: toLocalInput(get('from')),
    to: toLocalInput(get('to')),
  }));
  const filter: HistoryFilter = {
    channelId: get('channel') || undefined,
    userId: get('user') || undefined,
    commentId: get('comment') || undefined,
    from: get('from') || undefined,
    to: get('to') || undefined,
  };
  const events = useModerationEvents(filter);
  const errorsOf = (name: string) => queryErrorsOf(events.error, name);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    set({
      ...draft,
      user: draft.user.trim(),
      comment: draft.comment.trim(),
      from: fromLocalInput(draft.from),
      to: fromLocalInput(draft.to),
    });
  };
  const edit = (name: FilterName) => (value: string) => {
    setDraft({ ...draft, [name]: value });
  };
  const titleOf = (id: string) => channels.find((channel) => channel.id === id)?.title ?? id;
  const items = events.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section className="history-part" aria-labelledby="events-heading">
      <h2 id="events-heading">Events</h2>
      <form className="filters history-filters" onSubmit={submit} noValidate>
        <ChannelSelect
          channels={channels}
          value={draft.channel}
          onChange={edit('channel')}
          anyLabel="All channels"
        />
        <TextInput
          label="User id"
          value={draft.user}
          onChange={(e) => {
            edit('user')(e.target.value);
          }}
          errors={errorsOf('userId')}
        />
        <TextInput
          label="Comment id"
          value={draft.comment}
          onChange={(e) => {
            edit('comment')(e.target.value);
          }}
          errors={errorsOf('commentId')}
        />
        <InstantInput label="From" value={draft.from} onChange={edit('from')} errors={errorsOf('from')} />
        <InstantInput label="Before" value={draft.to} onChange={edit('to')} errors={errorsOf('to')} />
        <div className="actions">
          <button type="submit" className="primary">
            Filter
          </button>
        </div>
      </form>
      {events.isError ? <FormProblem error={events.error} /> : null}
      {events.isPending ? (
        <Loading what="the history" />
      ) : items.length === 0 ? (
        events.isError ? null : (
          <Empty>
            <p>Nothing was moderated {Object.values(filter).some(Boolean) ? 'that matches' : 'yet'}.</p>
          </Empty>
        )
      ) : (
        <ul className="cards single">
          {items.map((event) => (
            <EventCard
              key={event.id}
              event={event}
              channelTitle={titleOf(event.channelId)}
              selfId={admin.id}
            />
          ))}
        </ul>
      )}
      {events.hasNextPage ? (
        <button
          type="button"
          disabled={events.isFetchingNextPage}
          onClick={() => {
            void events.fetchNextPage();
          }}
        >
          {events.isFetchingNextPage ? 'Loading older events…' : 'Show older events'}
        </button>
      ) : null}
    </section>
  );
}
