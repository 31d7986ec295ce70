import { describe, expect, it } from 'vitest';
import { ACTIVE_TEXT_RULES } from '../../src/files/active-text.ts';
import { SNIFF_BYTES } from '../../src/files/inspect.ts';
import { textCheck } from '../../src/files/text-check.ts';
import { chunked, passThrough, refuse } from './upload-feed.ts';

const WINDOW = ACTIVE_TEXT_RULES.windowBytes;

/** The text check's verdict in 1-byte chunks, which must match the one-chunk verdict. */
function verdictOf(bytes: Uint8Array): string | undefined {
  const judge = (size: number) => {
    const check = textCheck();
    for (const chunk of chunked(bytes, size)) {
      const failure = check.push(chunk);
      if (failure !== undefined) return failure;
    }
    return check.end();
  };
  const byteWise = judge(1);
  expect(judge(Math.max(bytes.length, 1))).toBe(byteWise);
  return byteWise;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('plain text', () => {
  it.each([
    ['tabs, CR and LF', 'a\tb\r\nc\n'],
    ['a byte order mark at the start', '\uFEFFhello'],
    ['characters of every UTF-8 length', 'é € 🙂 日本'],
    ['a lone "<" or "#" that starts nothing', '< 3 apples\n#1 priority'],
    ['tags that do not run, past the start', 'use <b> for bold'],
  ])('accepts %s', (_, text) => {
    expect(verdictOf(utf8(text))).toBeUndefined();
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['ESC', 'a\u001b[1mb'],
    ['form feed', 'a\u000cb'],
    ['DEL', 'a\u007fb'],
    ['a C1 control (NEL)', 'a\u0085b'],
  ])('refuses %s', (_, text) => {
    expect(verdictOf(utf8(text))).toMatch(/control characters/);
  });

  it.each([
    ['a lone continuation byte', Buffer.from([0x61, 0x80])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
    ['a surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a character cut off at the end', Buffer.from([0x61, 0xe2, 0x82])],
  ])('refuses %s as invalid UTF-8', (_, bytes) => {
    expect(verdictOf(bytes)).toMatch(/not valid UTF-8/);
  });
});

describe('markup and script in text', () => {
  it.each([
    '<html>',
    '  \r\n<div>',
    '<!DOCTYPE html>',
    '</p>',
    '<?php echo 1;',
    '\uFEFF<svg/>',
    '<A HREF=x>',
  ])('refuses a text that starts like markup: %j', (text) => {
    expect(verdictOf(utf8(text))).toMatch(/starts like markup/);
  });

  it('refuses a shebang', () => {
    expect(verdictOf(utf8('#!/bin/sh\nrm -rf /\n'))).toMatch(/#! interpreter/);
  });

  it.each([...ACTIVE_TEXT_RULES.markers, ...ACTIVE_TEXT_RULES.scriptMarkers])(
    'refuses a text containing %j, in any case',
    (marker) => {
      expect(verdictOf(utf8(`Hello,\nsee ${marker.toUpperCase()} here`))).toMatch(/^not plain text/);
    },
  );

  it('judges the first 64 KiB only, whatever the chunking', () => {
    const filler = 'a'.repeat(WINDOW - 100);
    expect(verdictOf(utf8(`${filler}<script>`))).toMatch(/markup/);
    expect(verdictOf(utf8(`${'a'.repeat(WINDOW)}<script>`))).toBeUndefined();
    // A character that straddles the window's edge neither breaks the decoding nor counts as inside.
    expect(verdictOf(utf8(`${'a'.repeat(WINDOW - 1)}é<script>`))).toBeUndefined();
  });
});

describe('text through the upload stream', () => {
  const long = utf8(`Zeile für Zeile\t€ 🙂\r\n`.repeat(5000));

  it.each([1, SNIFF_BYTES - 1, SNIFF_BYTES, SNIFF_BYTES + 1, 65_536])(
    'a long text passes unchanged in chunks of %i bytes',
    async (chunkSize) => {
      const { output, detected } = await passThrough(long, chunkSize);
      expect(output.equals(long)).toBe(true);
      expect(detected).toEqual({
        mime: 'text/plain; charset=utf-8',
        ext: 'txt',
        kind: 'text',
        size: long.length,
      });
    },
  );

  it('a control character deep in a long text is refused', async () => {
    const refusal = await refuse(Buffer.concat([long, Buffer.from([0x07]), long]), 4096);
    expect(refusal).toMatchObject({ status: 415, code: 'upload_type_not_allowed' });
  });
});
