import { describe, expect, it } from 'vitest';
import { KEY_BYTES, newDataKey, open, seal } from '../../src/lib/sealed-box.ts';

const IV_BYTES = 12;
const ivOf = (box: Buffer) => box.subarray(0, IV_BYTES).toString('hex');

describe('sealed boxes', () => {
  it('open with their key and associated data, and with nothing else', () => {
    const key = newDataKey();
    const box = seal(key, Buffer.from('a comment'), 'event-1/text');
    expect(open(key, box, 'event-1/text').toString()).toBe('a comment');
    expect(() => open(key, box, 'event-2/text')).toThrow();
    expect(() => open(newDataKey(), box, 'event-1/text')).toThrow();
    const altered = Buffer.from(box);
    altered[IV_BYTES] = (altered[IV_BYTES] ?? 0) ^ 1;
    expect(() => open(key, altered, 'event-1/text')).toThrow();
  });

  it('never repeat an iv or a key, across many refills of the random pool', () => {
    const key = newDataKey();
    // 4,096-byte pool: 12 bytes an iv, 32 a key; this runs through it about 200 times.
    const ivs = new Set<string>();
    const keys = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      ivs.add(ivOf(seal(key, Buffer.from('x'), 'a')));
      if (i % 10 === 0) keys.add(newDataKey().toString('hex'));
    }
    expect(ivs.size).toBe(20_000);
    expect(keys.size).toBe(2_000);
    // Not zeroes (the pool zeroes what it hands out, so a slip would show as a repeated run of them).
    expect(ivs.has('0'.repeat(IV_BYTES * 2))).toBe(false);
  });

  it('give each key memory of its own, not a view of the pool', () => {
    const key = newDataKey();
    expect(key.length).toBe(KEY_BYTES);
    expect(key.buffer.byteLength).toBe(KEY_BYTES);
    const copy = Buffer.from(key);
    newDataKey();
    seal(key, Buffer.from('x'), 'a');
    expect(key.equals(copy)).toBe(true);
  });
});
