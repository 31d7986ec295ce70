import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_AUDIENCE, ADMIN_TOKEN_ISSUER, adminTokens } from '../../src/auth/admin-tokens.ts';
import { nowSeconds, signJwt } from '../support/jwt.ts';

const secret = 'admin-session-secret-0123456789abcdef';
const adminId = '5d0c7a52-3f7e-4e0b-8c65-1a2b3c4d5e6f';

describe('admin session tokens', () => {
  const tokens = adminTokens(secret, 60);
  const claims = () => ({
    sub: adminId,
    sv: 3,
    iss: ADMIN_TOKEN_ISSUER,
    aud: ADMIN_TOKEN_AUDIENCE,
    exp: nowSeconds() + 600,
  });

  it('carries the fixed issuer and audience, and verifies', () => {
    const { token } = tokens.mint({ adminId, sessionVersion: 3 });
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as object;
    expect(payload).toMatchObject({
      iss: 'support-channel-service',
      aud: 'admin-session',
      sub: adminId,
      sv: 3,
    });
    expect(tokens.verify(token)).toEqual({ adminId, sessionVersion: 3 });
    expect(tokens.verify(signJwt(claims(), secret))).toEqual({ adminId, sessionVersion: 3 });
  });

  it.each([
    ['no audience', { aud: undefined }],
    ['another audience', { aud: 'client' }],
    ['an audience list without it', { aud: ['client', 'sdk'] }],
    ['no issuer', { iss: undefined }],
    ['another issuer', { iss: 'host-backend' }],
    ['neither', { iss: undefined, aud: undefined }],
  ])('refuses a token signed with the right key but %s', (_name, extra) => {
    expect(tokens.verify(signJwt({ ...claims(), ...extra }, secret))).toBeNull();
  });
});
