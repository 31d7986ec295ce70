import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useCreateChannel } from '../api/channels.ts';
import { newIdempotencyKey } from '../api/keys.ts';
import { can } from '../api/session.ts';
import { useAdmin } from '../components/layout.tsx';
import { ChannelForm, NEW_CHANNEL } from './channel-form.tsx';
import { NotAllowed } from './not-allowed.tsx';
import { PageHeading } from '../components/page-heading.tsx';

export function ChannelNewPage() {
  const admin = useAdmin();
  const create = useCreateChannel();
  const navigate = useNavigate();
  // One key for this form until the server confirms: a second submit cannot make a second channel.
  const [key] = useState(newIdempotencyKey);
  if (!can(admin, 'channels.manage')) return <NotAllowed what="create channels" />;
  return (
    <>
      <PageHeading>New channel</PageHeading>
      <ChannelForm
        initial={NEW_CHANNEL}
        submitLabel="Create channel"
        pending={create.isPending}
        error={create.error}
        onSubmit={(body) => {
          create.mutate(
            { body, key },
            {
              onSuccess: (channel) => {
                void navigate(`/channels/${channel.id}`, { state: { created: true } });
              },
            },
          );
        }}
      />
    </>
  );
}
