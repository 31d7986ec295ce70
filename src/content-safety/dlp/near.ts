/**
 * Whether `words` occurs within `distance` characters before or after [start, end). Key words are
 * what tell a secret from a look-alike number or hash, and people put them on either side.
 */
export function hasWordsNear(
  text: string,
  start: number,
  end: number,
  words: RegExp,
  distance: number,
): boolean {
  return (
    words.test(text.slice(Math.max(0, start - distance), start)) ||
    words.test(text.slice(end, end + distance))
  );
}
