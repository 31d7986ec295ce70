import type { EvasionClass } from './evasions.ts';
import { examplesOf } from './helpers.ts';

const link = examplesOf('link');

// Domains with the dot spelled out, spaced out or bracketed: still links.
const positives = [
  link('visit ', 'example . com', ' today'),
  link('visit ', 'example .com'),
  link('go to ', 'example. com', ' and register'),
  link('', 'getrich . xyz'),
  link('', 'example (dot) com'),
  link('site: ', 'example [ . ] com'),
  link('', 'example <dot> com'),
  link('', 'example < . > org'),
  link('', 'EXAMPLE . COM'),
  link('сайт ', 'пример . рф'),
  link('заходите на ', 'mysite точка ru'),
  link('', 'crypto-bonus . io', ' bonus inside'),
  link('', 'www . example . com'),
  link('', 'example。com'),
  link('', 'example ( . ) com'),
  link('', 'example punto com'),
  link('', 'example . Com'),
  link('join us at ', 'getrich . app'),
  link('', 'promo-site .ru', ' скидки'),
  link('', 'example . co . uk'),
  link('', 'example [dot] com'),
  link('', 'example {.} info'),
];

// Prose with a dot next to a word that happens to be a TLD.
const negatives = [
  'That is the end.Next time I will write more.',
  'I tried again.Now it works.',
  'Hello.How are you?',
  'The update is done.App crashes less now.',
  'See you soon . Bye',
  'I use .NET 8 and ASP .NET Core at work.',
  'The price is 5 . 50 dollars.',
  'Wait... what? OK. Now it is fine.',
  'Mr. Smith and Dr. Who met at 10 . 30.',
  'e.g. this and i.e. that, etc.',
  'Version 1 . 2 . 3 is the last one.',
  'This is the end .',
  'Привет. Как дела? Всё ок . Спасибо',
  'I wrote it in C . Then compiled it.',
  'Nice stream. Live again tomorrow?',
  'Thanks.See you tomorrow.',
  'Done.Online again after the update.',
  'Great.Shop is open again!',
  'It failed twice.Now it is fine.',
  'Good point. Com on, you can do it.',
  'Node .js is fast, .NET is fine too.',
  'v1.2 . 3 or v1.2 . 4?',
  'See docs . Thanks',
  'Wait for it... Now!',
  'if cmd has a . in it, it breaks',
];

export const SPACED_DOMAINS: EvasionClass = {
  name: 'link: spaced or spelled-out dot',
  positives,
  negatives,
};
