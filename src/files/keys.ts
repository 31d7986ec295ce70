import { createHash, randomBytes } from 'node:crypto';

/**
 * Storage keys are random (never derived from a file name). A chat attachment's key is tagged with its
 * owner: a SHA-256 of the user id (any id, of any length, fits the key alphabet and a file name, and the
 * bucket does not list user ids), so an operator can find or remove one user's files.
 */
export function ownerTag(ownerId: string): string {
  return createHash('sha256').update(ownerId, 'utf8').digest('base64url');
}

export function chatAttachmentKey(ownerId: string): string {
  return `chat/${ownerTag(ownerId)}/${randomBytes(16).toString('base64url')}`;
}
