/**
 * Text that a browser or an interpreter would run is not accepted as a text upload. A stored `.txt` is
 * served as text/plain, but a file is downloaded, forwarded and opened elsewhere too: a page or a
 * script that arrives looking like plain text is the classic way to smuggle active content past an
 * allow-list. So uploads whose first 64 KiB look like markup or script are refused.
 *
 * The rule, matched case-insensitively against the decoded text of the first `windowBytes` bytes
 * (a UTF-8 byte order mark at the very start does not count as text):
 * - after optional white space, the text starts with `<` and a letter, `!`, `?` or `/` (an HTML, XML or
 *   SVG document), or with a `#!` shebang;
 * - or it contains any of `markers` (markup that runs or embeds content, `javascript:` URLs);
 * - or it contains any of `scriptMarkers` (tokens common in JavaScript and rare in prose), or matches
 *   `scriptPatterns` (a DOM global with a property right after the dot: `document.cookie`,
 *   `window.location`; prose like "sign the document. Thanks" has a space there and does not match).
 *
 * The script markers are a heuristic: prose with `=>` in it is refused too, and can still be sent as a
 * PDF. Decision 013 records the rule.
 */
export const ACTIVE_TEXT_RULES = {
  windowBytes: 64 * 1024,
  markupStart: /^\s*<[a-z!?/]/i,
  shebangStart: /^\s*#!/,
  markers: ['<script', '<svg', '<iframe', '<object', '<embed', '<html', '<?xml', 'javascript:'],
  scriptMarkers: ['=>', 'function(', 'function (', 'eval(', 'alert('],
  scriptPatterns: [/\b(?:document|window)\.[a-z_$]/i],
} as const;

/** Which rule the start of a text breaks, or undefined when it looks like inert text. */
export function activeTextRule(head: string): string | undefined {
  const { markupStart, shebangStart, markers, scriptMarkers, scriptPatterns } = ACTIVE_TEXT_RULES;
  if (markupStart.test(head)) return 'it starts like markup (HTML, XML or SVG)';
  if (shebangStart.test(head)) return 'it starts with a #! interpreter line';
  const lower = head.toLowerCase();
  if (markers.some((marker) => lower.includes(marker)))
    return 'it contains markup that can run or embed content';
  if (
    scriptMarkers.some((marker) => lower.includes(marker)) ||
    scriptPatterns.some((pattern) => pattern.test(head))
  ) {
    return 'it looks like JavaScript';
  }
  return undefined;
}
