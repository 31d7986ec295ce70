/**
 * The change feed as the support side uses it (decision 022): tokens to key its per-user caches on, and
 * announcements of what a write here changed, which reach every replica. The feed itself runs with the
 * projections; this is the part of it the support side needs.
 */
export interface ChangeStamps {
  /** A token that changes whenever one of the scopes may have changed, here or on another replica. */
  of(...scopes: readonly string[]): string;
  /** Moves the scopes here and on every other replica. */
  announce(source: string, position: null, scopes: readonly string[]): void;
}

/** The support side's scopes: what moves them is a write of this service, never a projection. */
export const supportScopes = {
  /** Which Intercom contact a user maps to (or that they have none yet). */
  contact: (userId: string) => `contact:${userId}`,
  /** A user's read markers of conversations and tickets. */
  reads: (userId: string) => `supportReads:${userId}`,
} as const;
