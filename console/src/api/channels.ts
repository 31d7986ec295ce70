import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { usePolledQuery } from './poll.ts';
import { unwrap } from './problem.ts';

export type Channel = Schemas['Channel'];
export type ChannelCreation = Schemas['ChannelCreation'];
export type ChannelPatch = Schemas['ChannelPatch'];

const channelsKey = ['channels'] as const;

export function useChannels() {
  return usePolledQuery(channelsKey, (headers) => api.GET('/admin/channels', { headers }));
}

/** The lists show what the server answered: no optimistic change, the list is read again. */
function useRefreshChannels() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: channelsKey });
}

export function useCreateChannel() {
  const refresh = useRefreshChannels();
  return useMutation({
    mutationFn: async ({ body, key }: { body: ChannelCreation; key: string }) =>
      unwrap(await api.POST('/admin/channels', { body, params: { header: { 'idempotency-key': key } } })),
    onSuccess: refresh,
  });
}

export function useUpdateChannel(id: string) {
  const refresh = useRefreshChannels();
  return useMutation({
    mutationFn: async (body: ChannelPatch) =>
      unwrap(await api.PATCH('/admin/channels/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  });
}
