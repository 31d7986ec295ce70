import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { Finding } from '../finding.ts';

const MIN_WORDS = 12;
const WORDS = new Set(wordlist);
// BIP39 words are unique in their first four letters, which is why wallets accept the prefix alone.
const BY_PREFIX = new Map(wordlist.map((word) => [word.slice(0, 4), word]));

// Letters, digits and any single other character; white space (new lines too) only separates.
const TOKEN = /(\p{L}+)|(\p{N}+)|\S/gu;
// Characters people put between the words of a list; any other character between two words is an
// "odd" separator (see `Gap`).
const LIST_SEPARATORS = new Set([',', ';', '|', '/', '-', '(', ')', '[', ']', '#', '*', '•', '"', "'"]);
// "1." "2)" "3:" numbering; a number longer than two digits is not a word index and ends the run.
const AFTER_INDEX = new Set(['.', ')', ':']);
const MAX_INDEX_DIGITS = 2;
// Words glued by their capitals: `legalWinnerThank`, `LegalWinnerThank`.
const CAMEL_PART = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})/gu;
const CASE_CHANGE = /\p{Ll}\p{Lu}/u;
// Valid phrase lengths, longest first, for finding the phrase inside a longer run.
const PHRASE_LENGTHS = [24, 21, 18, 15, 12];

/**
 * What stood between a word and the one before it. `list`: white space, list punctuation, an index
 * (what the rule has always allowed). `odd`: anything else that is no word (`.`, `!`, `_`, `=`, an
 * emoji) or a change of case inside a glued word.
 */
type Gap = 'list' | 'odd';

interface Word {
  readonly word: string;
  readonly start: number;
  readonly end: number;
  /** The gap before this word; the first word of a run has none that counts. */
  readonly gap: Gap;
}

function seedWord(token: string): string | undefined {
  const lower = token.toLowerCase();
  if (WORDS.has(lower)) return lower;
  return lower.length === 4 ? BY_PREFIX.get(lower) : undefined;
}

/** The seed words a glued camel-case token is made of, or null when any part is not one. */
function camelWords(token: string): string[] | null {
  // Most words that are not list words are in one case or capitalised: no regex for them.
  if (token.length < 6 || token.slice(1) === token.slice(1).toLowerCase() || !CASE_CHANGE.test(token)) {
    return null;
  }
  const parts = token.match(CAMEL_PART) ?? [];
  if (parts.length < 2 || parts.join('').length !== token.length) return null;
  const words = parts.map(seedWord);
  return words.every((word) => word !== undefined) ? words : null;
}

/**
 * The checksum never decides: a mistyped phrase leaks as much as a valid one. It only says which
 * words of a longer run are the phrase, so the hash is the same whatever words surround it. Only
 * windows at either end of the run are tried (a stray word or two before or after the phrase): each
 * check costs about 0.1 ms.
 */
function phraseOf(words: readonly string[]): string {
  // A run that repeats itself ("legal legal legal …") gives the same window many times over.
  const tried = new Set<string>();
  for (const length of PHRASE_LENGTHS) {
    const last = words.length - length;
    for (const from of new Set([0, 1, last - 1, last])) {
      if (from < 0 || from > last) continue;
      const candidate = words.slice(from, from + length).join(' ');
      if (tried.has(candidate)) continue;
      tried.add(candidate);
      if (validateMnemonic(candidate, wordlist)) return candidate;
    }
  }
  return words.join(' ');
}

const findingOf = (run: readonly Word[]): Finding | null => {
  const first = run[0];
  const last = run.at(-1);
  if (!first || !last || run.length < MIN_WORDS) return null;
  return { start: first.start, end: last.end, secret: phraseOf(run.map(({ word }) => word)) };
};

/**
 * A run of words with odd gaps is a phrase when odd gaps are at least half of its gaps: whoever
 * splits a phrase with dots, emoji or capitals does it between (nearly) every word, while chat that
 * happens to hold list words has spaces between most of them and a full stop or an emoji now and
 * then. Otherwise the run is cut at its odd gaps, and each piece must be a phrase on its own, as
 * before these separators were allowed.
 */
function phraseIn(run: readonly Word[]): Finding | null {
  if (run.length < MIN_WORDS) return null;
  const oddGaps = run.slice(1).filter(({ gap }) => gap === 'odd').length;
  if (oddGaps === 0 || oddGaps * 2 >= run.length - 1) return findingOf(run);
  let piece: Word[] = [];
  for (const word of run) {
    if (word.gap === 'odd') {
      const found = findingOf(piece);
      if (found) return found;
      piece = [];
    }
    piece.push(word);
  }
  return findingOf(piece);
}

/** A run of twelve or more BIP39 words (or their four-letter prefixes), however separated. */
export function findSeedPhrase(text: string): Finding | null {
  let run: Word[] = [];
  let gap: Gap = 'list';
  let afterIndex = false;

  for (const match of text.matchAll(TOKEN)) {
    const [token, letters, digits] = match;
    const wasAfterIndex = afterIndex;
    afterIndex = false;
    const word = letters === undefined ? undefined : seedWord(letters);
    const glued = letters !== undefined && word === undefined ? camelWords(letters) : null;
    if (word !== undefined || glued) {
      const start = match.index;
      const end = start + token.length;
      if (word !== undefined) run.push({ word, start, end, gap });
      else glued?.forEach((part, i) => run.push({ word: part, start, end, gap: i === 0 ? gap : 'odd' }));
      gap = 'list';
    } else if (digits !== undefined && digits.length <= MAX_INDEX_DIGITS) {
      afterIndex = true;
    } else if (letters !== undefined || digits !== undefined) {
      // Another word, or a number too long to be an index: the run ends.
      const found = phraseIn(run);
      if (found) return found;
      run = [];
      gap = 'list';
    } else if (!LIST_SEPARATORS.has(token) && !(wasAfterIndex && AFTER_INDEX.has(token))) {
      // A list separator leaves the gap as it is: `legal, winner` is a list, `legal!, winner` odd.
      gap = 'odd';
    }
  }
  return phraseIn(run);
}
