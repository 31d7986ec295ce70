import { describe, expect, it } from 'vitest';
import { findLink } from '../../src/content-safety/links.ts';
import { latinReading } from '../../src/content-safety/lookalike.ts';

describe('findLink', () => {
  it.each([
    ['a new gTLD', 'visit crypto.xyz today', 'crypto.xyz'],
    ['an email', 'write to a.b@example.org', 'a.b@example.org'],
    ['a scheme with no space after it', 'tg:resolve?domain=x', 'tg:resolve?domain=x'],
    ['a scheme followed by //', 'https: //example', 'https: //example'],
    ['a protocol-relative host', 'see //cdn.example/x', '//cdn.example/x'],
    ['localhost after //', 'open //localhost:8080', '//localhost:8080'],
    ['t.me', 'join t.me/joinchat', 't.me/joinchat'],
    ['telegram.dog', 'or telegram.dog/x', 'telegram.dog/x'],
    ['a bare IPv4 address', 'at 10.0.0.1.', '10.0.0.1'],
    ['a punycode host', 'at xn--e1afmkfd.xn--p1ai now', 'xn--e1afmkfd.xn--p1ai'],
    [
      'Cyrillic look-alikes',
      'at \u0441\u043e\u0441\u043e.\u0441\u043em now',
      '\u0441\u043e\u0441\u043e.\u0441\u043em',
    ],
    ['Greek look-alikes', 'at \u03bf\u03ba.com', '\u03bf\u03ba.com'],
    ['a one-letter Latin host', 'on x.com', 'x.com'],
    ['a Cyrillic domain', 'на сайте пример.рф', 'пример.рф'],
  ])('finds %s', (_name, text, link) => {
    const found = findLink(text);
    expect(found?.secret).toBe(link);
    expect(found && text.slice(found.start, found.end)).toBe(link);
  });

  it.each([
    'node.js',
    'file.txt and config.json',
    'v1.2.3 and 2.0.0-beta.1',
    'e.g. this, i.e. that, etc.',
    'it costs 3.50, at 10.30 or 23.59',
    'dates 12.05.2024 and 2024.05.12',
    'a version 1.2.3.4.5 is not an address',
    'г.Москва, с.Иваново, т.е., т.к., и т.д.',
    '1.legal 2.winner 3.thank',
    'Tel: +44 20 7946 0958, data: 5 rows, file: report.pdf',
    'Mr.Smith, U.S.A., a.m., p.m., Ph.D.',
    '10:30 and 14:00:59',
    'code // comment and a/b//c',
    'Всё хорошо, спасибо.',
  ])('leaves %j alone', (text) => {
    expect(findLink(text)).toBeNull();
  });

  it.each([
    ['spaces around the dot', 'visit example . com now', 'example . com'],
    ['a space before the dot', 'visit example .com now', 'example .com'],
    ['a space after the dot', 'visit example. com now', 'example. com'],
    ['every label spaced', 'at www . example . co . uk/x now', 'www . example . co . uk/x'],
    ['capitals on both sides', 'EXAMPLE . COM', 'EXAMPLE . COM'],
    ['a Russian dot word and TLD', 'сайт mysite точка ру', 'mysite точка ру'],
    ['a Spanish dot word', 'example punto com', 'example punto com'],
    ['a capitalised TLD no sentence starts with', 'example . Com', 'example . Com'],
  ])('finds a spaced dot: %s', (_name, text, link) => {
    const found = findLink(text);
    expect(found && text.slice(found.start, found.end)).toBe(link);
  });

  it.each([
    'That is the end.Next time, then.',
    'Hello.How are you?',
    'It failed twice.Now it works.',
    'Mr. Smith. Who else?',
    'I use .NET 8 and ASP .NET Core',
    'ok. now what',
    'the .com era, the end . Next',
    'if cmd has a . in it',
    'price 5 . 50',
  ])('leaves %j alone', (text) => {
    expect(findLink(text)).toBeNull();
  });

  it('still reads a capitalised TLD no sentence starts with as a link', () => {
    expect(findLink('see example.Com')?.secret).toBe('example.Com');
  });

  it('returns the earliest link when several rules match', () => {
    expect(findLink('first 1.2.3.4 then https://example.com')?.secret).toBe('1.2.3.4');
  });
});

describe('latinReading', () => {
  it('reads a word written in Latin look-alikes as Latin', () => {
    expect(latinReading('\u0440\u0430\u0443\u0440\u0430l.\u0441\u043em')).toBe('paypal.com');
    expect(latinReading('\u03ba\u03bf\u03bd\u03b1')).toBe('kova');
  });

  it('has none for plain Latin or for a word with letters that look like no Latin one', () => {
    expect(latinReading('paypal.com')).toBeNull();
    expect(latinReading('привет.com')).toBeNull();
  });
});
