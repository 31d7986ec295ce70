import { describe, expect, it } from 'vitest';
import { findCardNumber, issuedLength, luhnValid } from '../../src/content-safety/dlp/card-number.ts';
import { withLuhnDigit } from './corpus/helpers.ts';

describe('luhnValid', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['79927398713', true],
    ['79927398710', false],
  ])('%s is %s', (digits, valid) => {
    expect(luhnValid(digits)).toBe(valid);
  });
});

describe('findCardNumber', () => {
  it('finds the digits of a card however they are grouped, and hashes the digits alone', () => {
    for (const text of ['4111 1111 1111 1111', '4111-1111-1111-1111', '4111111111111111']) {
      const found = findCardNumber(`pay ${text} now`);
      expect(found?.secret).toBe('4111111111111111');
      expect(found && `pay ${text} now`.slice(found.start, found.end)).toBe(text);
    }
  });

  it('ignores numbers that fail the Luhn check', () => {
    expect(findCardNumber('card 4111 1111 1111 1112')).toBeNull();
  });

  it('takes a millisecond timestamp for one, unless card words are near', () => {
    const stamp = withLuhnDigit('171717171717');
    expect(findCardNumber(`logged at ${stamp}`)).toBeNull();
    expect(findCardNumber(`card number ${stamp}`)?.secret).toBe(stamp);
  });

  it('finds a card stuck to its expiry date', () => {
    expect(findCardNumber('4111111111111111 12/26 cvv 123')?.secret).toBe('4111111111111111');
  });

  it.each([
    ['an international phone number', `+${withLuhnDigit('44207946095')}`],
    ['an order number', `order #${withLuhnDigit('412345678901')}`],
    ['a number right after "No."', `No. ${withLuhnDigit('412345678901')}`],
    ['a tracking number', `трек ${withLuhnDigit('4123456789012')}`],
    ['digits that do not start like a card', withLuhnDigit('912345678901234')],
    ['groups no card is printed in', withLuhnDigit('41234567890').replace(/(\d{2})(?=\d)/g, '$1 ')],
    ['digits inside a hex string', `ab${withLuhnDigit('411111111111111')}cd`],
    ['digits after a decimal point', `0.${withLuhnDigit('411111111111111')}`],
    ['digits glued to an identifier', `INV-${withLuhnDigit('411111111111111')}`],
    ['more than 19 digits', '41111111111111111111111'],
  ])('ignores %s', (_name, text) => {
    expect(findCardNumber(text)).toBeNull();
  });

  it.each([
    '4111.1111.1111.1111',
    '4111/1111/1111/1111',
    '4111 - 1111 - 1111 - 1111',
    '4111_1111_1111_1111',
    '4111\\1111\\1111\\1111',
    '4111 | 1111 | 1111 | 1111',
    '4111·1111·1111·1111',
    '4111 – 1111 — 1111 ‑ 1111',
    '4111\n1111\n1111\n1111',
    '4111   1111   1111   1111',
    '4111 1111-1111.1111',
  ])('finds a card written %j, with the same digits', (written) => {
    const found = findCardNumber(`pay ${written} now`);
    expect(found?.secret).toBe('4111111111111111');
    expect(found && `pay ${written} now`.slice(found.start, found.end)).toBe(written);
  });

  it('does not start or end a card at a decimal point', () => {
    expect(findCardNumber(`0.${withLuhnDigit('411111111111111')}`)).toBeNull();
    expect(findCardNumber(`${withLuhnDigit('411111111111111')}.50`)).toBeNull();
    expect(findCardNumber('4111.1111.1111.1111.')?.secret).toBe('4111111111111111');
  });

  it.each([
    ['a Visa of 13, 16 or 19 digits', '4222222222222', true],
    ['a Visa of 18 digits', withLuhnDigit('41111111111111111'), false],
    ['an Amex of 15 digits', '378282246310005', true],
    ['an Amex of 16 digits', withLuhnDigit('378282246310005'), false],
    ['a Mastercard of 16 digits', '5555555555554444', true],
    ['a Mir card of 16 digits', withLuhnDigit('220070000000000'), true],
    ['a year where no card starts', withLuhnDigit('202405121030000'), false],
    ['a number starting with 0', withLuhnDigit('041111111111111'), false],
    ['a range of smaller schemes', withLuhnDigit('900000000000000'), undefined],
  ])('knows %s (%s)', (_name, digits, issued) => {
    expect(issuedLength(digits)).toBe(issued);
  });

  it('keeps the card, not the card and its expiry, when both pass the Luhn check', () => {
    const card = '4111111111111111';
    for (let expiry = 1; expiry <= 12; expiry++) {
      const month = String(expiry).padStart(2, '0');
      expect(findCardNumber(`card ${card} ${month}/26`)?.secret).toBe(card);
      expect(findCardNumber(`card ${card} ${month} 26`)?.secret).toBe(card);
    }
  });

  it.each([
    ['versions', 'v10.4.1 and 1.2.3.4 and 2.0.0.1234.5678'],
    ['prices', '1,299.99 / 2,499.00 / 12,999.99'],
    ['times', '12:30, 14:45:59.123'],
    ['dates', '12.05.2024 - 13.06.2024 / 2024-05-12'],
    ['a timestamp with a fraction', '1717171717.123456'],
    ['a compact timestamp', '20240512103000123'],
    ['an order number with dots', 'order 4111.1111.1111.1111'],
  ])('ignores %s', (_name, text) => {
    expect(findCardNumber(text)).toBeNull();
  });

  it('lets card words outweigh an order number', () => {
    expect(findCardNumber('order paid by card 4000 0566 5566 5556')?.secret).toBe('4000056655665556');
  });
});
