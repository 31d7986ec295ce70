import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { Finding } from '../finding.ts';

const MIN_WORDS = 12;
const WORDS = new Set(wordlist);
// BIP39 words are unique in their first four letters, which is why wallets accept the prefix alone.
const BY_PREFIX = new Map(wordlist.map((word) => [word.slice(0, 4), word]));

// Letters, digits and any single other character; white space (new lines too) only separates.
const TOKEN = /\p{L}+|\p{N}+|\S/gu;
// Characters people put between the words of a phrase; any other breaks the run.
const SEPARATORS = new Set([',', ';', '|', '/', '-', '(', ')', '[', ']', '#', '*', '•', '"', "'"]);
// "1." "2)" "3:" numbering; a number longer than two digits is not a word index.
const AFTER_INDEX = new Set(['.', ')', ':']);
const MAX_INDEX_DIGITS = 2;
// Valid phrase lengths, longest first, for finding the phrase inside a longer run.
const PHRASE_LENGTHS = [24, 21, 18, 15, 12];

function seedWord(token: string): string | undefined {
  const lower = token.toLowerCase();
  if (WORDS.has(lower)) return lower;
  return lower.length === 4 ? BY_PREFIX.get(lower) : undefined;
}

/**
 * The checksum never decides: a mistyped phrase leaks as much as a valid one. It only says which
 * words of a longer run are the phrase, so the hash is the same whatever words surround it. Only
 * windows at either end of the run are tried (a stray word or two before or after the phrase): each
 * check costs about 0.1 ms.
 */
function phraseOf(words: readonly string[]): string {
  for (const length of PHRASE_LENGTHS) {
    const last = words.length - length;
    for (const from of new Set([0, 1, last - 1, last])) {
      if (from < 0 || from > last) continue;
      const candidate = words.slice(from, from + length).join(' ');
      if (validateMnemonic(candidate, wordlist)) return candidate;
    }
  }
  return words.join(' ');
}

/** A run of twelve or more BIP39 words (or their four-letter prefixes), however separated. */
export function findSeedPhrase(text: string): Finding | null {
  let words: string[] = [];
  let start = 0;
  let end = 0;
  let afterIndex = false;
  const finish = (): Finding | null =>
    words.length >= MIN_WORDS ? { start, end, secret: phraseOf(words) } : null;

  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    const word = seedWord(token);
    const wasAfterIndex = afterIndex;
    afterIndex = false;
    if (word !== undefined) {
      if (words.length === 0) start = match.index;
      words.push(word);
      end = match.index + token.length;
    } else if (/^\p{N}+$/u.test(token) && token.length <= MAX_INDEX_DIGITS) {
      afterIndex = true;
    } else if (!SEPARATORS.has(token) && !(wasAfterIndex && AFTER_INDEX.has(token))) {
      const found = finish();
      if (found) return found;
      words = [];
    }
  }
  return finish();
}
