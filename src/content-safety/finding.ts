/**
 * Where a rule matched in the normalised text. `start`/`end` bound the characters the snippet masks;
 * `secret` is what the hash is taken of, in a canonical form where one exists (digits of a card,
 * expanded words of a seed phrase), so the same secret typed two ways carries the same hash.
 */
export interface Finding {
  readonly start: number;
  readonly end: number;
  readonly secret: string;
}

export type Detector = (text: string) => Finding | null;

/** The first finding in the text among several detectors of one kind. */
export function earliest(text: string, detectors: readonly Detector[]): Finding | null {
  let first: Finding | null = null;
  for (const detect of detectors) {
    const found = detect(text);
    if (found && (!first || found.start < first.start)) first = found;
  }
  return first;
}

/** The first match of a global pattern that `accept` keeps, as a finding of the whole match. */
export function firstMatch(
  text: string,
  pattern: RegExp,
  accept: (match: RegExpExecArray) => boolean = () => true,
): Finding | null {
  for (const match of text.matchAll(pattern)) {
    if (accept(match)) {
      return { start: match.index, end: match.index + match[0].length, secret: match[0] };
    }
  }
  return null;
}
