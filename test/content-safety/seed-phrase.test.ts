import { describe, expect, it } from 'vitest';
import { findSeedPhrase } from '../../src/content-safety/dlp/seed-phrase.ts';
import { MISTYPED, VALID_12 } from './corpus/seed-phrases.ts';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

const words = VALID_12.split(' ');

describe('findSeedPhrase', () => {
  it('needs twelve words: eleven are not a phrase', () => {
    expect(findSeedPhrase(words.slice(0, 11).join(' '))).toBeNull();
    expect(findSeedPhrase(`${words.slice(0, 11).join(' ')} zoo`)).not.toBeNull();
  });

  it('is broken by a word outside the list, by a long number and by sentence punctuation', () => {
    const split = (middle: string): string =>
      `${words.slice(0, 6).join(' ')} ${middle} ${words.slice(6).join(' ')}`;
    expect(findSeedPhrase(split('the'))).toBeNull();
    expect(findSeedPhrase(split('123'))).toBeNull();
    expect(findSeedPhrase(split('!'))).toBeNull();
    expect(findSeedPhrase(split('7.'))).not.toBeNull();
  });

  it('spans the words and hashes the phrase the checksum picks out of a longer run', () => {
    const text = `seed: about ${VALID_12} zoo.`;
    const found = findSeedPhrase(text);
    expect(found && text.slice(found.start, found.end)).toBe(`about ${VALID_12} zoo`);
    expect(found?.secret).toBe(VALID_12);
  });

  it('hashes four-letter prefixes and numbered words as the same phrase', () => {
    const prefixes = words.map((word) => word.slice(0, 4)).join(' ');
    const numbered = words.map((word, i) => `${i + 1}) ${word.toUpperCase()}`).join('\n');
    expect(findSeedPhrase(prefixes)?.secret).toBe(VALID_12);
    expect(findSeedPhrase(numbered)?.secret).toBe(VALID_12);
  });

  it('still finds a phrase whose checksum fails, and hashes its words as written', () => {
    expect(validateMnemonic(MISTYPED, wordlist)).toBe(false);
    expect(findSeedPhrase(MISTYPED)?.secret).toBe(MISTYPED);
  });

  it('does not read prefixes out of longer words that are not in the list', () => {
    expect(findSeedPhrase(words.map((word) => `${word.slice(0, 4)}zz`).join(' '))).toBeNull();
  });

  it.each([
    ['dots', words.join('.')],
    [
      'full stops and capitals',
      words.map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}.`).join(' '),
    ],
    ['emoji', words.join(' 🔥 ')],
    ['emoji with no spaces', words.join('🔥')],
    ['underscores', words.join('_')],
    ['mixed punctuation', words.map((word, i) => `${word}${'.!?:'.charAt(i % 4)}`).join(' ')],
    [
      'camel case',
      words.map((word, i) => (i ? `${word.charAt(0).toUpperCase()}${word.slice(1)}` : word)).join(''),
    ],
    [
      'mixed case',
      words
        .map((word) => word.replace(/^./, (c) => c.toUpperCase()).replace(/.$/, (c) => c.toUpperCase()))
        .join(' '),
    ],
  ])('finds a phrase separated by %s, as the same phrase', (_name, text) => {
    expect(findSeedPhrase(text)?.secret).toBe(VALID_12);
  });

  it('needs odd separators between at least half of the words', () => {
    // Six words, a full stop, six words: a sentence break, not a separator.
    const split = `${words.slice(0, 6).join(' ')}. ${words.slice(6).join(' ')}`;
    expect(findSeedPhrase(split)).toBeNull();
    const chat = 'good morning ☀️ thank you all 🙏 great job team 🔥 love this update ❤️ keep going';
    expect(findSeedPhrase(chat)).toBeNull();
  });

  it('does not split a glued word unless every part is a list word', () => {
    expect(findSeedPhrase(words.map((word) => `${word}Xyzzy`).join(' '))).toBeNull();
    expect(findSeedPhrase('thisIsTheBestAppEver, useEffect, useState, useMemo')).toBeNull();
  });

  it('leaves prose full of list words alone', () => {
    const prose =
      'You know what, this time they will have to call me back about the order. I think there is one ' +
      'more thing: all people want a simple life, good food, clean water and a little more time.';
    expect(findSeedPhrase(prose)).toBeNull();
  });
});
