import type { EvasionClass } from './evasions.ts';
import { digits, examplesOf, pick, random, withLuhnDigit } from './helpers.ts';

const card = examplesOf('card_number');
const grouped = (number: string, separator: string): string =>
  number.match(/.{1,4}/g)?.join(separator) ?? number;
const next = random(4111);
const two = (max: number): string => String(1 + Math.floor(next() * max)).padStart(2, '0');

// Real card numbers written with every separator people use to get past a "digits and spaces" filter.
const positives = [
  card('', '4111.1111.1111.1111'),
  card('pay to ', '4111/1111/1111/1111', ' thanks'),
  card('', '4111 - 1111 - 1111 - 1111'),
  card('', '4111_1111_1111_1111'),
  card('', '5555 5555-5555.4444', ' (mixed on purpose)'),
  card('amex ', '3782.822463.10005'),
  card('', '4242\n4242\n4242\n4242'),
  card('', '6011 / 1111 / 1111 / 1117'),
  card('Мир ', grouped(withLuhnDigit('220070000000001'), ' – ')),
  card('', '4000·0566·5566·5556'),
  card('send to ', '5105.1051.0510.5100', ' pls'),
  card('card no ', '4 1 1 1 - 1 1 1 1 - 1 1 1 1 - 1 1 1 1'),
  card('', '4111\\1111\\1111\\1111'),
  card('', '4111 | 1111 | 1111 | 1111'),
  card('fullwidth dots ', '４１１１．１１１１．１１１１．１１１１'),
  card('', '4111/1111/1111/1111', ' 12/26'),
  card('', grouped(withLuhnDigit('622126000000000000'), '.')),
  card('', '3056-930902.5904'),
  card('номер ', grouped(withLuhnDigit('220220000000000'), '  ')),
  card('', '4111 . 1111 . 1111 . 1111'),
];

// Numbers with dots, slashes and dashes that ordinary comments are full of.
const negatives = [
  'Versions 1.2.3, v10.4.1 and 2.0.0-beta.1 are out.',
  'Prices: 1,299.99 then 2,499.00 and finally 12,999.99.',
  'Meeting at 12:30, then 14:45 and 16:00.',
  'Dates: 12.05.2024 - 13.06.2024 / 2024-05-12.',
  'Timestamps 2024-05-12T10:30:00.123Z and 1717171717.123456 in the log.',
  'Build 2024.05.12.1030 was released to beta.',
  'The ranges 1000-2000-3000-4000 are reserved in the spec.',
  'Season 2024/2025/2026/2027 tickets are sold out.',
  'Call 555.123.4567 or 555-987-6543 after 6.',
  'Open from 09.30 to 18.00, 5 days a week.',
  'Amounts: 4500.00 / 3200.50 / 1250.75 / 9999.99.',
  'Logged 2024-05-12 10:30:00.123456 by the worker.',
  'Order #4111-1111-1111-1111 has shipped.',
  'Заказ № 5555.5555.5555.4444 отправлен.',
  'Счёт 4081.7810.0999.9123.4567 закрыт.',
  'Release 10.4.1.2024 replaced 10.4.0.2023.',
  'Room 12/3, floor 4/5, building 6.',
  'Coordinates 55.7558, 37.6173 and 59.9343, 30.3351.',
  'Score 1-0, 2-1, 3-3 and 4-2 this season.',
  'Temperature 36.6 / 37.2 / 38.1 / 36.9 over four days.',
  'IBAN DE89 3704 0044 0532 0130 00',
  'ISBN 978-3-16-148410-0',
  'IMEI 356938035643809, IMEI: 35-209900-176148-1',
  'ICCID 8970101234567890123',
  'tel. 8.800.555.35.35',
  'card 2024 2025 2026 2027?',
  'visa 12.12.2024 - 12.01.2025 valid',
  'Время 12:30:45.123456789',
];

const generated = Array.from({ length: 40 }, (_, i) => {
  const year = String(2000 + Math.floor(next() * 30));
  return pick(next, [
    () =>
      `v${two(20)}.${two(30)}.${two(40)} and v${two(20)}.${two(30)}.${two(40)} on ${two(28)}.${two(12)}.${year}`,
    () => `${two(28)}/${two(12)}/${year} ${two(23)}:${two(59)}:${two(59)}.${digits(next, 3)}`,
    () =>
      `${year}-${two(12)}-${two(28)} ${two(23)}.${two(59)} – ${year}-${two(12)}-${two(28)} ${two(23)}.${two(59)}`,
    () =>
      `Total ${digits(next, 1)},${digits(next, 3)}.${digits(next, 2)} / ${digits(next, 3)}.${digits(next, 2)} / ${digits(next, 2)}.${digits(next, 2)}`,
    () => `Order ${digits(next, 4)}-${digits(next, 4)}-${digits(next, 4)}-${digits(next, 4)} is on its way`,
    () => `build ${year}.${two(12)}.${two(28)}.${digits(next, 4)} (${i})`,
    () =>
      `tracking ${digits(next, 4)} ${digits(next, 4)} ${digits(next, 4)} ${digits(next, 4)} ${digits(next, 2)}`,
  ])();
});

export const CARD_SEPARATORS: EvasionClass = {
  name: 'card: any separator',
  positives,
  negatives: [...negatives, ...generated],
};
