import { describe, expect, it } from 'vitest';
import { findCardNumber, luhnValid } from '../../src/content-safety/dlp/card-number.ts';
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

  it('lets card words outweigh an order number', () => {
    expect(findCardNumber('order paid by card 4000 0566 5566 5556')?.secret).toBe('4000056655665556');
  });
});
