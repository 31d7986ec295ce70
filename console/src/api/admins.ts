import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';
import type { Admin } from './session.ts';

export type AdminCreation = Schemas['AdminCreation'];
export type AdminPatch = Schemas['AdminPatch'];
export type AdminRole = Schemas['AdminRole'];

export const ADMIN_ROLES: readonly AdminRole[] = ['owner', 'author', 'moderator', 'support', 'auditor'];

const adminsKey = ['admins'] as const;

/** Every admin account, active or not, by email, a hundred at a time. */
export function useAdmins(enabled = true) {
  return useInfiniteQuery({
    queryKey: adminsKey,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/admin/admins', {
          params: { query: { limit: 100, ...(pageParam === null ? {} : { cursor: pageParam }) } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    enabled,
  });
}

/** Admins' names by id, for pages that name who did something; empty for a role that cannot list them. */
export function useAdminNames(enabled: boolean): ReadonlyMap<string, string> {
  const admins = useAdmins(enabled);
  return useMemo(
    () => new Map(admins.data?.pages.flatMap((page) => page.items.map((a) => [a.id, a.name] as const))),
    [admins.data],
  );
}

/**
 * After a change the list is read again, and so is the signed-in admin (an owner may change their own
 * role). Nothing is shown before the server has answered.
 */
function useRefreshAdmins() {
  const client = useQueryClient();
  return async () => {
    await Promise.all([
      client.invalidateQueries({ queryKey: adminsKey }),
      client.invalidateQueries({ queryKey: ['me'] }),
    ]);
  };
}

export function useCreateAdmin() {
  const refresh = useRefreshAdmins();
  return useMutation({
    mutationFn: async (body: AdminCreation) => unwrap(await api.POST('/admin/admins', { body })),
    onSuccess: refresh,
  });
}

export function useUpdateAdmin(id: string) {
  const refresh = useRefreshAdmins();
  return useMutation({
    mutationFn: async (body: AdminPatch) =>
      unwrap(await api.PATCH('/admin/admins/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  });
}

/** Deactivates (ending the account's sessions) or activates an account. */
export function useSetAdminActive(id: string) {
  const refresh = useRefreshAdmins();
  return useMutation({
    mutationFn: async (active: boolean): Promise<Admin> => {
      const options = { params: { path: { id } } };
      return unwrap(
        active
          ? await api.POST('/admin/admins/{id}/activate', options)
          : await api.POST('/admin/admins/{id}/deactivate', options),
      );
    },
    onSuccess: refresh,
  });
}

/** Sets a new password, which ends every session of that admin. */
export function useSetAdminPassword(id: string) {
  return useMutation({
    mutationFn: async (password: string) => {
      unwrap(await api.POST('/admin/admins/{id}/password', { params: { path: { id } }, body: { password } }));
    },
  });
}
