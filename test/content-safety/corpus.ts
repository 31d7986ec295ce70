import type { SafetyKind } from '../../src/content-safety/index.ts';
import { CARDS } from './corpus/cards.ts';
import { EVASIONS, type EvasionClass } from './corpus/evasions.ts';
import type { Positive } from './corpus/helpers.ts';
import { API_KEYS, PRIVATE_KEYS } from './corpus/keys.ts';
import { LINKS } from './corpus/links.ts';
import { ENGLISH } from './corpus/negatives-en.ts';
import { generatedNegatives } from './corpus/negatives-generated.ts';
import { RUSSIAN } from './corpus/negatives-ru.ts';
import { PASSWORDS } from './corpus/passwords.ts';
import { SEED_PHRASES } from './corpus/seed-phrases.ts';

export type { EvasionClass, Positive };
export { EVASIONS };

const evasionsOf = (kind: SafetyKind): Positive[] =>
  EVASIONS.flatMap((evasion) => evasion.positives.filter((example) => example.kind === kind));

export const POSITIVES: Readonly<Record<SafetyKind, readonly Positive[]>> = {
  link: [...LINKS, ...evasionsOf('link')],
  seed_phrase: [...SEED_PHRASES, ...evasionsOf('seed_phrase')],
  card_number: [...CARDS, ...evasionsOf('card_number')],
  private_key: PRIVATE_KEYS,
  api_key: [...API_KEYS, ...evasionsOf('api_key')],
  password: [...PASSWORDS, ...evasionsOf('password')],
};

const GENERATED = 480;

export const NEGATIVES: readonly string[] = [
  ...ENGLISH,
  ...RUSSIAN,
  ...generatedNegatives(GENERATED),
  ...EVASIONS.flatMap((evasion) => evasion.negatives),
];
