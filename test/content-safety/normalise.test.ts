import { describe, expect, it } from 'vitest';
import { normalise } from '../../src/content-safety/normalise.ts';

describe('normalise', () => {
  it.each([
    ['fullwidth letters and digits', 'ｅｘａｍｐｌｅ ４１１１', 'example 4111'],
    ['zero-width space and joiners', 'pa\u200Bss\u200Cwo\u200Drd', 'password'],
    ['soft hyphen and BOM', '\uFEFFgoo\u00ADgle', 'google'],
    ['hxxp in any case', 'hxxp://a hXXps://b', 'http://a https://b'],
    ['bracketed dots', 'a[.]b c(.)d e{.}f', 'a.b c.d e.f'],
    ['dot words in brackets', 'a[dot]b c(DOT)d e{dot}f', 'a.b c.d e.f'],
    ['spaces around bracketed dots', 'example [.] com', 'example.com'],
    ['a standalone dot word', 'example dot com and EXAMPLE DOT ORG', 'example.com and EXAMPLE.ORG'],
    ['a bracketed colon', 'http[:]//x', 'http://x'],
    [
      'spaces inside brackets and angle brackets',
      'a [ . ] b c ( dot ) d e <dot> f g < . > h',
      'a.b c.d e.f g.h',
    ],
    ['a bracketed Russian dot word', 'пример (точка) рф', 'пример.рф'],
    ['an ideographic full stop between Latin letters', 'example。com', 'example.com'],
    [
      'a bracketed at',
      'ivan[at]mail.ru ivan (at) mail.ru ivan[@]mail.ru',
      'ivan@mail.ru ivan@mail.ru ivan@mail.ru',
    ],
  ])('folds %s', (_name, input, expected) => {
    expect(normalise(input)).toBe(expected);
  });

  it.each([
    ['a title-case Dot, more often a name', 'I met Dot at the park'],
    ['dot inside a word', 'dotted lines, a polka-dot dress'],
    ['a dot word across a new line', 'the last word was dot\ncom is next'],
    ['ordinary Russian and English text', 'Привет, как дела? Fine, thanks: 3.50 at 10.30.'],
    ['an ideographic full stop in Japanese', '今日は。明日も'],
    ['a bracket with no dot in it', 'see (below) and [note]'],
  ])('leaves %s alone', (_name, input) => {
    expect(normalise(input)).toBe(input);
  });
});
