import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN_AUDIENCE, ADMIN_TOKEN_ISSUER, adminTokens } from '../../src/auth/admin-tokens.ts';
import { clientSessions } from '../../src/auth/client-sessions.ts';
import { nowSeconds, signJwt } from '../support/jwt.ts';

const secret = 'client-session-secret-0123456789abcdef';

describe('client sessions', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('names the user of a valid token, again and again', () => {
    const sessions = clientSessions({ secret, requireExp: true });
    const token = signJwt({ sub: 'u1', exp: nowSeconds() + 600 }, secret);
    expect(sessions.identify(token)).toBe('u1');
    expect(sessions.identify(token)).toBe('u1');
  });

  it('prefers the userId claim to sub', () => {
    const sessions = clientSessions({ secret, requireExp: false });
    expect(sessions.identify(signJwt({ sub: 's', userId: 'u2' }, secret))).toBe('u2');
  });

  it('stops accepting a token it remembered once the token has expired', () => {
    // The sessions and the verifier read the time from `Date.now()`: the test moves that clock by hand.
    vi.useFakeTimers({ toFake: ['Date'] });
    const sessions = clientSessions({ secret, requireExp: true, clockToleranceMs: 0 });
    const exp = nowSeconds() + 1;
    const token = signJwt({ sub: 'u1', exp }, secret);
    expect(sessions.identify(token)).toBe('u1');
    vi.setSystemTime(exp * 1000 - 1);
    expect(sessions.identify(token)).toBe('u1');
    vi.setSystemTime(exp * 1000 + 1);
    expect(sessions.identify(token)).toBeNull();
  });

  it('never remembers a refusal: the same text is refused each time, and another token is checked', () => {
    const sessions = clientSessions({ secret, requireExp: true });
    const forged = signJwt({ sub: 'u1', exp: nowSeconds() + 600 }, 'another-secret-0123456789abcdefghijkl');
    expect(sessions.identify(forged)).toBeNull();
    expect(sessions.identify(forged)).toBeNull();
    const good = signJwt({ sub: 'u1', exp: nowSeconds() + 600 }, secret);
    expect(sessions.identify(good)).toBe('u1');
    // A tampered copy of a remembered token is a different text: verified in full, and refused.
    const tampered = good.replace(/\.[^.]+\./, `.${Buffer.from('{"sub":"admin"}').toString('base64url')}.`);
    expect(sessions.identify(tampered)).toBeNull();
  });

  it('refuses a token without exp when exp is required, even after the same claims passed elsewhere', () => {
    const lenient = clientSessions({ secret, requireExp: false });
    const strict = clientSessions({ secret, requireExp: true });
    const token = signJwt({ sub: 'u1' }, secret);
    expect(lenient.identify(token)).toBe('u1');
    expect(strict.identify(token)).toBeNull();
  });

  it("never takes an admin session token for a client session, even one signed with the client's secret", () => {
    const sessions = clientSessions({ secret, requireExp: true });
    const adminId = '0b7e4c0e-8a41-4a3c-9d8e-2f1f3b7a9c11';
    const minted = adminTokens(secret, 60).mint({ adminId, sessionVersion: 1 }).token;
    expect(sessions.identify(minted)).toBeNull();
    const exp = nowSeconds() + 600;
    expect(sessions.identify(signJwt({ sub: adminId, aud: ADMIN_TOKEN_AUDIENCE, exp }, secret))).toBeNull();
    expect(
      sessions.identify(signJwt({ sub: adminId, aud: ['sdk', ADMIN_TOKEN_AUDIENCE], exp }, secret)),
    ).toBeNull();
    expect(sessions.identify(signJwt({ sub: adminId, iss: ADMIN_TOKEN_ISSUER, exp }, secret))).toBeNull();
    // Other issuers and audiences are the host backend's business.
    expect(sessions.identify(signJwt({ sub: 'u1', iss: 'host', aud: 'sdk', exp }, secret))).toBe('u1');
  });
});
