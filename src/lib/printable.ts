// Text that came from users or the database, made safe to write to a terminal: a control character can
// move the cursor, recolour or clear the screen, or set the window title (ESC sequences), and a bidi or
// other format character can make a line read differently from what it holds (U+202E turns the rest of
// the line around) or hide text altogether. Each such character is shown as its code point, `\u{202e}`.

// Cc: C0 controls, DEL and C1 controls. Cf: format characters (bidi marks, embeddings, overrides and
// isolates, zero-width characters, the BOM, tag characters). Zl, Zp: the line and paragraph separators
// some terminals break lines at. Cs: a lone surrogate, which no terminal can show.
const unsafe = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const unsafeBesidesNewline = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const escape = (char: string) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`;

/** One value (a name, an email, a reason, an argument) for one line of output: nothing in it acts. */
export function printable(value: string): string {
  return value.replace(unsafe, escape);
}

/** A message of several lines (an error with its usage): as `printable`, but line breaks stay. */
export function printableLines(text: string): string {
  return text.replace(unsafeBesidesNewline, escape);
}
