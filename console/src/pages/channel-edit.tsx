import { useState } from 'react';
import { useLocation, useParams } from 'react-router';
import { type Channel, type ChannelPatch, useChannels, useUpdateChannel } from '../api/channels.ts';
import { can } from '../api/session.ts';
import { useAdmin } from '../components/layout.tsx';
import { Done, ErrorNotice, Loading } from '../components/states.tsx';
import { ChannelForm, type ChannelSettings } from './channel-form.tsx';
import { NotAllowed } from './not-allowed.tsx';
import { PageHeading } from '../components/page-heading.tsx';

/** Only the settings that differ from the channel's: the API wants at least one, and logs which. */
function changesOf(channel: Channel, settings: ChannelSettings): ChannelPatch {
  const patch: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(settings)) {
    if (JSON.stringify(value) !== JSON.stringify(channel[name as keyof ChannelSettings])) patch[name] = value;
  }
  return patch;
}

export function ChannelEditPage() {
  const admin = useAdmin();
  const { id = '' } = useParams();
  const channels = useChannels();
  if (!can(admin, 'channels.manage')) return <NotAllowed what="change channels" />;
  const channel = channels.data?.items.find((item) => item.id === id);
  if (channel === undefined) {
    if (channels.isPending || channels.isFetching) return <Loading what="the channel" />;
    if (channels.isError) return <ErrorNotice error={channels.error} />;
    return (
      <>
        <PageHeading>No such channel</PageHeading>
        <p>It may have been removed, or the address is wrong.</p>
      </>
    );
  }
  return <ChannelEditor key={channel.id} channel={channel} />;
}

function ChannelEditor({ channel }: { readonly channel: Channel }) {
  const update = useUpdateChannel(channel.id);
  const created = (useLocation().state as { created?: boolean } | null)?.created === true;
  const [unchanged, setUnchanged] = useState(false);
  return (
    <>
      <PageHeading>{`Edit ${channel.title}`}</PageHeading>
      {unchanged ? (
        <Done>Nothing to save: no setting was changed.</Done>
      ) : update.isSuccess ? (
        <Done>Saved.</Done>
      ) : created ? (
        <Done>Channel created.</Done>
      ) : null}
      <ChannelForm
        initial={channel}
        submitLabel="Save changes"
        pending={update.isPending}
        error={update.error}
        onSubmit={(settings) => {
          const patch = changesOf(channel, settings);
          const nothing = Object.keys(patch).length === 0;
          setUnchanged(nothing);
          if (!nothing) update.mutate(patch);
        }}
      />
    </>
  );
}
