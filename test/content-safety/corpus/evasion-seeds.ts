import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { EvasionClass } from './evasions.ts';
import { examplesOf } from './helpers.ts';
import { VALID_12 } from './seed-phrases.ts';

const seed = examplesOf('seed_phrase');
const words = VALID_12.split(' ');
const joined = (separator: string): string => words.join(separator);
const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
const PUNCTUATION = ['.', '!', '?', ';', ':'];
const phrase24 = entropyToMnemonic(new Uint8Array(32).fill(0x5a), wordlist).split(' ');
const phrase15 = entropyToMnemonic(new Uint8Array(20).fill(0x33), wordlist).split(' ');

// Seed phrases whose words are split by anything but the spaces and commas a filter expects.
const positives = [
  seed('', joined('.')),
  seed('seed: ', joined('. '), ' ok?'),
  seed('', joined(' 🔥 ')),
  seed('', joined('🔥')),
  seed('', joined('!')),
  seed('', joined('_')),
  seed('', joined('\n\n')),
  seed('', words.map((word) => Array.from(word, (c, i) => (i % 2 ? c.toUpperCase() : c)).join('')).join(' ')),
  seed('camel ', words.map((word, i) => (i === 0 ? word : capitalised(word))).join('')),
  seed('', words.map(capitalised).join('')),
  seed('', joined(' ~ ')),
  seed('', joined(' + ')),
  seed('', joined(' 👨‍👩‍👧 ')),
  seed('', joined('…')),
  seed('', phrase15.join(':')),
  seed('', words.map((word, i) => `${word}${PUNCTUATION[i % PUNCTUATION.length] ?? ''}`).join(' ')),
  seed('', words.map((word) => `${capitalised(word)}.`).join(' ')),
  seed('', phrase24.join(' ✅ ')),
  seed('', joined('\r\n')),
  seed('', joined('=')),
  seed('my words ', joined(' ❤️ '), ' ❤️'),
  seed('', words.map((word, i) => (i % 3 === 0 ? word.toUpperCase() : word)).join('.')),
];

// Chat full of BIP39 words, punctuation and emoji that is not a phrase.
const negatives = [
  'Thank you all! Great work, team. Good morning everyone 🙏 Have a nice day.',
  'good morning ☀️ thank you all 🙏 great job team 🔥 love this update ❤️ keep going',
  'I think this is the best update ever. Great job. Love it!',
  'Apple, banana, orange... wait, what about lemon? Lemon is sour!',
  'Please check the order status. Thank you. Bye!',
  'Happy birthday! 🎉 Have a great year, enjoy your day 🎂 and stay awesome!',
  'useEffect, useState and useMemo hooks render the whole list again.',
  'thisIsTheBestAppEver, said the review, five stars.',
  '#love #travel #summer #beach #happy #family #friends #fun #music #art #nature #photo',
  'wow 😍 love 😍 this 😍 so 😍 much',
  'Wait. What? No way! Really? Yes. OK. Fine. Thanks. Bye.',
  'Simple, clean, fast, cheap: pick any three. Honest review, five stars!',
  'Coffee? Tea? Juice? Water? Milk? We have it all, just ask the staff.',
  'Great app!!! Love it!!! Best one ever!!! Thank you!!!',
  'Monday: gym. Tuesday: swim. Wednesday: rest. Thursday: run. Friday: party!',
  'Black friday sale: shoes, shirts, jackets, bags, watches, toys and much more!!!',
  'The MoonWalk update brings DarkMode, FastSync and SmartSearch to every user.',
  'Кошелёк открылся, фраза сработала, спасибо за помощь!',
  'Step one: open the app. Step two: tap settings. Step three: choose language. Done!',
  'red, green, blue, yellow, orange, purple: which color do you like? I like blue 💙',
  'one two three four five six seven eight nine ten eleven twelve',
  'red orange yellow green blue purple pink brown black white gray gold',
  'Please, please, please help me, I need money for food, water and a place to live',
];

export const SEED_SEPARATORS: EvasionClass = {
  name: 'seed phrase: punctuation, emoji, case',
  positives,
  negatives,
};
