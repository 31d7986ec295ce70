import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../src/lib/printable.ts';

describe('printable', () => {
  it('shows controls and bidi characters as their code points', () => {
    // A screen clear, a title change (OSC … BEL), and a right-to-left override that turns `exe.txt` around.
    expect(printable('a\u001b[2Jb')).toBe('a\\u{1b}[2Jb');
    expect(printable('\u001b]0;owned\u0007')).toBe('\\u{1b}]0;owned\\u{7}');
    expect(printable('invoice\u202Etxt.exe')).toBe('invoice\\u{202e}txt.exe');
    // Every bidi embedding, override, isolate and mark.
    for (const char of ['\u200E', '\u200F', '\u061C', '\u202A', '\u202B', '\u202C', '\u202D']) {
      expect(printable(char)).toMatch(/^\\u\{[0-9a-f]+\}$/);
    }
    for (const char of ['\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(printable(char)).toBe(`\\u{${char.codePointAt(0)?.toString(16) ?? ''}}`);
    }
  });

  it('escapes C0, DEL, C1, line breaks, zero-width and lone surrogates', () => {
    expect(printable('\u0000\t\n\r')).toBe('\\u{0}\\u{9}\\u{a}\\u{d}');
    expect(printable('\u007f\u0085\u009b')).toBe('\\u{7f}\\u{85}\\u{9b}');
    expect(printable('a\u2028b\u2029c')).toBe('a\\u{2028}b\\u{2029}c');
    expect(printable('zero\u200Bwidth\uFEFF')).toBe('zero\\u{200b}width\\u{feff}');
    expect(printable('tag\u{E0041}')).toBe('tag\\u{e0041}');
    expect(printable('lone\uD800')).toBe('lone\\u{d800}');
  });

  it('leaves ordinary text of any script alone', () => {
    const text = 'Zoë Ölund – 山田 · محمد · 👍 ops+1@example.com "quoted" \\back';
    expect(printable(text)).toBe(text);
  });

  it('keeps line breaks in a message of several lines', () => {
    expect(printableLines('usage:\n  admins list\u001b[31m\r')).toBe(
      'usage:\n  admins list\\u{1b}[31m\\u{d}',
    );
    // Escaping twice changes nothing more.
    const once = printable('x\u202Ey');
    expect(printable(once)).toBe(once);
  });
});
