import { randomUUID } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';
import { z } from 'zod';

/** What an admin session token carries; the token itself is stored nowhere. */
export interface AdminTokenClaims {
  readonly adminId: string;
  readonly sessionVersion: number;
}

export interface AdminTokens {
  mint(claims: AdminTokenClaims): { token: string; expiresAt: Date };
  /** The claims of a token signed with this secret and not expired; null for anything else. */
  verify(token: string): AdminTokenClaims | null;
}

/**
 * Who signs admin session tokens (`iss`) and for what (`aud`): both are set on every token and required on
 * verification, so a token signed with the right key for anything else (a client session JWT, should the
 * secrets ever be equal) is refused; client sessions refuse tokens naming this audience in turn.
 */
export const ADMIN_TOKEN_ISSUER = 'support-channel-service';
export const ADMIN_TOKEN_AUDIENCE = 'admin-session';
const CLOCK_TOLERANCE_MS = 5_000;

const payload = z.object({ sub: z.uuid(), sv: z.number().int().positive() });

/**
 * Admin session tokens: JWTs (HS256) signed with ADMIN_SESSION_SECRET, carrying the admin id (`sub`), the
 * account's session version (`sv`), `iss`, `aud` and `exp`. Rotating the secret ends every session at once;
 * moving the session version ends one admin's (see admin-sessions.ts).
 */
export function adminTokens(secret: string, ttlMinutes: number): AdminTokens {
  const ttlMs = ttlMinutes * 60_000;
  const sign = createSigner({
    key: secret,
    algorithm: 'HS256',
    iss: ADMIN_TOKEN_ISSUER,
    aud: ADMIN_TOKEN_AUDIENCE,
    expiresIn: ttlMs,
  });
  const verifier = createVerifier({
    key: secret,
    algorithms: ['HS256'],
    allowedIss: ADMIN_TOKEN_ISSUER,
    allowedAud: ADMIN_TOKEN_AUDIENCE,
    // fast-jwt checks allowedIss/allowedAud only on tokens that carry the claim: require both.
    requiredClaims: ['iss', 'aud', 'exp', 'sub', 'sv'],
    clockTolerance: CLOCK_TOLERANCE_MS,
    // The panel sends the same token with every request: remember verified ones (never past their exp).
    cache: 1_000,
  });
  return {
    mint: ({ adminId, sessionVersion }) => {
      // Claims are in whole seconds; the answer names the very instant the token stops verifying.
      const iat = Math.floor(Date.now() / 1000);
      // jti: two logins in the same second still get tokens of their own.
      const token = sign({ sub: adminId, sv: sessionVersion, iat, jti: randomUUID() });
      return { token, expiresAt: new Date(iat * 1000 + ttlMs) };
    },
    verify: (token) => {
      try {
        const parsed = payload.safeParse(verifier(token));
        return parsed.success ? { adminId: parsed.data.sub, sessionVersion: parsed.data.sv } : null;
      } catch {
        return null;
      }
    },
  };
}
