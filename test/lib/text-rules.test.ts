import { describe, expect, it } from 'vitest';
import {
  blockText,
  findTextFault,
  idText,
  isIdText,
  lineText,
  secretText,
  textFault,
} from '../../src/lib/text-rules.ts';

describe('the shared text rule', () => {
  it.each([
    ['plain text', 'Hello, world', null],
    ['emoji (a surrogate pair)', 'ok 👍🏽', null],
    ['a NUL', 'a\u0000b', 'must not contain the NUL character (U+0000)'],
    ['a lone high surrogate', 'a\ud800b', 'must not contain an unpaired UTF-16 surrogate'],
    ['a lone low surrogate at the end', 'ab\udc00', 'must not contain an unpaired UTF-16 surrogate'],
    ['pairs in the wrong order', '\udc00\ud800', 'must not contain an unpaired UTF-16 surrogate'],
  ])('given %s, answers %s', (_name, value, expected) => {
    expect(textFault(value)).toBe(expected);
  });

  it('finds the first faulty string in a parsed body, keys included, and names its path', () => {
    expect(findTextFault({ a: 'fine', b: [1, { c: 'x\u0000' }] })).toEqual({
      path: ['b', '1', 'c'],
      message: 'must not contain the NUL character (U+0000)',
    });
    expect(findTextFault({ ok: { 'bad\ud800': 1 } })).toEqual({
      path: ['ok', 'bad\ud800'],
      message: 'key must not contain an unpaired UTF-16 surrogate',
    });
    expect(findTextFault({ a: ['x', 'y'], n: 1, t: true, z: null })).toBeNull();
    expect(findTextFault('top\u0000')?.path).toEqual([]);
  });

  it('walks a deeply nested input without overflowing the stack', () => {
    let nested: unknown = 'deep\u0000';
    for (let i = 0; i < 100_000; i += 1) nested = [nested];
    expect(findTextFault(nested)?.path).toHaveLength(100_000);
  });
});

describe('the kinds of text a field takes (decision 024)', () => {
  const line = lineText({ max: 20 });
  const block = blockText({ max: 20 });
  const id = idText({ max: 20 });
  const secret = secretText({ max: 20 });
  const accepts = (schema: typeof line, value: string) => schema.safeParse(value).success;

  it('refuses NUL and lone surrogates in every kind, naming the reason', () => {
    for (const schema of [line, block, id, secret]) {
      for (const bad of ['a\u0000', 'a\ud800']) {
        const parsed = schema.safeParse(bad);
        expect(parsed.success).toBe(false);
        expect(parsed.error?.issues[0]?.message).toMatch(/NUL|surrogate/);
      }
    }
  });

  it('line text: trimmed, one line, no control characters', () => {
    expect(line.parse('  Title  ')).toBe('Title');
    expect(accepts(line, 'two\nlines')).toBe(false);
    expect(accepts(line, 'tab\there')).toBe(false);
    expect(accepts(line, 'bell\u0007')).toBe(false);
    expect(accepts(line, 'c1\u0085')).toBe(false);
    expect(accepts(line, 'Zoë 👍 ‎mark')).toBe(true);
    expect(accepts(line, '   ')).toBe(false);
  });

  it('block text: keeps tab and line breaks, refuses the other controls', () => {
    expect(block.parse(' a\r\n\tb \n')).toBe('a\r\n\tb');
    expect(accepts(block, 'esc\u001b[2J')).toBe(false);
    expect(accepts(block, 'del\u007f')).toBe(false);
    expect(blockText({ min: 0, max: 20, trim: false }).parse(' kept \n')).toBe(' kept \n');
  });

  it('id text: as given, no controls; the predicate agrees with the schema', () => {
    expect(id.parse(' user 1 ')).toBe(' user 1 ');
    for (const value of ['user-1', 'a\tb', 'a\u0000', 'a\ud800', 'ok👍']) {
      expect(isIdText(value)).toBe(accepts(id, value));
    }
  });

  it('secret text: any character but NUL and lone surrogates, nothing trimmed', () => {
    expect(secret.parse(' p\u0007ss\t ')).toBe(' p\u0007ss\t ');
  });
});
