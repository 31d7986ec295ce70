import { describe, expect, it } from 'vitest';
import { safeMessage } from '../../src/lib/error-text.ts';

const quoting = 'invalid input syntax for type uuid: "secret-looking-value"';

describe('safeMessage', () => {
  it('redacts what a data exception quotes, found by its code, its cause or slonik’s wrapper', () => {
    const withCode = Object.assign(new Error(quoting), { code: '22P02' });
    const wrapped = new Error(quoting, { cause: Object.assign(new Error(quoting), { code: '22P02' }) });
    const slonik = Object.assign(new Error(quoting), { name: 'InvalidInputError' });
    for (const error of [withCode, wrapped, slonik]) {
      expect(safeMessage(error)).toBe('invalid input syntax for type uuid: "[redacted]"');
    }
  });

  it('keeps the names other errors quote', () => {
    const error = Object.assign(new Error('relation "comments" does not exist'), { code: '42P01' });
    expect(safeMessage(error)).toBe('relation "comments" does not exist');
  });
});
