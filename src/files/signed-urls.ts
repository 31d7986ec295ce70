import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Public file links (API.md): `t = <expiresAtUnixSeconds>.<base64url HMAC-SHA256(FILE_URL_SECRET,
 * "<storageKey>.<expiresAt>")>`. Bound to the storage key, so a link made for one file opens no other,
 * and rotating the secret ends every link.
 */
const sign = (secret: string, storageKey: string, expiresAt: number) =>
  createHmac('sha256', secret).update(`${storageKey}.${expiresAt}`).digest();

export function fileLinkToken(secret: string, storageKey: string, expiresAt: Date): string {
  const seconds = Math.floor(expiresAt.getTime() / 1000);
  return `${seconds}.${sign(secret, storageKey, seconds).toString('base64url')}`;
}

/** The absolute link the provider gets for a chat attachment. */
export function signedFileUrl(
  baseUrl: string,
  secret: string,
  file: { readonly id: string; readonly storageKey: string },
  ttlSeconds: number,
  now: Date = new Date(),
): string {
  const token = fileLinkToken(secret, file.storageKey, new Date(now.getTime() + ttlSeconds * 1000));
  return `${baseUrl.replace(/\/+$/, '')}/files/${file.id}?t=${token}`;
}

const tokenPattern = /^(\d{1,12})\.([\w-]{43})$/;

/** True only for a well-formed, unexpired token signed with this secret for this storage key. */
export function verifyFileLinkToken(
  secret: string,
  storageKey: string,
  token: string | undefined,
  now: Date = new Date(),
): boolean {
  const match = tokenPattern.exec(token ?? '');
  if (!match) return false;
  const expiresAt = Number(match[1]);
  if (expiresAt * 1000 <= now.getTime()) return false;
  // Compared as text, not decoded bytes: the 43rd character carries two unused bits, so decoding
  // would accept four spellings of one signature.
  const given = Buffer.from(match[2] ?? '');
  const expected = Buffer.from(sign(secret, storageKey, expiresAt).toString('base64url'));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Links to media shown in what clients poll (post attachments, comment pictures): minted per _period_
 * of half the lifetime, with the expiry at a period boundary, so every answer made in one period holds
 * the same links (the cached JSON and its ETag stay put) and a link handed out in a period still works
 * for at least `ttlSeconds` after that period ends (decision 033).
 */
export interface MediaLinkTokens {
  /** The period now: `floor(now / (ttl / 2))`. */
  period(): number;
  /** When the links minted in a period stop working: the end of that period plus the lifetime. */
  expiresAt(period: number): Date;
  /** The token of a stored object's link minted in a period. */
  token(period: number, storageKey: string): string;
  /** Whether a token opens that object now (the same clock the periods follow). */
  verify(storageKey: string, token: string | undefined): boolean;
  /** Now, by the clock links are minted and checked with. */
  now(): Date;
}

export function mediaLinkTokens(
  secret: string,
  ttlSeconds: number,
  clock: () => number = Date.now,
): MediaLinkTokens {
  const periodMs = Math.max(1, Math.floor(ttlSeconds / 2)) * 1000;
  const expiresAt = (period: number) => new Date((period + 1) * periodMs + ttlSeconds * 1000);
  return {
    period: () => Math.floor(clock() / periodMs),
    expiresAt,
    token: (period, storageKey) => fileLinkToken(secret, storageKey, expiresAt(period)),
    verify: (storageKey, token) => verifyFileLinkToken(secret, storageKey, token, new Date(clock())),
    now: () => new Date(clock()),
  };
}

/** The expiry a well-formed token names, in Unix seconds (whether it verifies is another question). */
export function fileLinkExpiry(token: string): number | null {
  const match = tokenPattern.exec(token);
  return match ? Number(match[1]) : null;
}
