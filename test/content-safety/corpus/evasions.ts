import type { Positive } from './helpers.ts';
import { CARD_SEPARATORS } from './evasion-cards.ts';
import { SPLIT_KEYS, VENDOR_KEYS } from './evasion-keys.ts';
import { SPACED_DOMAINS } from './evasion-links.ts';
import { PASSWORD_PROSE } from './evasion-passwords.ts';
import { SEED_SEPARATORS } from './evasion-seeds.ts';

/**
 * One way people slip a secret or a link past a filter, with the ordinary text that looks most like it:
 * the positives must be found as their kind, the negatives must pass.
 */
export interface EvasionClass {
  readonly name: string;
  readonly positives: readonly Positive[];
  readonly negatives: readonly string[];
}

export const EVASIONS: readonly EvasionClass[] = [
  CARD_SEPARATORS,
  SEED_SEPARATORS,
  SPACED_DOMAINS,
  SPLIT_KEYS,
  VENDOR_KEYS,
  PASSWORD_PROSE,
];
