import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyedHash, redactedSnippet } from '../../src/content-safety/redact.ts';

describe('redactedSnippet', () => {
  it('masks the hit and keeps the words around it', () => {
    const text = 'my password: hunter22 ok';
    expect(redactedSnippet(text, { start: 13, end: 21, secret: 'hunter22' })).toBe(
      'my password: •••••••• ok',
    );
  });

  it('keeps about 40 characters around a long text, marking the cuts', () => {
    const text = `${'a '.repeat(100)}SECRET${' b'.repeat(100)}`;
    const snippet = redactedSnippet(text, { start: 200, end: 206, secret: 'SECRET' });
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(Array.from(snippet)).toHaveLength(42);
    expect(snippet).toContain('••••••');
  });

  it('masks digits and long runs near the hit too', () => {
    const text = 'card 4111111111111111 cvv 123 token abcdefghijklmnop';
    const snippet = redactedSnippet(text, { start: 5, end: 21, secret: '4111111111111111' });
    expect(snippet).toBe('card •••••••••••••••• cvv ••• token ••••…');
  });

  it('puts the text on one line and never cuts a character in half', () => {
    const text = `${'😀'.repeat(20)}\nkey: SECRET\n${'😀'.repeat(20)}`;
    const snippet = redactedSnippet(text, { start: 46, end: 52, secret: 'SECRET' });
    expect(snippet).not.toMatch(/\n/);
    expect(snippet.isWellFormed()).toBe(true);
    expect(snippet).toContain('key: ••••••');
  });
});

describe('keyedHash', () => {
  it('is HMAC-SHA256 in hex (RFC 4231, test case 2)', () => {
    expect(keyedHash('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    expect(keyedHash('k', 'x')).toBe(createHmac('sha256', 'k').update('x').digest('hex'));
  });
});
