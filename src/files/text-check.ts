import { ACTIVE_TEXT_RULES, activeTextRule } from './active-text.ts';
import type { ContentCheck } from './structure/reader.ts';

/** C0 controls other than tab, LF and CR; DEL; the C1 controls U+0080–U+009F. */
// One native regex scan: a character loop in JavaScript was the upload path's hottest code.
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const hasControlCharacter = (text: string): boolean => controlCharacter.test(text);

/**
 * What an upload with no detected binary type must be to count as text: valid UTF-8 (a character may
 * span chunks), no control characters, and nothing that looks like markup or script in its first
 * `ACTIVE_TEXT_RULES.windowBytes` bytes (see active-text.ts). Only that window's text is kept, and only
 * until it is judged.
 */
export function textCheck(): ContentCheck {
  // The decoder drops a byte order mark at the start, which is what makes a leading BOM fine.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let head = '';
  let headBytes = 0;
  let judged = false;

  function decode(bytes: Uint8Array, last: boolean): string | undefined {
    try {
      return decoder.decode(bytes, { stream: !last });
    } catch {
      return undefined;
    }
  }

  function judgeHead(): string | undefined {
    judged = true;
    const rule = activeTextRule(head);
    head = '';
    return rule === undefined ? undefined : `not plain text: ${rule}`;
  }

  function take(bytes: Uint8Array, last: boolean): string | undefined {
    const text = decode(bytes, last);
    if (text === undefined) return 'not plain text: it is not valid UTF-8';
    if (hasControlCharacter(text)) return 'not plain text: it contains control characters';
    if (judged) return undefined;
    head += text;
    headBytes += bytes.length;
    return headBytes >= ACTIVE_TEXT_RULES.windowBytes || last ? judgeHead() : undefined;
  }

  return {
    push(chunk) {
      // Split at the window's edge so that what is judged does not depend on how the bytes were chunked.
      const inWindow = judged ? 0 : Math.min(chunk.length, ACTIVE_TEXT_RULES.windowBytes - headBytes);
      return take(chunk.subarray(0, inWindow), false) ?? take(chunk.subarray(inWindow), false);
    },
    end() {
      return take(new Uint8Array(0), true);
    },
  };
}
