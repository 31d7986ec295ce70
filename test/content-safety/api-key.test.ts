import { describe, expect, it } from 'vitest';
import { findApiKey } from '../../src/content-safety/dlp/api-key.ts';

const x = (count: number): string => 'aB3'.repeat(count).slice(0, count);

describe('findApiKey', () => {
  it.each([
    `AKIA${'A1'.repeat(8)}`,
    `ghp_${x(36)}`,
    `AIza${x(35)}`,
    `xoxb-${x(20)}`,
    `sk_live_${x(24)}`,
    `123456789:${x(35)}`,
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln',
  ])('finds %s', (key) => {
    expect(findApiKey(`here: ${key}.`)?.secret).toBe(key);
  });

  it.each([
    ['an AWS id one character short', `AKIA${'A1'.repeat(7)}A`],
    ['an AWS id inside a longer word', `XAKIA${'A1'.repeat(8)}`],
    ['a GitHub prefix with a short tail', `ghp_${x(20)}`],
    ['a Stripe test key', `sk_test_${x(24)}`],
    ['a time and a short tail', '10:30:abcdef'],
    ['a Telegram-like token with a short id', `1234:${x(35)}`],
    ['one base64 JSON segment', 'eyJhbGciOiJIUzI1NiJ9'],
  ])('ignores %s', (_name, text) => {
    expect(findApiKey(text)).toBeNull();
  });
});
