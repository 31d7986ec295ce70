import { examplesOf, withLuhnDigit, type Positive } from './helpers.ts';

const card = examplesOf('card_number');
const grouped = (digits: string, separator = ' '): string =>
  digits.match(/.{1,4}/g)?.join(separator) ?? digits;

export const CARDS: readonly Positive[] = [
  card('my card ', '4111 1111 1111 1111', ' exp 12/26'),
  card('', '4242424242424242'),
  card('mastercard: ', '5555-5555-5555-4444'),
  card('', '2223 0031 2200 3222'),
  card('amex ', '3782 822463 10005'),
  card('', '371449635398431'),
  card('discover ', '6011 1111 1111 1117'),
  card('JCB ', '3530111333300000'),
  card('diners ', '3056 930902 5904'),
  card('unionpay ', '6200000000000005'),
  card('Мир: ', grouped(withLuhnDigit('220070000000000'))),
  card('19 digits ', withLuhnDigit('622126000000000000')),
  card('maestro ', grouped(withLuhnDigit('67596498264'))),
  card('old visa ', '4222222222222'),
  card('fullwidth ', '４１１１ １１１１ １１１１ １１１１'),
  card('zero width ', '4111\u200B1111\u200B1111\u200B1111'),
  card('переведите на карту ', grouped(withLuhnDigit('427638001234567'))),
  // Reads like a millisecond timestamp, but card words are near.
  card('номер карты ', withLuhnDigit('170000000000')),
  card('', '5105105105105100', ' 12/26 123'),
  card('', '3782-822463-10005'),
  card('Order paid with card ', '4000 0566 5566 5556'),
  card('реквизиты ', grouped(withLuhnDigit('220220000000000'), '-'), ' на имя Иван'),
];
