import { createHmac } from 'node:crypto';
import type { Finding } from './finding.ts';

const MASK = '•';
const BEFORE = 14;
const WIDTH = 40;
// Around the hit, digits and long unbroken runs are masked too: a CVV after a card number, or a
// second key next to the first, is as secret as the hit.
const SENSITIVE_CONTEXT = /\p{N}|[^\s]{12,}/gu;

const mask = (text: string): string => text.replace(/\S/gu, MASK);
// Masking keeps the length in UTF-16 units, so a wider masked slice can be cut where the plain one
// would be: a long run must be judged whole, not as the few characters left inside the window.
const MARGIN = 64;
const maskContext = (text: string, from: number, to: number): string => {
  const wideFrom = Math.max(0, from - MARGIN);
  const masked = text
    .slice(wideFrom, to + MARGIN)
    .replace(SENSITIVE_CONTEXT, (found) => MASK.repeat(found.length));
  return masked.slice(from - wideFrom, to - wideFrom);
};

/** About 40 characters around the hit, with the hit and anything secret-looking near it masked. */
export function redactedSnippet(text: string, finding: Finding): string {
  const from = Math.max(0, finding.start - BEFORE);
  const to = Math.min(text.length, from + WIDTH);
  const hitEnd = Math.min(finding.end, to);
  const snippet =
    maskContext(text, from, finding.start) +
    mask(text.slice(finding.start, hitEnd)) +
    maskContext(text, hitEnd, to);
  const ellipsisBefore = from > 0 ? '…' : '';
  const ellipsisAfter = to < text.length ? '…' : '';
  // A cut through a surrogate pair leaves half a character; toWellFormed replaces it.
  return `${ellipsisBefore}${snippet.replace(/\s+/g, ' ')}${ellipsisAfter}`.toWellFormed();
}

/** Keyed, so a card number or a short password cannot be recovered by hashing guesses. */
export function keyedHash(key: string, secret: string): string {
  return createHmac('sha256', key).update(secret, 'utf8').digest('hex');
}
