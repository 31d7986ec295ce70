import { createHash } from 'node:crypto';

/**
 * A short, URL-safe SHA-256 digest of `text`: what caches and ETags compare. 27 characters (162 bits) by
 * default; collisions are not a concern at these lengths, only that equal text gives equal digests.
 */
export const digest = (text: string, length = 27): string =>
  createHash('sha256').update(text).digest('base64url').slice(0, length);

/** A weak ETag over exactly `text` (API.md: poll endpoints answer with one). */
export const weakEtag = (text: string): string => `W/"${digest(text)}"`;
