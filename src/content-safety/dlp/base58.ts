import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const VALUES = new Map(Array.from(ALPHABET, (char, value) => [char, value]));

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

function decode(text: string): Uint8Array | null {
  const bytes: number[] = [];
  for (const char of text) {
    let carry = VALUES.get(char);
    if (carry === undefined) return null;
    for (let i = 0; i < bytes.length; i++) {
      carry += (bytes[i] ?? 0) * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    for (; carry > 0; carry >>= 8) bytes.push(carry & 0xff);
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.push(0);
  }
  return Uint8Array.from(bytes.reverse());
}

/** The payload of a Base58Check string, or null when it does not decode or its checksum is wrong. */
export function base58CheckPayload(text: string): Uint8Array | null {
  const bytes = decode(text);
  if (!bytes || bytes.length < 5) return null;
  const payload = bytes.subarray(0, -4);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return checksum.equals(bytes.subarray(-4)) ? payload : null;
}
