import { describe, expect, it } from 'vitest';
import { checkComment } from '../../src/content-safety/index.ts';
import { VALID_12 } from './corpus/seed-phrases.ts';

const options = { hashKey: 'adversarial' };
const LENGTH = 2_000;
const filled = (unit: string): string => unit.repeat(Math.ceil(LENGTH / unit.length)).slice(0, LENGTH);

/*
 * Inputs built to make a pattern backtrack: long runs of what a rule reads (digits and separators,
 * list words, labels, spaced dots, key prefixes) that never complete. The rules are written to be
 * linear; these only pin down what each one answers, and that it answers at all (no timing asserts:
 * bench/content-safety.ts times the check).
 */
describe('the check on adversarial input', () => {
  it.each([
    ['digits and every separator', filled('1 - 2.3/4 5_6\\7|8 '), null],
    ['digits and dots', filled('1.'), null],
    ['digits and long gaps', filled('12   '), null],
    ['zeros after a card word', `card ${filled('0 ')}`, null],
    ['sevens after a card word', `card ${filled('7 ')}`, null],
    ['four-digit groups that never pass Luhn', filled('4111 '), null],
    ['one list word, repeated', filled('legal '), 'seed_phrase'],
    ['list words and dots', filled('legal.'), 'seed_phrase'],
    ['list words and emoji', filled('legal🔥'), 'seed_phrase'],
    ['glued list words', filled('legalWinner'), null],
    ['a label and a copula, repeated', filled('password is '), 'password'],
    ['a label and a phrase, repeated', filled('password for x '), null],
    ['spaced dots', filled('a . '), null],
    ['spaced dots between letters', filled('ab . cd '), 'link'],
    ['a key prefix and spaced letters', `AKIA${filled('A ')}`, null],
    ['key prefixes and short pieces', filled('ghp_ a1B '), null],
    ['a secret label, repeated', filled('aws secret key is '), null],
    ['base64 pieces after a secret label', `aws secret: ${filled('aB1/ ')}`, 'api_key'],
    ['one long word', filled('x'), null],
    ['spaces', `a${' '.repeat(LENGTH)}b`, null],
    ['line breaks', filled('\n'), null],
    ['open brackets', filled('( '), null],
    ['brackets and dots', filled('[ . '), null],
    ['hyphens', filled('a-'), null],
  ])('%s', (_name, text, kind) => {
    expect(checkComment(text, options)?.kind ?? null).toBe(kind);
  });

  it('still finds a secret at the end of a long adversarial run', () => {
    expect(checkComment(`${filled('1 - 2.3/4 ')} card 4111.1111.1111.1111`, options)?.kind).toBe(
      'card_number',
    );
    expect(checkComment(`${filled('ok. ')} ${VALID_12.split(' ').join('🔥')}`, options)?.kind).toBe(
      'seed_phrase',
    );
  });
});
