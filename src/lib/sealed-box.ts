import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomFillSync } from 'node:crypto';

// AES-256-GCM from node:crypto, for the users' data keys and what they seal (decision 048). A box is
// iv (12 bytes) | ciphertext | tag (16 bytes); the associated data binds it to where it belongs, so a box
// copied into another event or another key's row does not open.

const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/**
 * Random bytes from a pool that one call into OpenSSL fills for a few hundred boxes: under load a call per
 * box cost about as much as the sealing itself (as Node's `randomUUID` does, for the same reason). Each
 * byte is handed out once and zeroed in the pool as it goes.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

function freshRandom(size: number): Buffer {
  if (used + size > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const bytes = Buffer.alloc(size);
  pool.copy(bytes, 0, used, used + size);
  pool.fill(0, used, used + size);
  used += size;
  return bytes;
}

export function seal(key: Buffer, plaintext: Buffer, associated: string): Buffer {
  const iv = freshRandom(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** Throws when the box was not sealed with this key and associated data, or was altered. */
export function open(key: Buffer, box: Buffer, associated: string): Buffer {
  if (box.length < IV_BYTES + TAG_BYTES) throw new Error('a sealed box is too short');
  const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(box.subarray(box.length - TAG_BYTES));
  return Buffer.concat([decipher.update(box.subarray(IV_BYTES, box.length - TAG_BYTES)), decipher.final()]);
}

export const newDataKey = (): Buffer => freshRandom(KEY_BYTES);

/** The master key that wraps data keys, and a short id of it that the wrapped rows record. */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

export function masterKey(secret: string): MasterKey {
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'data-key-wrapping', KEY_BYTES));
  return { key, id: createHmac('sha256', key).update('master-key-id').digest('hex').slice(0, 16) };
}
