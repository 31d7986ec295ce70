import { createHmac } from 'node:crypto';

// Written independently of the service's JWT library, so tests can also forge what it must refuse.
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export type TestAlg = 'HS256' | 'HS384' | 'HS512' | 'none';

export function signJwt(payload: Record<string, unknown>, secret: string, alg: TestAlg = 'HS256'): string {
  const head = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
  if (alg === 'none') return `${head}.`;
  const digest = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg];
  return `${head}.${createHmac(digest, secret).update(head).digest('base64url')}`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A valid session token for `userId`, expiring in an hour. */
export const sessionToken = (secret: string, userId: string) =>
  signJwt({ sub: userId, exp: nowSeconds() + 3600 }, secret);
