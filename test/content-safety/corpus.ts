import type { SafetyKind } from '../../src/content-safety/index.ts';
import { CARDS } from './corpus/cards.ts';
import type { Positive } from './corpus/helpers.ts';
import { API_KEYS, PRIVATE_KEYS } from './corpus/keys.ts';
import { LINKS } from './corpus/links.ts';
import { ENGLISH } from './corpus/negatives-en.ts';
import { generatedNegatives } from './corpus/negatives-generated.ts';
import { RUSSIAN } from './corpus/negatives-ru.ts';
import { PASSWORDS } from './corpus/passwords.ts';
import { SEED_PHRASES } from './corpus/seed-phrases.ts';

export type { Positive };

export const POSITIVES: Readonly<Record<SafetyKind, readonly Positive[]>> = {
  link: LINKS,
  seed_phrase: SEED_PHRASES,
  card_number: CARDS,
  private_key: PRIVATE_KEYS,
  api_key: API_KEYS,
  password: PASSWORDS,
};

const GENERATED = 480;

export const NEGATIVES: readonly string[] = [...ENGLISH, ...RUSSIAN, ...generatedNegatives(GENERATED)];
