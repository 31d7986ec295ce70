import { createSigner } from 'fast-jwt';

export const DEMO_USER_ID = 'demo-user';

/** A client session JWT as a host backend would mint it: HS256 with JWT_SECRET, with `exp`. */
export function mintSessionToken(
  secret: string,
  userId: string,
  ttlSeconds: number,
): { token: string; expiresAt: Date } {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  const token = sign({ sub: userId });
  return { token, expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
}
