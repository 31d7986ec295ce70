import { createVerifier } from 'fast-jwt';
import { LRUCache } from 'lru-cache';
import { ADMIN_TOKEN_AUDIENCE, ADMIN_TOKEN_ISSUER } from './admin-tokens.ts';
import { isIdText } from '../lib/text-rules.ts';

export interface ClientSessionOptions {
  /** JWT_SECRET: the host backend signs session tokens with it (HS256). */
  readonly secret: string;
  /** REQUIRE_JWT_EXP: refuse tokens without `exp`. */
  readonly requireExp: boolean;
  /** Tolerance for clock skew between the host backend that mints tokens and us. */
  readonly clockToleranceMs?: number;
}

export interface ClientSessions {
  /** The user a session token names when it verifies now; null for anything else. */
  identify(token: string): string | null;
}

const MAX_IDENTITY_LENGTH = 256;
const DEFAULT_CLOCK_TOLERANCE_MS = 5_000;
// A token without `exp` (allowed unless REQUIRE_JWT_EXP) is verified again after this long.
const NO_EXP_RECHECK_MS = 10 * 60_000;

// Runs on every request, and a missing `userId` is the common case: a plain check, not a schema parse
// that would build an error object each time.
// An id that could not be stored as text (a NUL, a lone surrogate, a control character) is no identity:
// the token is refused with 401 before any route sees it.
const isIdentity = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_IDENTITY_LENGTH && isIdText(value);

/** `userId` when it is a non-empty string, else `sub`; null when neither is. */
export function identityOf(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const claims = payload as Record<string, unknown>;
  if (isIdentity(claims.userId)) return claims.userId;
  return isIdentity(claims.sub) ? claims.sub : null;
}

/**
 * A token this service signed for an admin session (admin-tokens.ts): never a client session, even where
 * JWT_SECRET and ADMIN_SESSION_SECRET are the same (production refuses that; development does not).
 */
function isAdminToken(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null) return false;
  const { iss, aud } = payload as Record<string, unknown>;
  const audiences: unknown[] = Array.isArray(aud) ? aud : [aud];
  return iss === ADMIN_TOKEN_ISSUER || audiences.includes(ADMIN_TOKEN_AUDIENCE);
}

/**
 * Client session JWTs: HS256 only. SDKs poll every few seconds with the same token, and decoding and
 * checking it is the largest part of a cheap poll's cost, so a verified token is remembered, by its exact
 * text, until its `exp` (with the same tolerance). A token that failed is never remembered: it is
 * checked in full each time.
 */
export function clientSessions(options: ClientSessionOptions): ClientSessions {
  const clockToleranceMs = options.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS;
  const verify = createVerifier({
    key: options.secret,
    algorithms: ['HS256'],
    clockTolerance: clockToleranceMs,
    ...(options.requireExp ? { requiredClaims: ['exp'] } : {}),
  });
  const verified = new LRUCache<string, { readonly userId: string; readonly validUntil: number }>({
    max: 10_000,
  });
  return {
    identify(token) {
      const now = Date.now();
      const known = verified.get(token);
      if (known && now < known.validUntil) return known.userId;
      let payload: unknown;
      try {
        payload = verify(token);
      } catch {
        verified.delete(token);
        return null;
      }
      const userId = isAdminToken(payload) ? null : identityOf(payload);
      if (userId === null) return null;
      const exp = (payload as { exp?: unknown }).exp;
      const validUntil = typeof exp === 'number' ? exp * 1000 + clockToleranceMs : now + NO_EXP_RECHECK_MS;
      verified.set(token, { userId, validUntil });
      return userId;
    },
  };
}
