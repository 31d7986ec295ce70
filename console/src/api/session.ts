import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { api, type Schemas } from './client.ts';
import { unwrap } from './problem.ts';
import { endSession, heldSession, holdSession, subscribeToSession } from './token.ts';

export type Admin = Schemas['Admin'];
export type Permission = Schemas['AdminPermission'];
export type Credentials = Schemas['AdminLogin'];

const meKey = ['me'] as const;

export function useHeldSession() {
  return useSyncExternalStore(subscribeToSession, heldSession);
}

/** The signed-in admin with the permissions of its role (`GET /admin/me`), while a session is held. */
export function useMe() {
  const session = useHeldSession();
  return useQuery({
    queryKey: meKey,
    queryFn: async () => unwrap(await api.GET('/admin/me')),
    enabled: session !== null,
    staleTime: 60_000,
  });
}

/**
 * Whether the admin's role grants a permission. The console hides what the role cannot do; the server
 * still decides every request.
 */
export function can(admin: Admin | undefined, permission: Permission): boolean {
  return admin?.permissions.includes(permission) ?? false;
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: Credentials) => unwrap(await api.POST('/admin/auth/login', { body })),
    onSuccess: ({ token, expiresAt, admin }) => {
      client.setQueryData(meKey, admin);
      holdSession({ token, expiresAt });
    },
  });
}

/** Forgets this tab's token. The token itself stays valid until it expires; see `useSignOutEverywhere`. */
export function signOut(): void {
  endSession('signed-out');
}

/** Ends every session of this admin on the server (other browsers' too), then this one. */
export function useSignOutEverywhere() {
  return useMutation({
    mutationFn: async () => {
      unwrap(await api.POST('/admin/auth/logout-all'));
    },
    onSuccess: () => {
      endSession('signed-out');
    },
  });
}
