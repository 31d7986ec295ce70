import { describe, expect, it } from 'vitest';
import { checkComment } from '../../src/content-safety/index.ts';
import { random } from './corpus/helpers.ts';

const options = { hashKey: 'test' };

describe('checkComment', () => {
  it('lets ordinary text through', () => {
    expect(checkComment('Спасибо, всё работает! Thanks, see you at 10.30.', options)).toBeNull();
    expect(checkComment('', options)).toBeNull();
  });

  it('reports links before any DLP kind, then the DLP kinds in the order of the rules', () => {
    const card = '4111 1111 1111 1111';
    expect(checkComment(`password: hunter22 ${card} example.com`, options)?.kind).toBe('link');
    expect(checkComment(`password: hunter22 ${card}`, options)?.kind).toBe('card_number');
    expect(checkComment(`password: hunter22 AKIA${'A1'.repeat(8)}`, options)?.kind).toBe('api_key');
  });

  it('gives the same hash to a secret however it is written, and keys it', () => {
    const spaced = checkComment('card 4111 1111 1111 1111', options);
    const dashed = checkComment('карта ４１１１-１１１１-１１１１-１１１１', options);
    expect(dashed?.hash).toBe(spaced?.hash);
    expect(checkComment('card 4111 1111 1111 1111', { hashKey: '' })?.hash).not.toBe(spaced?.hash);
  });

  it('never throws, whatever the input', () => {
    const next = random(7);
    const alphabet = [
      ' ',
      '\n',
      '.',
      ':',
      '@',
      '/',
      '-',
      'a',
      'Z',
      '5',
      'ж',
      '\u200B',
      '\uD800',
      '\uDC00',
      '😀',
      '４',
    ];
    const inputs = [
      'x'.repeat(100_000),
      '1 '.repeat(50_000),
      'abandon '.repeat(10_000),
      '-----BEGIN PRIVATE KEY-----'.repeat(1_000),
      ...Array.from({ length: 200 }, () =>
        Array.from({ length: 200 }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
      ),
    ];
    for (const input of inputs) expect(() => checkComment(input, options)).not.toThrow();
  });
});
