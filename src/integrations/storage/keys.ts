import type { ByteRange } from './port.ts';

const MAX_KEY_LENGTH = 512;
// Segments of letters, digits, '_' and '-' joined by single slashes: no '.', so no '..' and no room
// for the local adapter's own file suffixes; no leading, trailing or doubled slash. A segment is a file
// name there, at most 255 bytes with the suffix.
const SEGMENT = '[A-Za-z0-9_-]{1,200}';
const KEY = new RegExp(`^${SEGMENT}(?:/${SEGMENT})*$`);

/** Throws unless `key` is one both adapters store under their own namespace and nowhere else. */
export function assertStorageKey(key: string): void {
  if (key.length > MAX_KEY_LENGTH || !KEY.test(key)) {
    throw new Error(`invalid storage key ${JSON.stringify(key.slice(0, 80))}`);
  }
}

/**
 * Throws unless `range` is well formed. S3 answers a malformed Range header with the whole object, which
 * a caller serving 206 would pass off as the range.
 */
export function assertByteRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}
