import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { examplesOf, type Positive } from './helpers.ts';

/** The BIP39 test vectors' phrases: valid checksums. */
export const VALID_12 = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const words = VALID_12.split(' ');
const phrase = (bytes: number, fill: number): string =>
  entropyToMnemonic(new Uint8Array(bytes).fill(fill), wordlist);

/** Two words swapped: every word is valid, the checksum is not. */
export const MISTYPED = ['winner', 'legal', ...words.slice(2)].join(' ');

const seed = examplesOf('seed_phrase');
const spaced = (separator: string): string => words.join(separator);
const numbered = (format: (word: string, i: number) => string, separator = ' '): string =>
  words.map(format).join(separator);
const insideEachWord = (mark: string): string =>
  words.map((word) => `${word.slice(0, 2)}${mark}${word.slice(2)}`).join(' ');

export const SEED_PHRASES: readonly Positive[] = [
  seed('my seed phrase is ', VALID_12, ', what now?'),
  seed(
    '',
    numbered((word, i) => `${i + 1}. ${word}`),
  ),
  seed(
    'words:\n',
    numbered((word, i) => `${i + 1}) ${word}`, '\n'),
  ),
  seed(
    '',
    numbered((word, i) => `${i + 1}.${word}`),
  ),
  seed(
    '',
    numbered((word, i) => `#${i + 1} ${word}`),
  ),
  seed('', spaced(', ')),
  seed('', spaced('\n')),
  seed('', spaced(' - ')),
  seed('', spaced(' | ')),
  seed('prefixes: ', words.map((word) => word.slice(0, 4)).join(' ')),
  seed('mistyped: ', MISTYPED, ' is that right?'),
  seed('', words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ')),
  seed('', VALID_12.toUpperCase()),
  seed(
    'fullwidth ',
    'ｌｅｇａｌ ｗｉｎｎｅｒ ｔｈａｎｋ ｙｅａｒ ｗａｖｅ ｓａｕｓａｇｅ ｗｏｒｔｈ ｕｓｅｆｕｌ ｌｅｇａｌ ｗｉｎｎｅｒ ｔｈａｎｋ ｙｅｌｌｏｗ',
  ),
  seed('', insideEachWord('\u200B')),
  seed('', insideEachWord('\u00AD')),
  seed('вот моя фраза: ', phrase(32, 0x80), ' помогите восстановить кошелек'),
  seed('', phrase(24, 0x7f)),
  seed('', phrase(20, 0x01)),
  seed('', phrase(16, 0x00)),
  seed('old wallet\n', phrase(16, 0xff), '\nthanks'),
  seed('mixed: ', words.map((word, i) => (i % 2 === 0 ? word.slice(0, 4) : word)).join(', ')),
];
