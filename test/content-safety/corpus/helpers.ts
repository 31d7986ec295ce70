import { createHash } from 'node:crypto';
import type { SafetyKind } from '../../../src/content-safety/index.ts';

export interface Positive {
  readonly kind: SafetyKind;
  readonly text: string;
  /** The secret as it is written in `text`: the snippet must not give any of it away. */
  readonly secret: string;
}

/** A maker of examples of one kind: `before`, the secret, `after`, so each secret stays beside its text. */
export const examplesOf =
  (kind: SafetyKind) =>
  (before: string, secret: string, after = ''): Positive => ({
    kind,
    text: `${before}${secret}${after}`,
    secret,
  });

/** Deterministic so that the corpus, and so its report, is the same on every run: SHA-256 of a counter. */
export function random(seed: number): () => number {
  let counter = 0;
  return () => createHash('sha256').update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}

export const pick = <T>(next: () => number, items: readonly T[]): T => {
  const item = items[Math.floor(next() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
};

export const digits = (next: () => number, count: number): string =>
  Array.from({ length: count }, () => Math.floor(next() * 10)).join('');

export const fromAlphabet = (next: () => number, alphabet: string, count: number): string =>
  Array.from({ length: count }, () => pick(next, Array.from(alphabet))).join('');

const doubled = (digit: number): number => (digit * 2 > 9 ? digit * 2 - 9 : digit * 2);

/** Appends the Luhn check digit (written here independently of the code under test). */
export function withLuhnDigit(partial: string): string {
  for (let check = 0; check <= 9; check++) {
    const candidate = `${partial}${check}`;
    const sum = Array.from(candidate)
      .reverse()
      .map(Number)
      .reduce((total, digit, i) => total + (i % 2 === 1 ? doubled(digit) : digit), 0);
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable: one of ten check digits always fits');
}

export const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58Check(payload: Uint8Array): string {
  const sha = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();
  const bytes = Buffer.concat([payload, sha(sha(payload)).subarray(0, 4)]);
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let text = '';
  while (value > 0n) {
    text = `${BASE58[Number(value % 58n)] ?? ''}${text}`;
    value /= 58n;
  }
  const zeros = bytes.findIndex((byte) => byte !== 0);
  return `${'1'.repeat(zeros)}${text}`;
}
