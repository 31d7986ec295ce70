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
