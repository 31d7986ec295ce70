import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';

export type Reason = Schemas['Reason'];
export type ReasonKind = Reason['kind'];
export type ReasonCreation = Schemas['ReasonCreation'];
export type ReasonPatch = Schemas['ReasonPatch'];

export const REASON_KINDS: readonly ReasonKind[] = ['support', 'complaint'];

const reasonsKey = ['reasons'] as const;

/** Every reason, active or not, by kind and order: a short list, read whole. */
export function useReasons() {
  return useQuery({
    queryKey: reasonsKey,
    queryFn: async () => unwrap(await api.GET('/admin/reasons')),
  });
}

/** The list shows what the server answered: after a change it is read again. */
function useRefreshReasons() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: reasonsKey });
}

export function useCreateReason() {
  const refresh = useRefreshReasons();
  return useMutation({
    mutationFn: async (body: ReasonCreation) => unwrap(await api.POST('/admin/reasons', { body })),
    onSuccess: refresh,
  });
}

export function useUpdateReason(id: string) {
  const refresh = useRefreshReasons();
  return useMutation({
    mutationFn: async (body: ReasonPatch) =>
      unwrap(await api.PATCH('/admin/reasons/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  });
}

export function useDeleteReason(id: string) {
  const refresh = useRefreshReasons();
  return useMutation({
    mutationFn: async () => {
      unwrap(await api.DELETE('/admin/reasons/{id}', { params: { path: { id } } }));
    },
    onSuccess: refresh,
  });
}
