import { LRUCache } from 'lru-cache';
import { type AdminRecord, findAdminById } from './admin-users.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { AdminTokens } from './admin-tokens.ts';

/** The signed-in admin, as requests see it (never the password hash). */
export type AdminIdentity = Omit<AdminRecord, 'passwordHash'>;

export interface AdminSessions {
  /** The admin a token belongs to, when it verifies, the account is active and its version matches. */
  readonly authenticate: (token: string) => Promise<AdminIdentity | null>;
  /** Drops what this process remembers of an account, after changing it. */
  readonly forget: (adminId: string) => void;
}

// Another replica's change (deactivation, password, logout-all) reaches this one within this time.
export const ACCOUNT_CACHE_TTL_MS = 2_000;

const withoutHash = ({ passwordHash: _, ...identity }: AdminRecord): AdminIdentity => identity;

/**
 * Stateless tokens, revocable at once: the token proves who and which session version, and the account
 * row (cached per admin for at most two seconds, concurrent misses sharing one query) says whether that
 * is still good.
 */
export function adminSessions(pool: DatabasePool, tokens: AdminTokens): AdminSessions {
  const accounts = new LRUCache<string, { readonly admin: AdminIdentity | null }>({
    max: 10_000,
    ttl: ACCOUNT_CACHE_TTL_MS,
    fetchMethod: async (id) => {
      const found = await findAdminById(pool, id);
      return { admin: found ? withoutHash(found) : null };
    },
  });
  // `forget` aborts a load in flight (it may have read the row before the change); whoever waited on it
  // loads again, once.
  const load = (id: string) => accounts.fetch(id).catch(() => accounts.fetch(id));
  return {
    authenticate: async (token) => {
      const claims = tokens.verify(token);
      if (!claims) return null;
      const admin = (await load(claims.adminId))?.admin ?? null;
      return admin?.active && admin.sessionVersion === claims.sessionVersion ? admin : null;
    },
    forget: (adminId) => {
      accounts.delete(adminId);
    },
  };
}
