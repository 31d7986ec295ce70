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

  it.each([
    ['AWS id in fours', 'AKIA IOSF ODNN 7EXA MPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS id split once', 'AKIAIOSFODNN 7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS id over lines', 'AKIA\nIOSF\nODNN\n7EXA\nMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['GitHub token', `ghp_ ${'aB3d'.repeat(9).replace(/(.{6})/g, '$1 ')}`, `ghp_${'aB3d'.repeat(9)}`],
    ['Stripe key', `sk_live_ ${'aB3d '.repeat(6)}`, `sk_live_${'aB3d'.repeat(6)}`],
  ])('finds a split %s, hashed as the key joined', (_name, text, key) => {
    expect(findApiKey(`key: ${text}`)?.secret).toBe(key);
  });

  it.each([
    ['a prefix and prose', 'ghp_ tokens expire after 90 days, unless renewed by Admins Today'],
    ['a prefix and shouting', 'AKIA KEYS ARE NOT SECRET BY THEMSELVES'],
    ['shouting that sums to the length mid-word', 'ASIA TOUR 2025 DATES ANNOUNCED SOON'],
    ['pieces too short for a key', `ghp_ ${'aB3 '.repeat(12)}`],
  ])('ignores %s', (_name, text) => {
    expect(findApiKey(text)).toBeNull();
  });

  it.each([
    ['the older OpenAI keys', `sk-${x(20)}T3BlbkFJ${x(20)}`],
    ['OpenAI project keys', `sk-proj-${x(74)}T3BlbkFJ${x(74)}`],
    ['Anthropic keys', `sk-ant-api03-${x(93)}AA`],
    ['GitLab tokens', `glpat-${x(20)}`],
    ['npm tokens', `npm_${x(36)}`],
    ['Hugging Face tokens', `hf_${'aBc'.repeat(12).slice(0, 34)}`],
    ['DigitalOcean tokens', `dop_v1_${'a1'.repeat(32)}`],
    ['Slack app tokens', `xapp-1-A0123456789-1234567890123-${'a1'.repeat(32)}`],
    ['SendGrid keys', `SG.${x(22)}.${x(43)}`],
    ['Stripe keys of today', `sk_live_51${x(97)}`],
  ])('finds %s', (_name, key) => {
    expect(findApiKey(`here: ${key}.`)?.secret).toBe(key);
  });

  it('ignores an older OpenAI key shape without its marker', () => {
    expect(findApiKey(`sk-${x(48)}`)).toBeNull();
  });

  describe('AWS secret access keys', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

    it.each([
      ['after its label', `aws_secret_access_key = ${secret}`],
      ['after a spelled-out label, split', `aws secret: ${secret.replace(/(.{5})/g, '$1 ')}`],
      ['whole, with AWS words near', `our aws creds leaked: ${secret}`],
    ])('finds one %s', (_name, text) => {
      expect(findApiKey(text)?.secret).toBe(secret);
    });

    it('covers an access key id and the secret after it, split or whole, as one finding', () => {
      for (const written of [secret, secret.replace(/(.{8})/g, '$1 ').trim()]) {
        const text = `AKIAIOSFODNN7EXAMPLE / ${written} thanks`;
        const found = findApiKey(text);
        expect(found?.secret).toBe(`AKIAIOSFODNN7EXAMPLE:${secret}`);
        expect(found && text.slice(found.start, found.end)).toBe(`AKIAIOSFODNN7EXAMPLE / ${written}`);
      }
    });

    it.each([
      ['a git commit near "secret"', 'commit 4c0883a69102937d6231471b5dbb6204fe512961 rotates the secret'],
      ['prose after the label', 'my AWS secret key is in the Console since 2 days ago and I need help'],
      ['40 characters without secret words', `token ${secret}`],
    ])('ignores %s', (_name, text) => {
      expect(findApiKey(text)).toBeNull();
    });
  });
});
