import { describe, expect, it } from 'vitest';
import { fileLinkToken, signedFileUrl, verifyFileLinkToken } from '../../src/files/signed-urls.ts';

const secret = 'file-url-secret-0123456789abcdefghijklmnop';
const key = 'chat/dXNlcg/abc';
const now = new Date('2026-11-22T12:00:00Z');
const inMinutes = (m: number) => new Date(now.getTime() + m * 60_000);

describe('signed file links', () => {
  it('have the format of API.md and verify until they expire', () => {
    const token = fileLinkToken(secret, key, inMinutes(15));
    expect(token).toMatch(/^\d+\.[\w-]{43}$/);
    expect(token.split('.')[0]).toBe(String(inMinutes(15).getTime() / 1000));
    expect(verifyFileLinkToken(secret, key, token, now)).toBe(true);
    expect(verifyFileLinkToken(secret, key, token, inMinutes(14.9))).toBe(true);
    expect(verifyFileLinkToken(secret, key, token, inMinutes(15))).toBe(false);
  });

  it('refuse another key, another secret, a changed expiry or signature, and malformed tokens', () => {
    const token = fileLinkToken(secret, key, inMinutes(15));
    const [expiry, signature = ''] = token.split('.');
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [
      undefined,
      '',
      token.slice(0, -1),
      `${Number(expiry) + 60}.${signature}`,
      `${expiry}.${flipped}`,
      `${expiry}`,
      `-1.${signature}`,
      `${expiry}.${signature}.x`,
      `${expiry}.${signature}=`,
    ]) {
      expect(verifyFileLinkToken(secret, key, bad, now), String(bad)).toBe(false);
    }
    expect(verifyFileLinkToken(secret, 'chat/dXNlcg/other', token, now)).toBe(false);
    expect(verifyFileLinkToken('another-secret-0123456789abcdefghijklmn', key, token, now)).toBe(false);
  });

  it('accept only the one spelling of a signature, not the variants that decode to the same bytes', () => {
    const token = fileLinkToken(secret, key, inMinutes(15));
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const accepted = alphabet
      .split('')
      .map((last) => `${token.slice(0, -1)}${last}`)
      .filter((variant) => verifyFileLinkToken(secret, key, variant, now));
    expect(accepted).toEqual([token]);
  });

  it('mint absolute links for the provider', () => {
    const url = signedFileUrl('https://api.example.com/', secret, { id: 'f1', storageKey: key }, 900, now);
    expect(url).toMatch(/^https:\/\/api\.example\.com\/files\/f1\?t=\d+\.[\w-]{43}$/);
    const token = new URL(url).searchParams.get('t') ?? '';
    expect(verifyFileLinkToken(secret, key, token, inMinutes(14))).toBe(true);
    expect(verifyFileLinkToken(secret, key, token, inMinutes(16))).toBe(false);
  });
});
